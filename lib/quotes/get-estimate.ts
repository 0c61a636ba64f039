import "server-only";
import { getConfig } from "@/lib/config";
import type { Currency } from "@/lib/currencies/types";
import type { EngineContext } from "@/lib/engine";
import type { Dec } from "@/lib/money/decimal";
import { applyRate, effectiveRate } from "./compute-quote";
import { getTermsWithinLimits, parseAmount, resolvePair } from "./pricing";

export interface Estimate {
  from: Currency;
  to: Currency;
  fromAmount: Dec;
  toAmount: Dec;
  rate: Dec;
  /** Platform fee plus the caller's markup, in basis points. */
  feeBps: number;
  validUntil: Date;
  minAmount: Dec;
  maxAmount: Dec;
}

/** What an order created now would pay out, markup included. */
export async function getEstimate(opts: {
  from: unknown;
  to: unknown;
  amount: unknown;
  markupBps: number;
  ctx: EngineContext;
  now?: Date;
}): Promise<Estimate> {
  const { from, to } = resolvePair(opts.from, opts.to);
  const fromAmount = parseAmount(opts.amount, from);
  const terms = await getTermsWithinLimits(from, to, fromAmount, opts.ctx, opts.markupBps);
  const q = applyRate(fromAmount, terms.rate, to.precision, opts.markupBps);
  const now = opts.now ?? new Date();
  return {
    from,
    to,
    fromAmount,
    toAmount: q.toAmount,
    rate: effectiveRate(fromAmount, q.toAmount),
    feeBps: terms.platformFeeBps + opts.markupBps,
    validUntil: new Date(now.getTime() + getConfig().QUOTE_TTL_SECONDS * 1000),
    minAmount: terms.minAmount,
    maxAmount: terms.maxAmount,
  };
}
