// The sites that may frame a widget: what a reseller may list, and what the page's
// Content-Security-Policy `frame-ancestors` then says. One parser decides both (issue 48): the
// widget's save refuses what the header cannot express, with a message that says why, and the
// header keeps every listed origin it can express. Before, the save took anything the URL parser
// took ("https://*.shop.example", "https://a_b.shop.example", "http://[::1]:8080") and the header
// check then refused the whole list, so one unusual origin blocked the widget everywhere.
// Pure and stateless: proxy.ts (Next's request proxy) checks the header with it too.

/**
 * CSP3's host-source, as browsers match it: a scheme, a host of letters, digits and hyphens in
 * dot-separated labels (optionally "*." first: any subdomain), an optional port. No IPv6 literal,
 * no underscore, no path. Only http and https are offered.
 */
const HOST_SOURCE = /^(https?):\/\/(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\d{1,5}))?$/;
const DEFAULT_PORT: Record<string, string> = { http: "80", https: "443" };

export type FrameOriginResult = { ok: true; origin: string } | { ok: false; reason: string };

/**
 * A listed site as frame-ancestors will name it ("https://shop.example", "https://*.shop.example",
 * "http://localhost:8080"): lower-cased, an internationalised name in its ASCII form, a default
 * port dropped, a trailing "/" dropped; or why it cannot be listed.
 */
export function parseFrameOrigin(value: string): FrameOriginResult {
  const v = value.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(v)?.[1]?.toLowerCase();
  if (scheme !== "http" && scheme !== "https") return { ok: false, reason: "an origin starts with https:// or http://" };
  const wildcard = /^https?:\/\/\*\./i.test(v);
  // The URL parser gives the host in its ASCII form and finds user info, paths and queries; a
  // wildcard's "*" is put back after parsing the rest.
  let url: URL;
  try {
    url = new URL(wildcard ? v.replace(/^(https?:\/\/)\*\./i, "$1") : v);
  } catch {
    return { ok: false, reason: "not an origin such as https://example.com" };
  }
  if (url.username || url.password) return { ok: false, reason: "an origin has no user name or password" };
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash || /[?#]/.test(v))
    return { ok: false, reason: "an origin has no path, query or fragment: only scheme, host and port" };
  if (url.hostname.startsWith("["))
    return { ok: false, reason: "a browser's frame-ancestors cannot name an IPv6 address; use a host name" };
  if (url.hostname.includes("_"))
    return {
      ok: false,
      reason: "a browser's frame-ancestors accepts host names of letters, digits, hyphens and dots only (no underscore)",
    };
  if (url.hostname.includes("*")) return { ok: false, reason: "a wildcard may only stand first, as in https://*.example.com" };
  const port = url.port && url.port !== DEFAULT_PORT[scheme] ? `:${url.port}` : "";
  const origin = `${scheme}://${wildcard ? "*." : ""}${url.hostname}${port}`;
  if (!HOST_SOURCE.test(origin)) return { ok: false, reason: "not an origin such as https://example.com" };
  return { ok: true, origin };
}

/** The frame-ancestors value of a widget's page: the app itself (the dashboard's preview) and each listed origin it can express. */
export function frameAncestorsOf(listed: readonly string[]): string {
  const sources = listed.flatMap((o) => {
    const r = parseFrameOrigin(o);
    return r.ok && r.origin === o ? [o] : [];
  });
  return ["'self'", ...sources].join(" ");
}

/** Whether a header value is one frameAncestorsOf makes ('none', or 'self' then listed origins). */
export function isFrameAncestorsValue(value: string): boolean {
  if (value === "'none'") return true;
  const [first, ...rest] = value.split(" ");
  return (
    first === "'self'" &&
    rest.every((o) => {
      const r = parseFrameOrigin(o);
      return r.ok && r.origin === o;
    })
  );
}
