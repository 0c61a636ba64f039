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
  const title = cfg.title === "Exchange" || cfg.title === cfg.brand.name ? t("title") : cfg.title;
  const picker = <LanguagePicker path={path} sp={sp} locale={locale} label={t("language")} />;
  if (cfg.suspended)
    // A suspended reseller (issue 52): the brand stays (its support contact), the form goes.
    return (
      <HostedShell
        theme={{ dark: cfg.theme === "dark", accent: cfg.accent }}
        widget={widget}
        brand={cfg.brand}
        title={title}
        picker={picker}
      >
        <div role="alert" data-testid="service-unavailable" className="rounded-xl border border-zinc-200 bg-white p-5 text-zinc-900">
          <h2 className="text-lg font-semibold">{t("unavailableTitle")}</h2>
          <p className="mt-1 text-sm text-zinc-600">{t("unavailableText")}</p>
        </div>
      </HostedShell>
    );
  const initial = await initialExchange(cfg, loaded.currencies, await clientIp());
  return (
    <HostedShell theme={{ dark: cfg.theme === "dark", accent: cfg.accent }} widget={widget} brand={cfg.brand} title={title} picker={picker}>
      <ClientMessages namespaces={["exchange", "errors", "status", "common"]}>
        <HostedExchange cfg={cfg} currencies={formCurrencies(loaded.currencies)} widget={widget} lang={lang} initial={initial} />
      </ClientMessages>
    </HostedShell>
  );
}
