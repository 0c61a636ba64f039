import "server-only";
import { getConfig, markupRange } from "@/lib/config";
import { getCurrency } from "@/lib/currencies";
import type { Db } from "@/lib/db/client";
import { applyRate } from "@/lib/domain/quote-math";
import { getEngine } from "@/lib/engine";
import { D, formatAmount } from "@/lib/money/decimal";
import { getPrices, USD } from "@/lib/prices/prices";
import { priceScope } from "./prices";
import type { MarkupSample, SettingsView } from "./types";

// The sample order of the markup page: a real pair priced by the configured engine, with
// the platform fee but no markup; the page applies the markup being typed with the same
// applyRate() the API uses.
const SAMPLE_PAIRS: [string, string, string][] = [
  ["btc", "xmr", "0.5"],
  ["btc", "eth", "0.1"],
  ["eth", "btc", "1"],
];

async function sample(resellerId: string): Promise<MarkupSample | null> {
  for (const [fromT, toT, amount] of SAMPLE_PAIRS) {
    try {
      const from = getCurrency(fromT);
      const to = getCurrency(toT);
      if (!from || !to || !from.isAvailable || !to.isAvailable) continue;
      const terms = await getEngine().quote({ from, to, fromAmount: new D(amount) }, { scope: `reseller:${resellerId}` });
      const q = applyRate(new D(amount), terms.rate, to.precision, 0);
      const price = await getPrices().tryPrice(toT, USD, { scope: priceScope(resellerId) });
      return {
        from: fromT,
        to: toT,
        fromAmount: amount,
        rawToAmount: formatAmount(q.rawToAmount),
        toPrecision: to.precision,
        toPriceUsd: price?.rate ?? null,
        toPriceDate: price?.at.toISOString() ?? null,
        toPriceSource: price?.source ?? null,
      };
    } catch {
      // try the next pair
    }
  }
  return null;
}

export async function getSettingsView(db: Db, opts: { resellerId: string }): Promise<SettingsView> {
  const c = getConfig();
  const r = await db.reseller.findUnique({ where: { id: opts.resellerId }, select: { markupBps: true } });
  const range = markupRange(c);
  return {
    markupBps: r?.markupBps ?? 0,
    capBps: range.maxBps,
    capLimitedBy: range.limitedBy,
    providerCaps: range.providers.map(({ label, maxMarkupBps }) => ({ label, maxMarkupBps })),
    platformFeeBps: c.PLATFORM_FEE_BPS,
    sample: await sample(opts.resellerId),
  };
}
