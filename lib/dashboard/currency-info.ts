import "server-only";
import { getCurrency } from "@/lib/currencies";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import type { CurrencyInfo } from "./types";

const cache = new Map<string, CurrencyInfo>();

/** Display facts and reference price of a ticker; a ticker the registry no longer lists still renders. */
export function currencyInfo(ticker: string): CurrencyInfo {
  const hit = cache.get(ticker);
  if (hit) return hit;
  let c: ReturnType<typeof getCurrency> | undefined;
  try {
    c = getCurrency(ticker);
  } catch {
    c = undefined;
  }
  const info: CurrencyInfo = c
    ? { ticker, symbol: c.symbol, name: c.name, precision: c.precision, priceUsd: c.priceUsd ?? null, priceDate: c.priceDate ?? null }
    : { ticker, symbol: ticker.toUpperCase(), name: ticker.toUpperCase(), precision: 8, priceUsd: null, priceDate: null };
  cache.set(ticker, info);
  return info;
}

/** USD value kept to 8 places (exact decimal arithmetic; display rounds further). */
export const USD_PLACES = 8;

export function toUsd(amount: string | Dec, priceUsd: string | null): Dec | null {
  if (priceUsd === null) return null;
  return new D(amount).mul(priceUsd).toDecimalPlaces(USD_PLACES, D.ROUND_HALF_UP);
}

export const fmt = (x: Dec) => formatAmount(x);
