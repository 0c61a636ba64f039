// What the hosted pages say about a refusal, the same with JavaScript on and off: the server
// action (./actions.ts) and the live estimate and address checks (./queries.ts) both turn the
// API's error code into a message key of lib/i18n/messages (namespace "errors") with its
// values, and the field it belongs beside. The v1 API's own texts and codes stay as they are;
// these name currencies by name, symbol and network, never by ticker. Pure: client and server.

export type FieldName = "from" | "to" | "amount" | "address" | "extraId" | "refundAddress" | "form";

/** A message of the "errors" namespace and its values. */
export interface PageMessage {
  key: string;
  values?: Record<string, string>;
}

export type FieldErrors = Partial<Record<FieldName, PageMessage>>;

/** The part of a currency the messages name. */
export interface Named {
  symbol: string;
  name: string;
  network: string;
  extraIdName?: string | null;
}

const NETWORK_NAMES: Record<string, string> = {
  bsc: "BNB Smart Chain",
  avaxc: "Avalanche C-Chain",
  bitcoincash: "Bitcoin Cash",
  ethereumclassic: "Ethereum Classic",
  bnbbeacon: "BNB Beacon Chain",
  cryptoorg: "Cronos POS",
};

/** A network as people write it: "tron" is Tron, "bsc" BNB Smart Chain. */
export const networkName = (network: string) => NETWORK_NAMES[network] ?? (network ? network[0].toUpperCase() + network.slice(1) : network);

/** "Bitcoin (BTC)", or with the network when it is not the coin's own: "Tether (USDT, Tron)". */
export function currencyLabel(c: Named | undefined, fallback: string): string {
  if (!c) return fallback.toUpperCase();
  const own = c.network.replace(/\W/g, "").toLowerCase() === c.name.replace(/\W/g, "").toLowerCase();
  return own ? `${c.name} (${c.symbol})` : `${c.name} (${c.symbol}, ${networkName(c.network)})`;
}

/**
 * The field and message for an error code of the hosted API (or of lib/hosted, which throws
 * the same), with `details` as the API gives them (AMOUNT_TOO_LOW's minAmount...).
 */
export function pageError(
  code: string,
  details: Record<string, unknown> | undefined,
  pair: { from?: Named; to?: Named; fromTicker: string; toTicker: string },
): { field: FieldName; message: PageMessage } {
  const from = currencyLabel(pair.from, pair.fromTicker);
  const to = currencyLabel(pair.to, pair.toTicker);
  const symbol = pair.from?.symbol ?? pair.fromTicker.toUpperCase();
  const d = details ?? {};
  switch (code) {
    case "AMOUNT_TOO_LOW":
      return { field: "amount", message: { key: "amountTooLow", values: { from, to, min: String(d.minAmount ?? ""), symbol } } };
    case "AMOUNT_TOO_HIGH":
      return { field: "amount", message: { key: "amountTooHigh", values: { from, to, max: String(d.maxAmount ?? ""), symbol } } };
    case "INVALID_AMOUNT":
      return { field: "amount", message: { key: "invalidAmount" } };
    case "UNKNOWN_CURRENCY":
    case "CURRENCY_UNAVAILABLE":
      return { field: d.field === "to" ? "to" : "from", message: { key: "unknownCurrency" } };
    case "SAME_CURRENCY":
      return { field: "to", message: { key: "sameCurrency" } };
    case "PAIR_UNAVAILABLE":
    case "PAYOUT_CHAIN_UNAVAILABLE":
    case "PRICE_UNAVAILABLE":
      return { field: "to", message: { key: "pairUnavailable", values: { from, to } } };
    case "INVALID_ADDRESS":
      return { field: "address", message: { key: "invalidAddress", values: { currency: to } } };
    case "INVALID_EXTRA_ID":
      return {
        field: "extraId",
        message: { key: "invalidExtraId", values: { name: pair.to?.extraIdName ?? "Extra ID", currency: to } },
      };
    case "INVALID_REFUND_ADDRESS":
    case "INVALID_REFUND_EXTRA_ID":
      return { field: "refundAddress", message: { key: "invalidRefundAddress", values: { currency: from } } };
    case "RATE_LIMITED":
      return { field: "form", message: { key: "rateLimited" } };
    case "DAILY_LIMIT_EXCEEDED":
      return { field: "form", message: { key: "dailyLimit" } };
    case "INVALID_REQUEST":
      if (d.field === "rateType") return { field: "amount", message: { key: "receiveNeedsFixed" } };
      return { field: "amount", message: { key: "invalidAmount" } };
    case "ENGINE_UNAVAILABLE":
      return { field: "form", message: { key: "unavailable" } };
    case "RESELLER_SUSPENDED":
      return { field: "form", message: { key: "serviceUnavailable" } };
    default:
      return { field: "form", message: { key: "orderFailed" } };
  }
}

/** Whether text is an amount the page may ask about (digits, one dot). */
export const AMOUNT_RE = /^\d{1,30}(?:\.\d{0,30})?$/;
