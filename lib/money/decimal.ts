import Decimal from "decimal.js";

// A private Decimal constructor: high precision for intermediate results, and every
// rounding in the money path is explicit (toDecimalPlaces with a rounding mode).
export const D = Decimal.clone({ precision: 64, rounding: Decimal.ROUND_DOWN, toExpNeg: -40, toExpPos: 40 });
export type Dec = InstanceType<typeof D>;

const DECIMAL_RE = /^(?:0|[1-9]\d{0,29})(?:\.\d+)?$/;

/** Parses a plain decimal string ("12", "0.5"); no exponent, sign, or spaces. Null when invalid. */
export function parseDecimal(input: string): Dec | null {
  if (!DECIMAL_RE.test(input)) return null;
  return new D(input);
}

export const floorTo = (x: Dec, places: number): Dec => x.toDecimalPlaces(places, D.ROUND_DOWN);

/** Canonical text of an amount: fixed notation, no trailing zeros ("1.5", "0.00000001", "3"). */
export function formatAmount(x: Dec): string {
  const s = x.toFixed();
  return s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s;
}

/** "1.75%" from basis points, exact. */
export function bpsToPercent(bps: number): string {
  return `${formatAmount(new D(bps).div(100))}%`;
}
