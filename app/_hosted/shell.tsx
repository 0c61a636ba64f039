import "server-only";
import { headers } from "next/headers";
import { NextIntlClientProvider } from "next-intl";
import { getLocale, getMessages, getTranslations } from "next-intl/server";
import { isLocale, LOCALE_NAMES, LOCALES, type Locale } from "@/lib/i18n/locales";
import { type Messages, pickMessages } from "@/lib/i18n/messages";
import type { PublicBrand } from "@/lib/resellers/brand-types";
import { BrandFooter, BrandHeader } from "./Brand";
import { HostedFrame } from "./theme";

// The hosted pages' server-side frame: the language (lib/i18n; resolved by proxy.ts from
// `lang`, then Accept-Language), the language picker (links: it works without JavaScript and
// keeps the page and its query), and the client parts' messages, only the namespaces they use.

export type Search = Record<string, string | string[] | undefined>;
export const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** The page's locale, and the `lang` to carry into forms, links and redirects (only when the URL chose it). */
export async function hostedLocale(sp: Search): Promise<{ locale: Locale; lang: Locale | null }> {
  const locale = (await getLocale()) as Locale;
  const asked = first(sp.lang)?.toLowerCase();
  return { locale, lang: isLocale(asked) ? asked : null };
}

/** The client IP server.ts vouches for (the rate limits count it). */
export async function clientIp(): Promise<string> {
  return (await headers()).get("x-client-ip") ?? "unknown";
}

/** Links to the page itself in each language, its other query parameters kept. */
export function LanguagePicker({ path, sp, locale, label }: { path: string; sp: Search; locale: Locale; label: string }) {
  const href = (l: Locale) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(sp)) if (k !== "lang" && typeof first(v) === "string") q.set(k, first(v) as string);
    q.set("lang", l);
    return `${path}?${q.toString()}`;
  };
  return (
    <nav aria-label={label} className="mt-6 text-center text-xs" data-testid="language-picker">
      <ul className="flex flex-wrap justify-center gap-x-3 gap-y-1">
        {LOCALES.map((l) => (
          <li key={l}>
            {l === locale ? (
              <span aria-current="true" className="font-semibold" lang={l}>
                {LOCALE_NAMES[l]}
              </span>
            ) : (
              <a href={href(l)} hrefLang={l} lang={l} className="underline" rel="nofollow">
                {LOCALE_NAMES[l]}
              </a>
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The client components' messages: only `namespaces`, to keep the page and its inlined RSC payload small. */
export async function ClientMessages({ namespaces, children }: { namespaces: readonly (keyof Messages)[]; children: React.ReactNode }) {
  const locale = await getLocale();
  const messages = (await getMessages()) as Messages;
  return (
    <NextIntlClientProvider locale={locale} messages={pickMessages(messages, namespaces)} timeZone="UTC">
      {children}
    </NextIntlClientProvider>
  );
}

/**
 * A hosted page: its theme, the reseller's brand (logo and name above the title; support
 * contact and terms below the content: app/_hosted/Brand.tsx), its title, its content and the
 * language picker.
 */
export async function HostedShell({
  theme,
  widget,
  brand,
  title,
  children,
  picker,
}: {
  theme: { dark: boolean; accent: string };
  widget: boolean;
  brand?: PublicBrand | null;
  title: string;
  children: React.ReactNode;
  picker: React.ReactNode;
}) {
  const t = await getTranslations("common");
  return (
    <HostedFrame theme={theme} widget={widget}>
      <main className={widget ? "mx-auto max-w-lg p-3" : "mx-auto max-w-xl px-4 py-6 sm:py-10"}>
        {brand ? <BrandHeader brand={brand} labels={{ logo: brand.name ? "" : t("logoAlt") }} className="mb-3" /> : null}
        <h1 className={widget ? "mb-3 text-lg font-semibold" : "mb-4 text-2xl font-semibold tracking-tight"}>{title}</h1>
        {children}
        {brand ? (
          <BrandFooter brand={brand} labels={{ support: t("support"), terms: t("terms"), newTab: t("opensNewTab") }} className="mt-6" />
        ) : null}
        {picker}
      </main>
    </HostedFrame>
  );
}
