// Limits: min = ceil(minUsd / price), max = floor(maxUsd / price), at the currency's precision.
// decimal.js only; never floats.
import Decimal from "decimal.js";

/** Default USD floor: high enough for a refund to pay its own network fee. */
export const MIN_USD = "20";
/** Default USD cap per order. */
export const MAX_USD = "50000";

export interface LimitOverride {
  /** USD floor/cap for this currency instead of MIN_USD/MAX_USD. */
  minUsd?: string;
  maxUsd?: string;
  /** Absolute amounts (decimal strings) that replace the derived ones. */
  minAmount?: string;
  maxAmount?: string;
}

const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN });

export function defaultPrecision(decimals: number): number {
  return Math.min(decimals, 8);
}

export function computeLimits(
  priceUsd: string,
  precision: number,
  override: LimitOverride | null | undefined,
): { minAmount: string; maxAmount: string } {
  const price = new D(priceUsd);
  if (!price.isFinite() || price.lte(0)) throw new Error(`invalid price ${priceUsd}`);
  const minUsd = new D(override?.minUsd ?? MIN_USD);
  const maxUsd = new D(override?.maxUsd ?? MAX_USD);
  const min = override?.minAmount ? new D(override.minAmount) : minUsd.div(price).toDecimalPlaces(precision, Decimal.ROUND_CEIL);
  const max = override?.maxAmount ? new D(override.maxAmount) : maxUsd.div(price).toDecimalPlaces(precision, Decimal.ROUND_FLOOR);
  if (min.decimalPlaces() > precision || max.decimalPlaces() > precision) {
    throw new Error(`override has more decimal places than precision ${precision}`);
  }
  return { minAmount: min.toFixed(precision), maxAmount: max.toFixed(precision) };
}
