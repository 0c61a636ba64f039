// The languages of the hosted exchange page, the widget and the status page (issue 51). The
// page does not use i18n routing: the locale comes from the `lang` URL parameter, then the
// browser's Accept-Language, else English; no cookie. Pure: the proxy, the server and the
// tests import it. A new language: add it here and write messages/<locale>.json (./messages.ts).

export const LOCALES = ["en", "es", "pt", "ru", "zh", "de", "fr", "tr"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

/** Each language by its own name, for the language picker. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: "English",
  es: "Español",
  pt: "Português",
  ru: "Русский",
  zh: "中文",
  de: "Deutsch",
  fr: "Français",
  tr: "Türkçe",
};

export const isLocale = (v: unknown): v is Locale => typeof v === "string" && (LOCALES as readonly string[]).includes(v);

/** The locales an Accept-Language header asks for, best first (q=0 excluded), as their primary subtags. */
function accepted(header: string): string[] {
  return header
    .split(",")
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
      return { tag: tag.trim().toLowerCase().split("-")[0], q: q ? Number(q[1]) : 1, i };
    })
    .filter((x) => x.tag && x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((x) => x.tag);
}

/** The page's locale: a valid `lang` parameter, else the first supported language the browser accepts, else English. */
export function resolveLocale(lang: string | null | undefined, acceptLanguage: string | null | undefined): Locale {
  const l = lang?.trim().toLowerCase();
  if (isLocale(l)) return l;
  for (const tag of accepted(acceptLanguage ?? "").slice(0, 20)) if (isLocale(tag)) return tag;
  return DEFAULT_LOCALE;
}

/** The request header through which proxy.ts gives the resolved locale to the layout and the request config. */
export const LOCALE_HEADER = "x-hosted-locale";
