import createNextIntlPlugin from "next-intl/plugin";

// The hosted pages' translations (lib/i18n): next-intl without i18n routing; the request
// config reads the locale proxy.ts resolved (`lang`, then Accept-Language, else English).
const withNextIntl = createNextIntlPlugin("./lib/i18n/request.ts");

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The v1 API is served by lib/http/app.ts, straight from server.ts, not by Next; Next serves the
  // dashboard, which loads the service layer from lib/dist at run time (app/_server/lib.ts),
  // so no database driver or other server package (siwe and its peer ethers included) ends up
  // in Next's bundles, the browser's least of all.
  poweredByHeader: false,
  typedRoutes: false,
  // The dashboard has Rotate/Revoke buttons: never framed (clickjacking), no MIME sniffing,
  // no full URLs (order ids) leaked to other sites, no powerful browser features. The
  // Content-Security-Policy (with a script nonce per response) is set in proxy.ts.
  // A widget's page (/w/<id>) is the one exception to X-Frame-Options: the sites its reseller
  // listed may frame it, through the CSP's frame-ancestors (proxy.ts), which also refuses the rest.
  async headers() {
    const common = [
      { key: "X-Content-Type-Options", value: "nosniff" },
      { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
    ];
    return [
      { source: "/((?!w/).*)", headers: [{ key: "X-Frame-Options", value: "DENY" }] },
      { source: "/((?!w/|x/|o/).*)", headers: [...common, { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" }] },
      // The end user's pages: the status page's URL holds its order's secret (?t=), so no
      // Referer ever leaves them, not even the origin (docs/widgets.md, The status link's secret).
      { source: "/:page(w|x|o)/:path*", headers: [...common, { key: "Referrer-Policy", value: "no-referrer" }] },
    ];
  },
};
export default withNextIntl(nextConfig);
