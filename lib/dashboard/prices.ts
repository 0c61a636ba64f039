import "server-only";
import { currencyInfo } from "@/lib/currencies/info";
import { getPrices, type Price } from "@/lib/prices/prices";
import type { CurrencyInfo } from "./types";

// Every USD figure of the dashboard is at a live price (lib/prices) and says where and when
// that price came from: the read models take their currencies from here.

/** The reseller's scope: the sandbox's market moves are per caller, so their prices move with them. */
export const priceScope = (resellerId: string) => `reseller:${resellerId}`;

/** Display facts plus the live USD price (null fields without one). */
function withPrice(ticker: string, price: Price | null): CurrencyInfo {
  const info = currencyInfo(ticker);
  return price ? { ...info, priceUsd: price.rate, priceDate: price.at.toISOString(), priceSource: price.source } : info;
}

/** The tickers, sorted and unique, each with its live USD price. */
export async function pricedCurrencies(tickers: string[], resellerId: string): Promise<CurrencyInfo[]> {
  const unique = [...new Set(tickers)].sort();
  const prices = await getPrices().usdPrices(unique, { scope: priceScope(resellerId) });
  return unique.map((t) => withPrice(t, prices.get(t) ?? null));
}
