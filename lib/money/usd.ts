import { D, type Dec } from "./decimal";

// The one USD rule of the dashboard (live prices for display, never money that moves): a USD value
// is the exact product of an amount and its price, kept to 8 places, half up; sums are of
// those values; display shows whole cents, half up. Shared by the read models (lib/dashboard)
// and the browser (components/format.ts), so both sides agree to the cent.

export const USD_PLACES = 8;

/** The USD value of an amount at a price (lib/prices; null without a price). */
export function usdValue(amount: string | Dec, priceUsd: string | null): Dec | null {
  if (priceUsd === null) return null;
  return new D(amount).mul(priceUsd).toDecimalPlaces(USD_PLACES, D.ROUND_HALF_UP);
}

/** A USD value in whole cents, half up, as decimal text with two places ("1234.57"). */
export const usdCents = (usd: string | Dec): string => new D(usd).toDecimalPlaces(2, D.ROUND_HALF_UP).toFixed(2);
