import { D, type Dec } from "@/lib/money/decimal";

const BPS = 10_000;

/**
 * Market rate (from price / to price) less the platform fee: what the user gets per unit
 * before the reseller's markup. Kept to 32 significant digits, rounded down: an order stores
 * it to re-price a deposit of a different amount.
 */
export function rateAfterFee(fromPriceUsd: Dec, toPriceUsd: Dec, platformFeeBps: number): Dec {
  return fromPriceUsd
    .div(toPriceUsd)
    .mul(new D(BPS - platformFeeBps).div(BPS))
    .toSignificantDigits(32, D.ROUND_DOWN);
}
