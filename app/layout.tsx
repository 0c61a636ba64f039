import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
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
  return (
    <html lang="en">
      <body className="min-h-dvh">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
