import { headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { DEFAULT_LOCALE, isLocale, LOCALE_HEADER } from "./locales";
import { messagesFor } from "./messages";

// next-intl's request config (next.config.mjs names it): the locale proxy.ts resolved for this
// request (the `lang` parameter, then Accept-Language, else English), its messages with English
// as the fallback, and times in UTC (the pages say "UTC" beside every time they show).
export default getRequestConfig(async () => {
  const h = (await headers()).get(LOCALE_HEADER);
  const locale = isLocale(h) ? h : DEFAULT_LOCALE;
  return { locale, messages: messagesFor(locale), timeZone: "UTC" };
});
