import { amountPlaces, ceilAmount, D, type Dec, floorAmount, floorTo } from "@/lib/money/decimal";

export const BPS = 10_000;

export interface QuoteMath {
  /** The engine's rate (market rate less the platform fee); what the user gets per unit before markup. */
  rate: Dec;
  /** Output before the reseller's markup, rounded down to an amount of the destination currency. */
  rawToAmount: Dec;
  /** Output the user receives: rawToAmount less markup, rounded down at rawToAmount's last place. */
  toAmount: Dec;
  /** The reseller's profit in the destination currency: exactly rawToAmount - toAmount. */
  profit: Dec;
}

/**
 * The markup math of product.md, pure and exact:
 *   rawToAmount = floor(fromAmount * rate) to an amount (the destination's precision, 15 significant digits)
 *   toAmount    = floor(rawToAmount * (1 - bps/10000)) at rawToAmount's last place
 *   profit      = rawToAmount - toAmount
 * Rounding the raw amount first makes a keyed toAmount equal floor(keyless toAmount * (1 - bps/10000)).
 * Flooring toAmount at rawToAmount's last place keeps all three within 15 significant
 * digits (README, Amounts): both are multiples of that place and no larger than rawToAmount.
 */
export function applyRate(fromAmount: Dec, rate: Dec, toPrecision: number, markupBps: number): QuoteMath {
  if (!Number.isInteger(markupBps) || markupBps < 0 || markupBps >= BPS) throw new RangeError(`markup out of range: ${markupBps}`);
  const rawToAmount = floorAmount(fromAmount.mul(rate), toPrecision);
  const toAmount = floorTo(rawToAmount.mul(BPS - markupBps).div(BPS), amountPlaces(rawToAmount, toPrecision));
  return { rate, rawToAmount, toAmount, profit: rawToAmount.minus(toAmount) };
}

/** Effective rate shown to clients: what one unit buys after fee and markup, 12 significant digits, rounded down. */
export function effectiveRate(fromAmount: Dec, toAmount: Dec): Dec {
  if (fromAmount.isZero()) return new D(0);
  return toAmount.div(fromAmount).toSignificantDigits(12, D.ROUND_DOWN);
}

/**
 * A reverse quote: the smallest amount of the source currency (an amount at its precision)
 * whose applyRate gives the user at least `toAmount`. First the least raw output whose
 * markup-less part reaches the target, then the least source amount that buys that raw
 * output; each starts from the exact quotient rounded up and steps up one last place while
 * the roundings of applyRate leave the user short.
 */
export function fromAmountFor(toAmount: Dec, rate: Dec, fromPrecision: number, toPrecision: number, markupBps: number): Dec {
  if (rate.lte(0)) throw new RangeError("rate must be positive");
  const ulp = (x: Dec, precision: number) => new D(10).pow(-amountPlaces(x, precision));
  let raw = ceilAmount(toAmount.mul(BPS).div(BPS - markupBps), toPrecision);
  for (let i = 0; i < 100 && floorTo(raw.mul(BPS - markupBps).div(BPS), amountPlaces(raw, toPrecision)).lt(toAmount); i++)
    raw = ceilAmount(raw.plus(ulp(raw, toPrecision)), toPrecision);
  let from = ceilAmount(raw.div(rate), fromPrecision);
  for (let i = 0; i < 100 && applyRate(from, rate, toPrecision, markupBps).toAmount.lt(toAmount); i++)
    from = ceilAmount(from.plus(ulp(from, fromPrecision)), fromPrecision);
  return from;
}
