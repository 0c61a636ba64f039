import "server-only";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { cache } from "react";
import { getDb, hostedCurrencies, hostedPage, pageEstimate, pageRange } from "@/app/_server/lib";
import type { HostedConfig, HostedCurrency } from "./api";
import { pageError } from "./messages";
import type { ExchangeState, FormCurrency } from "./state";

/**
 * A hosted page's or widget's settings; an unknown, disabled or revoked one is the 404 page.
 * Read once per request (React's cache): the page's metadata (its title, the brand's name) and
 * the page itself ask for it.
 */
export const loadHosted = cache(
  async (reseller: string | null, widget: string | null): Promise<{ cfg: HostedConfig; currencies: HostedCurrency[] }> => {
    try {
      return { cfg: await hostedPage(getDb(), { reseller, widget }), currencies: hostedCurrencies() };
    } catch (e) {
      if ((e as { code?: string }).code === "NOT_FOUND") notFound();
      throw e;
    }
  },
);

/** A hosted page's tab title: the reseller's display name when it set one, else "Exchange" in the page's language. */
export async function hostedTitle(reseller: string | null, widget: string | null): Promise<Metadata> {
  const { cfg } = await loadHosted(reseller, widget);
  const t = await getTranslations("common");
  return { title: { absolute: cfg.brand.name ?? t("title") }, robots: { index: false, follow: false } };
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * A widget's URL parameters over its dashboard settings (docs/widgets.md): theme=light|dark,
 * accent=<rrggbb>, from=<ticker>, to=<ticker>, amount=<decimal>. Anything malformed is ignored.
 */
export function withUrlParameters(
  cfg: HostedConfig,
  currencies: HostedCurrency[],
  sp: Record<string, string | string[] | undefined>,
): HostedConfig {
  const out = { ...cfg };
  const theme = first(sp.theme);
  if (theme === "light" || theme === "dark") out.theme = theme;
  const accent = first(sp.accent)?.replace(/^#/, "");
  if (accent && /^[0-9a-fA-F]{6}$/.test(accent)) out.accent = `#${accent.toLowerCase()}`;
  const ticker = (v: string | undefined) => (v && currencies.some((c) => c.ticker === v.toLowerCase()) ? v.toLowerCase() : null);
  const from = ticker(first(sp.from));
  const to = ticker(first(sp.to));
  if (from) out.defaultFrom = from;
  if (to) out.defaultTo = to;
  const amount = first(sp.amount);
  if (amount && /^\d{1,15}(?:\.\d{1,18})?$/.test(amount)) out.defaultAmount = amount;
  return out;
}

/**
 * The currencies as the form's lists need them, and nothing more: the list is in the page
 * twice (the HTML's options, and the client component's props in the inlined RSC payload).
 */
export const formCurrencies = (list: HostedCurrency[]): FormCurrency[] =>
  list.map((c) => [c.ticker, c.symbol, c.name, c.network, c.hasExtraId ? (c.extraIdName ?? "Extra ID") : "", c.popular ? 1 : 0]);

/**
 * The form's first state, rendered on the server: the page's defaults, the pair's limits (so
 * they show before an amount is typed) and, when the URL or widget gives an amount, its estimate.
 */
export async function initialExchange(cfg: HostedConfig, currencies: HostedCurrency[], clientIp: string): Promise<ExchangeState> {
  const known = (t: string | null | undefined, fallback: string) => (t && currencies.some((x) => x.ticker === t) ? t : fallback);
  const from = known(cfg.defaultFrom, currencies[0]?.ticker ?? "btc");
  let to = known(cfg.defaultTo, currencies[1]?.ticker ?? "eth");
  if (to === from) to = currencies.find((c) => c.ticker !== from)?.ticker ?? to;
  const amount = cfg.defaultAmount ?? "";
  const sel = { reseller: cfg.r, widget: cfg.w };
  const state: ExchangeState = {
    values: { from, to, mode: "send", amount, rateType: "floating", address: "", extraId: "", refundAddress: "" },
    errors: {},
    estimate: null,
    range: await pageRange(getDb(), { sel, from, to, clientIp }),
    notice: null,
    created: null,
  };
  if (amount) {
    try {
      state.estimate = await pageEstimate(getDb(), { sel, from, to, amount, rateType: "floating", clientIp });
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (!code || code === "INTERNAL_ERROR") throw e;
      const pair = {
        from: currencies.find((c) => c.ticker === from),
        to: currencies.find((c) => c.ticker === to),
        fromTicker: from,
        toTicker: to,
      };
      const { field, message } = pageError(code, (e as { details?: Record<string, unknown> }).details, pair);
      state.errors[field] = message;
    }
  }
  return state;
}
