// The markup and rate maths, pure and exact (lib/domain: the shared vocabulary below the engine,
// the quotes and the orders; a shared module, imported by the browser too).

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
 * digits (docs/api.md, Amounts): both are multiples of that place and no larger than rawToAmount.
 */
export function applyRate(fromAmount: Dec, rate: Dec, toPrecision: number, markupBps: number): QuoteMath {
  if (!Number.isInteger(markupBps) || markupBps < 0 || markupBps >= BPS) throw new RangeError(`markup out of range: ${markupBps}`);
  const rawToAmount = floorAmount(fromAmount.mul(rate), toPrecision);
  const toAmount = afterMarkup(rawToAmount, toPrecision, markupBps);
  return { rate, rawToAmount, toAmount, profit: rawToAmount.minus(toAmount) };
}

/** What the user gets of a raw output: less the markup, floored at the raw amount's last place. */
const afterMarkup = (raw: Dec, toPrecision: number, markupBps: number): Dec =>
  floorTo(raw.mul(BPS - markupBps).div(BPS), amountPlaces(raw, toPrecision));

/** Effective rate shown to clients: what one unit buys after fee and markup, 12 significant digits, rounded down. */
export function effectiveRate(fromAmount: Dec, toAmount: Dec): Dec {
  if (fromAmount.isZero()) return new D(0);
  return toAmount.div(fromAmount).toSignificantDigits(12, D.ROUND_DOWN);
}

/** The raw output whose part after the markup is `toAmount` before rounding: toAmount / (1 - bps/10000), rounded up to an amount. */
const rawBefore = (toAmount: Dec, toPrecision: number, markupBps: number): Dec =>
  ceilAmount(toAmount.mul(BPS).div(BPS - markupBps), toPrecision);

/**
 * The least raw output (an amount at toPrecision) whose part after the markup, as applyRate
 * rounds it, reaches toAmount. It starts from the exact quotient rounded up; that falls short
 * only where the raw amount has one digit more before the point than toAmount (so one place
 * fewer after it), and a step or two of its last place mends that. The loop ends: each step
 * adds at least one last place, and the part after the markup grows with the raw amount.
 */
export function leastRawFor(toAmount: Dec, toPrecision: number, markupBps: number): Dec {
  let raw = rawBefore(toAmount, toPrecision, markupBps);
  while (afterMarkup(raw, toPrecision, markupBps).lt(toAmount))
    raw = ceilAmount(raw.plus(new D(10).pow(-amountPlaces(raw, toPrecision))), toPrecision);
  return raw;
}

/**
 * A reverse quote: the smallest amount of the source currency (an amount at its precision)
 * whose applyRate gives the user at least `toAmount`: the least raw output that pays the
 * target after the markup, divided by the rate and rounded up to an amount. Why that is exact:
 * applyRate floors from * rate to an amount, which is at least the raw output when
 * from * rate is (the raw output is an amount on the same or a coarser grid), and below it
 * for any smaller source amount; and the user's part grows with the raw output.
 * tests/quotes/reverse-quote.test.ts checks both directions on random inputs.
 */
export function fromAmountFor(toAmount: Dec, rate: Dec, fromPrecision: number, toPrecision: number, markupBps: number): Dec {
  if (rate.lte(0)) throw new RangeError("rate must be positive");
  return ceilAmount(leastRawFor(toAmount, toPrecision, markupBps).div(rate), fromPrecision);
}

/**
 * The user's amount `q` as firm terms in our markup math: rawToAmount = ceil(q / (1 - m)),
 * rate = rawToAmount / fromAmount rounded up, so floor(fromAmount x rate) = rawToAmount and
 * floor(rawToAmount x (1 - m)) = q exactly (docs/providers.md section 1).
 *
 * All three are amounts (docs/api.md, Amounts): at most 15 significant digits and the currency's
 * decimals. So `q` is rounded down to one (the user gets at least what is shown), and where
 * rawToAmount is a power of ten larger than `q` it keeps one decimal place fewer: `q` is then
 * rounded down to that place too, or the markup math would shave the difference off the
 * user's amount and count it as profit the operator never receives.
 */
export function termsForUserAmount(q: Dec, fromAmount: Dec, precision: number, markupBps: number): QuoteMath {
  let userAmount = floorAmount(q, precision);
  let raw = rawBefore(userAmount, precision, markupBps);
  const places = amountPlaces(raw, precision);
  if (userAmount.decimalPlaces() > places) {
    userAmount = floorTo(userAmount, places);
    raw = rawBefore(userAmount, precision, markupBps);
  }
  const rate = raw.div(fromAmount).toSignificantDigits(32, D.ROUND_UP);
  const m = applyRate(fromAmount, rate, precision, markupBps);
  if (m.toAmount.gt(userAmount)) throw new Error(`terms would promise ${m.toAmount} > ${userAmount}`);
  return m;
}
