import "server-only";
import { notFound } from "next/navigation";
import { getDb, hostedCurrencies, hostedPage } from "@/app/_server/lib";
import type { HostedConfig, HostedCurrency } from "./api";

/** A hosted page's or widget's settings; an unknown, disabled or revoked one is the 404 page. */
export async function loadHosted(sel: {
  reseller?: string | null;
  widget?: string | null;
}): Promise<{ cfg: HostedConfig; currencies: HostedCurrency[] }> {
  try {
    return { cfg: await hostedPage(getDb(), sel), currencies: hostedCurrencies() };
  } catch (e) {
    if ((e as { code?: string }).code === "NOT_FOUND") notFound();
    throw e;
  }
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
