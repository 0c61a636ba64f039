// The contract between the currency registry and the rest of the service layer.
// Everything else (quotes, orders, the engine, the HTTP API) only uses what is exported
// from lib/currencies/index.ts with these types.

export interface Currency {
  /** Lower-case unique ticker used by the API, e.g. "btc", "usdttrc20". */
  ticker: string;
  /** Display symbol, e.g. "USDT"; prices are keyed by symbol. */
  symbol: string;
  name: string;
  /** Network identifier, e.g. "bitcoin", "ethereum", "tron". */
  network: string;
  kind: "native" | "token";
  /** On-chain decimals of the asset. */
  decimals: number;
  /** Decimal places used for amounts in quotes and orders (<= decimals). */
  precision: number;
  hasExtraId: boolean;
  /** Label of the extra ID ("Destination tag", "Memo", ...), null when hasExtraId is false. */
  extraIdName: string | null;
  isAvailable: boolean;
  /** Address family key, e.g. "utxo:btc", "evm", "cashaddr:bch", "ss58:0". */
  family: string;
  /** "checksum" when a wrong character is caught by a checksum, "format" when the format has none. */
  validationLevel: "checksum" | "checksum-if-mixed-case" | "format";
  /** Reference USD price as an exact decimal string, and the date it was observed (YYYY-MM-DD). */
  priceUsd: string;
  priceDate: string;
  /** Limits for amounts of this currency, decimal strings at `precision`. */
  minAmount: string;
  maxAmount: string;
}

export interface GeneratedAddress {
  address: string;
  /** An extra ID the deposit needs (for hasExtraId currencies), else null. */
  extraId: string | null;
}

/**
 * A currency's display facts (lib/currencies/info.ts) and its live USD price, as the dashboard
 * shows them (filled by lib/dashboard/prices.ts from lib/prices; null when there is none).
 */
export interface CurrencyInfo {
  ticker: string;
  symbol: string;
  name: string;
  precision: number;
  /** Live USD price as a decimal string; null without one. */
  priceUsd: string | null;
  /** When that price was true (ISO time). */
  priceDate: string | null;
  /** Where it came from ("simulated engine ...", "providers: best quote for ..."). */
  priceSource: string | null;
}
