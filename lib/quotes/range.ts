import "server-only";
import type { Currency } from "@/lib/currencies/types";
import type { EngineContext } from "@/lib/engine";
import { getEngine } from "@/lib/engine";
import type { Dec } from "@/lib/money/decimal";
import { amountLimits, resolvePair } from "./pricing";

export interface AmountRange {
  from: Currency;
  to: Currency;
  minAmount: Dec;
  maxAmount: Dec;
}

/**
 * A pair's limits on the amount sent, as /estimate and /exchange apply them (and as their
 * AMOUNT_TOO_LOW / AMOUNT_TOO_HIGH errors carry them): the engine's pair terms, rounded inward.
 */
export async function getRange(opts: { from: unknown; to: unknown; markupBps: number; ctx: EngineContext }): Promise<AmountRange> {
  const { from, to } = resolvePair(opts.from, opts.to);
  const terms = await getEngine().quote({ from, to, fromAmount: null, markupBps: opts.markupBps }, opts.ctx);
  return { from, to, ...amountLimits(terms, from.precision) };
}
