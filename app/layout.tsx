import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { connection } from "next/server";
import { DEFAULT_LOCALE, isLocale, LOCALE_HEADER } from "@/lib/i18n/locales";
import "./globals.css";
import { Providers } from "./providers";

export const metadata: Metadata = {
  title: { default: "Reseller dashboard", template: "%s · Reseller dashboard" },
  description: "Manage API keys, markup, orders and earnings of your exchange reseller account.",
  robots: { index: false, follow: false },
};

export const viewport: Viewport = { width: "device-width", initialScale: 1, themeColor: "#fafafa" };

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // Every page is rendered per request, so that Next can put the CSP nonce (proxy.ts) on its scripts.
  await connection();
  // The hosted pages' language, as proxy.ts resolved it (lib/i18n); the dashboard is in English.
  const locale = (await headers()).get(LOCALE_HEADER);
  return (
    <html lang={isLocale(locale) ? locale : DEFAULT_LOCALE}>
      <body className="min-h-dvh">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
