import "server-only";
import crypto from "node:crypto";
import type http from "node:http";
import { resolveLocale } from "@/lib/i18n/locales";
import { messagesFor } from "@/lib/i18n/messages";

// The 404 of the end user's pages (an unknown reseller, widget or order, or a status link
// without its secret), answered by server.ts itself: Next renders a dynamic page's notFound()
// only with JavaScript, and these pages must work without it (docs/widgets.md). A small page
// in the visitor's language (lib/i18n: `lang`, then Accept-Language), with no way into the
// dashboard. On /o/<id>, one inline script (allowed by its hash) moves an old link's secret
// from the fragment (#t=) into the query, where the server can read it.

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const FRAGMENT_SCRIPT =
  '(function(){var m=/(?:^#|&)t=([1-9A-HJ-NP-Za-km-z]{20,60})(?:&|$)/.exec(location.hash);if(m&&!/[?&]t=/.test(location.search)){location.replace(location.pathname+(location.search?location.search+"&":"?")+"t="+m[1]);}})();';
const SCRIPT_HASH = `'sha256-${crypto.hash("sha256", FRAGMENT_SCRIPT, "base64")}'`;

/** Answers the hosted 404 for `url` (its `lang`) to a browser that accepts `acceptLanguage`. */
export function answerHostedNotFound(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://x");
  const locale = resolveLocale(url.searchParams.get("lang"), req.headers["accept-language"]);
  const order = url.pathname.startsWith("/o/");
  const m = messagesFor(locale);
  const title = order ? m.status.notFoundTitle : m.common.notFoundTitle;
  const text = order ? m.status.notFoundText : m.common.notFoundText;
  const html = `<!DOCTYPE html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow"><title>${escapeHtml(title)}</title>${order ? `<script>${FRAGMENT_SCRIPT}</script>` : ""}</head><body style="margin:0;font-family:system-ui,sans-serif;background:#fafafa;color:#18181b"><main style="max-width:36rem;margin:0 auto;padding:2.5rem 1rem"><div role="alert" style="background:#fff;border:1px solid #e4e4e7;border-radius:.75rem;padding:1.25rem"><h1 style="font-size:1.125rem;margin:0">${escapeHtml(title)}</h1><p style="margin:.25rem 0 0;color:#52525b;font-size:.875rem">${escapeHtml(text)}</p></div></main></body></html>`;
  res.writeHead(404, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(html),
    "cache-control": "no-store",
    "content-security-policy": `default-src 'none'; script-src ${order ? SCRIPT_HASH : "'none'"}; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
  });
  res.end(req.method === "HEAD" ? undefined : html);
}
