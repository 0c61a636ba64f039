// Where the sign-in may send the browser afterwards (?callbackUrl=): a path on this app, decided
// on the URL as the browser will parse it, never on the raw string. The raw string lies: the
// URL parser drops tab, LF and CR anywhere and reads "\" as "/", so "/\t/evil.example" and
// "/\t\\evil.example" pass a check for "//" and "/\" and still lead off-site (issue 48).
// Shared by the sign-in page (in the browser) and next-auth's redirect callback (on the server):
// pure, no state, so a bundled copy holds nothing (docs/architecture.md, The import rule).

/** Where a sign-in goes when it names nowhere acceptable. */
export const DEFAULT_CALLBACK = "/dashboard";

// A callback longer than this is someone's garbage, not a page of ours.
const MAX_LENGTH = 2048;
// Controls (C0, DEL, C1) and the backslash: no path of ours has them; each is read differently by the
// URL parser than by a naive check.
const FORBIDDEN = /[\p{Cc}\\]/u;

/**
 * `raw` as a path on `appOrigin` ("/dashboard/keys?x=1"), re-serialised from the parsed URL, or
 * DEFAULT_CALLBACK. Accepted: a path starting with one "/", or an absolute URL of exactly
 * `appOrigin` (next-auth hands those to its redirect callback) without user info. Everything
 * else (another origin, "//host", a scheme such as javascript: or data:, controls, backslashes,
 * a path that normalises to "//host") gives DEFAULT_CALLBACK.
 */
export function safeCallbackPath(raw: unknown, appOrigin: string): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_LENGTH || FORBIDDEN.test(raw)) return DEFAULT_CALLBACK;
  let base: URL;
  try {
    base = new URL(appOrigin);
  } catch {
    return DEFAULT_CALLBACK;
  }
  const relative = raw.startsWith("/");
  if (relative ? raw.startsWith("//") : !raw.startsWith(`${base.origin}/`) && raw !== base.origin) return DEFAULT_CALLBACK;
  let url: URL;
  try {
    url = new URL(raw, base.origin);
  } catch {
    return DEFAULT_CALLBACK;
  }
  if (url.origin !== base.origin || url.username || url.password) return DEFAULT_CALLBACK;
  // "/.//evil.example" parses to the path "//evil.example": handed to a router as it is, that
  // is a protocol-relative link to another host.
  if (url.pathname.startsWith("//")) return DEFAULT_CALLBACK;
  return `${url.pathname}${url.search}${url.hash}`;
}
