import { D, type Dec, floorTo } from "@/lib/money/decimal";

export const BPS = 10_000;

export interface QuoteMath {
  /** The engine's rate (market rate less the platform fee); what the user gets per unit before markup. */
  rate: Dec;
  /** Output before the reseller's markup, rounded down to the destination precision. */
  rawToAmount: Dec;
  /** Output the user receives: rawToAmount less markup, rounded down to the destination precision. */
  toAmount: Dec;
  /** The reseller's profit in the destination currency: exactly rawToAmount - toAmount. */
  profit: Dec;
}

/**
 * The markup math of product.md, pure and exact:
 *   rawToAmount = floor(fromAmount * rate, precision)
 *   toAmount    = floor(rawToAmount * (1 - bps/10000), precision)
 *   profit      = rawToAmount - toAmount
 * Rounding the raw amount first makes a keyed toAmount equal floor(keyless toAmount * (1 - bps/10000)).
 */
export function applyRate(fromAmount: Dec, rate: Dec, toPrecision: number, markupBps: number): QuoteMath {
  if (!Number.isInteger(markupBps) || markupBps < 0 || markupBps >= BPS) throw new RangeError(`markup out of range: ${markupBps}`);
  const rawToAmount = floorTo(fromAmount.mul(rate), toPrecision);
  const toAmount = floorTo(rawToAmount.mul(BPS - markupBps).div(BPS), toPrecision);
  return { rate, rawToAmount, toAmount, profit: rawToAmount.minus(toAmount) };
}

/** Effective rate shown to clients: what one unit buys after fee and markup, 12 significant digits, rounded down. */
export function effectiveRate(fromAmount: Dec, toAmount: Dec): Dec {
  if (fromAmount.isZero()) return new D(0);
  return toAmount.div(fromAmount).toSignificantDigits(12, D.ROUND_DOWN);
}
