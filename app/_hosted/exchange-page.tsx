import "server-only";
import { getTranslations } from "next-intl/server";
import { HostedExchange } from "./Exchange";
import { formCurrencies, initialExchange, loadHosted, withUrlParameters } from "./load";
import { ClientMessages, clientIp, HostedShell, hostedLocale, LanguagePicker, type Search } from "./shell";

/** The hosted page (/x/<reseller>) and the widget (/w/<widget>): the server renders the form and its first state. */
export async function ExchangePage({
  sel,
  sp,
  path,
  widget,
}: {
  sel: { reseller?: string | null; widget?: string | null };
  sp: Search;
  path: string;
  widget: boolean;
}) {
  const loaded = await loadHosted(sel.reseller ?? null, sel.widget ?? null);
  const cfg = withUrlParameters(loaded.cfg, loaded.currencies, sp);
  const { locale, lang } = await hostedLocale(sp);
  const t = await getTranslations("common");
  const initial = await initialExchange(cfg, loaded.currencies, await clientIp());
  return (
    <HostedShell
      theme={{ dark: cfg.theme === "dark", accent: cfg.accent }}
      widget={widget}
      brand={cfg.brand}
      title={cfg.title === "Exchange" || cfg.title === cfg.brand.name ? t("title") : cfg.title}
      picker={<LanguagePicker path={path} sp={sp} locale={locale} label={t("language")} />}
    >
      <ClientMessages namespaces={["exchange", "errors", "status", "common"]}>
        <HostedExchange cfg={cfg} currencies={formCurrencies(loaded.currencies)} widget={widget} lang={lang} initial={initial} />
      </ClientMessages>
    </HostedShell>
  );
}
