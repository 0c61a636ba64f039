import { type NextRequest, NextResponse } from "next/server";
import { isFrameAncestorsValue } from "@/lib/channels/frame-origins";
import { LOCALE_HEADER, resolveLocale } from "@/lib/i18n/locales";

// The dashboard's Content-Security-Policy, with a fresh nonce per response for its scripts
// (Next's way: Next reads the nonce from the request's CSP header and puts it on every script
// it renders, so every page is rendered per request; see app/layout.tsx). Scripts run only
// with the nonce or when loaded by one that has it ('strict-dynamic'); everything else comes
// from this origin. Styles allow inline attributes (the charts set them). server.ts adds HSTS
// when APP_URL is https.
// The frame-ancestors value is checked with the parser that decided it (lib/channels/frame-origins.ts).
function frameAncestors(request: NextRequest): string {
  const listed = request.headers.get("x-frame-ancestors");
  return request.nextUrl.pathname.startsWith("/w/") && listed && isFrameAncestorsValue(listed) ? listed : "'none'";
}

export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const dev = process.env.NODE_ENV === "development";
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    // A widget's page (/w/<id>) may be framed by the sites its reseller listed: lib/http/server.ts
    // looks them up and sets x-frame-ancestors (it drops any the client sent); nothing else is framed.
    `frame-ancestors ${frameAncestors(request)}`,
  ].join("; ");
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("Content-Security-Policy", csp);
  // The hosted pages' language (lib/i18n): `lang`, then Accept-Language, else English; no
  // cookie. The layout (<html lang>) and next-intl's request config read it; a client cannot set it.
  headers.set(
    LOCALE_HEADER,
    /^\/[xwo]\//.test(request.nextUrl.pathname)
      ? resolveLocale(request.nextUrl.searchParams.get("lang"), request.headers.get("accept-language"))
      : "en",
  );
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

export const config = {
  matcher: [
    {
      source: "/((?!_next/static|_next/image|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
