import "server-only";
import { getCurrency } from "./index";
import type { CurrencyInfo } from "./types";

const cache = new Map<string, CurrencyInfo>();

/**
 * Display facts of a ticker; a ticker the registry no longer lists still renders. The price
 * fields are empty here: prices are live (lib/prices), never the registry's dated snapshot.
 */
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
    ? { ticker, symbol: c.symbol, name: c.name, precision: c.precision, priceUsd: null, priceDate: null, priceSource: null }
    : {
        ticker,
        symbol: ticker.toUpperCase(),
        name: ticker.toUpperCase(),
        precision: 8,
        priceUsd: null,
        priceDate: null,
        priceSource: null,
      };
  cache.set(ticker, info);
  return info;
}
