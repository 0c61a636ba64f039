import Decimal from "decimal.js";

// A private Decimal constructor: high precision for intermediate results, and every
// rounding in the money path is explicit (toDecimalPlaces with a rounding mode).
export const D = Decimal.clone({ precision: 64, rounding: Decimal.ROUND_DOWN, toExpNeg: -40, toExpPos: 40 });
export type Dec = InstanceType<typeof D>;

/** Amounts stay below 10^30: whole digits an amount may have (far above any currency's supply). */
export const MAX_INTEGER_DIGITS = 30;
const DECIMAL_RE = new RegExp(`^(?:0|[1-9]\\d{0,${MAX_INTEGER_DIGITS - 1}})(?:\\.\\d+)?$`);

/** Parses a plain decimal string ("12", "0.5"); no exponent, sign, or spaces. Null when invalid. */
export function parseDecimal(input: string): Dec | null {
  if (!DECIMAL_RE.test(input)) return null;
  return new D(input);
}

/** The largest exponent a number's text may carry ("1e100"): far beyond any amount, short enough to print. */
export const MAX_EXPONENT = 100;

const NUMBER_TEXT_RE = /^-?\d+(?:\.\d+)?(?:[eE]([-+]?\d+))?$/;

/**
 * Parses a number's text as JSON writes it ("5e-1", "-2.5", "1E+3"), or null when it is not one
 * or its exponent is beyond MAX_EXPONENT. decimal.js holds 1e30000000 in a few bytes, but
 * printing it writes every digit (30 MB): an exponent is refused here, before anything can
 * expand it (a 21-byte request body once made a 60 MB order this way).
 */
export function parseNumberText(text: string): Dec | null {
  const m = NUMBER_TEXT_RE.exec(text);
  if (!m) return null;
  if (m[1] !== undefined && !(Math.abs(Number(m[1])) <= MAX_EXPONENT)) return null;
  return new D(text);
}

/**
 * The most significant digits an amount may have, in a request or a response. A decimal of
 * at most 15 significant digits survives a round trip through an IEEE-754 double (DBL_DIG),
 * which is what JavaScript's JSON.parse, and most JSON libraries, make of a JSON number:
 * every client reads exactly the amount the service wrote (docs/api.md, Amounts).
 */
export const MAX_SIGNIFICANT_DIGITS = 15;

/**
 * Rounds x to a whole number of 10^-places. Places may be negative (10s, 100s, ...), which
 * toDecimalPlaces refuses; those count in units of 10^-places (dividing and multiplying by a
 * power of ten is exact at D's 64 digits). That way is right for every place but about 6x
 * slower, and this runs several times per estimate, so the usual case keeps toDecimalPlaces.
 */
function roundTo(x: Dec, places: number, rounding: Decimal.Rounding): Dec {
  if (places >= 0) return x.toDecimalPlaces(places, rounding);
  const unit = new D(10).pow(-places);
  return x.div(unit).toDecimalPlaces(0, rounding).mul(unit);
}

export const floorTo = (x: Dec, places: number): Dec => roundTo(x, places, D.ROUND_FLOOR);

/** Decimal places an amount of x's size keeps: the currency's, fewer where 15 significant digits end first. */
export function amountPlaces(x: Dec, precision: number): number {
  return x.isZero() ? precision : Math.min(precision, MAX_SIGNIFICANT_DIGITS - 1 - x.e);
}

/** x rounded down to an amount: at most `precision` decimal places and 15 significant digits. */
export const floorAmount = (x: Dec, precision: number): Dec => floorTo(x, amountPlaces(x, precision));
/** x rounded up to an amount (for a minimum: the smallest amount at or above it). */
export const ceilAmount = (x: Dec, precision: number): Dec => roundTo(x, amountPlaces(x, precision), D.ROUND_CEIL);

/**
 * Canonical text of an amount: fixed notation, no trailing zeros ("1.5", "0.00000001", "3").
 * decimal.js keeps no trailing zeros and prints -0 as "0", so toFixed() without places is it.
 */
export const formatAmount = (x: Dec): string => x.toFixed();

/**
 * bpsToPercent's memo. Its bound is the point (an unbounded memo would keep every distinct
 * input), so tests/money/decimal.test.ts reads it: only a fee plus a markup, each an integer
 * below 10,000 bps, is kept, which makes at most 20,000 entries.
 */
export const percentOfBps = new Map<number, string>();

/** "1.75%" from basis points, exact. Remembered per value: every estimate shows one, and fees take few values. */
export function bpsToPercent(bps: number): string {
  let text = percentOfBps.get(bps);
  if (text === undefined) {
    text = `${formatAmount(new D(bps).div(100))}%`;
    if (Number.isInteger(bps) && bps >= 0 && bps < 20_000) percentOfBps.set(bps, text);
  }
  return text;
}
