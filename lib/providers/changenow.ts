import "server-only";
import { z } from "zod";
import { type Dec, formatAmount } from "@/lib/money/decimal";
import { bool, int } from "@/lib/settings";
import { checkRange, created, dateOrNull, mapStatus, quoteIdOf } from "./helpers";
import { call, dec, decOrNull, type Endpoint, messageOf, obj, ProviderError, type ProviderErrorKind, str } from "./http";
import mapping from "./mappings/changenow.json";
import {
  type CreatedSwap,
  type CreateInput,
  defineProvider,
  type MappedStatus,
  type ProviderAdapter,
  type ProviderAsset,
  type ProviderQuote,
  type QuoteInput,
  type SwapReading,
  type SwapRef,
  type UpstreamCurrency,
} from "./types";

// ChangeNOW API v2 (reference section 1). Auth: x-changenow-api-key on every call. Assets are
// ticker + network. Commission is per account. Orders use the fixed-rate flow with a rateId,
// so the amount shown is the amount ChangeNOW commits to.

const STATUSES: Record<string, MappedStatus> = {
  new: { state: "waiting", reason: null, final: false },
  waiting: { state: "waiting", reason: null, final: false },
  confirming: { state: "confirming", reason: null, final: false },
  exchanging: { state: "exchanging", reason: null, final: false },
  sending: { state: "sending", reason: null, final: false },
  finished: { state: "finished", reason: null, final: true },
  failed: { state: "failed", reason: "provider_failed", final: true },
  refunded: { state: "failed", reason: "refunded", final: true },
  verifying: { state: "exchanging", reason: "hold", final: false },
  expired: { state: "failed", reason: "expired", final: true },
};

const assetKey = (a: ProviderAsset): string => `${a.ticker}@${a.network}`;

/** ChangeNOW's error codes (`error` member) -> what they mean for us. */
function errorKind(code: string, message: string, httpStatus: number): ProviderErrorKind {
  switch (code) {
    case "out_of_range":
      return /max/i.test(message) ? "amount_too_high" : "amount_too_low";
    case "deposit_too_small":
      return "amount_too_low";
    case "pair_is_inactive":
    case "not_available":
    case "fixed_rate_not_enabled":
      return "pair_unavailable";
    case "not_valid_address":
      return /refund/i.test(message) ? "invalid_refund_address" : /extra/i.test(message) ? "invalid_extra_id" : "invalid_address";
    case "not_found":
      return "not_found";
    case "forbidden":
    case "invalid_api_key":
      return "unavailable";
    case "not_valid_params":
    case "bad_params":
      if (/refund/i.test(message) && /address/i.test(message)) return "invalid_refund_address";
      if (/extra ?id/i.test(message)) return "invalid_extra_id";
      if (/address/i.test(message)) return "invalid_address";
      if (/not supported|inactive/i.test(message)) return "pair_unavailable";
      return "rejected";
    default:
      if (httpStatus === 401 || httpStatus === 403) return "unavailable";
      if (httpStatus === 404) return "not_found";
      return "rejected";
  }
}

export class ChangeNowAdapter implements ProviderAdapter {
  readonly name = "changenow" as const;
  readonly commission;
  readonly quotesPerMinute: number;

  constructor(private readonly opts: Endpoint & { apiKey: string; accountCommissionBps: number; quotesPerMinute: number }) {
    this.commission = { kind: "per-account" as const, accountBps: opts.accountCommissionBps };
    this.quotesPerMinute = opts.quotesPerMinute;
  }

  assetKey(a: ProviderAsset): string {
    return assetKey(a);
  }

  private call(
    method: "GET" | "POST",
    path: string,
    query: Record<string, string> | null,
    body?: Record<string, unknown>,
    signal?: AbortSignal,
  ) {
    const headers = { "x-changenow-api-key": this.opts.apiKey };
    return call(this.name, this.opts, { method, path, query, headers, body, signal }, (r) => {
      const code = str(obj(r.body).error) ?? "";
      const message = messageOf(r.body) || `HTTP ${r.status}`;
      const kind = errorKind(code, message, r.status);
      // "Amount is less then minimal: 0.0223925 XMR": the minimum is in the text.
      const limit = decOrNull(message.match(/(\d+(?:\.\d+)?)/)?.[1]);
      return new ProviderError(this.name, kind, `${path}: ${code || r.status} ${message}`, {
        min: kind === "amount_too_low" ? limit : null,
        max: kind === "amount_too_high" ? limit : null,
      });
    });
  }

  async listCurrencies(signal?: AbortSignal): Promise<UpstreamCurrency[]> {
    const body = await this.call("GET", "/exchange/currencies", { active: "true", flow: "fixed-rate" }, undefined, signal);
    if (!Array.isArray(body)) throw new ProviderError(this.name, "unavailable", "currencies: not a list");
    return body.flatMap((c) => {
      const o = obj(c);
      const ticker = str(o.ticker);
      const network = str(o.network);
      if (!ticker || !network || o.isFiat === true) return [];
      return [
        {
          asset: { ticker: ticker.toLowerCase(), network: network.toLowerCase() },
          available: o.buy !== false && o.sell !== false && o.supportsFixedRate !== false,
          hasMemo: o.hasExternalId === true || o.isExtraIdSupported === true,
        },
      ];
    });
  }

  private pairQuery(from: ProviderAsset, to: ProviderAsset) {
    return { fromCurrency: from.ticker, toCurrency: to.ticker, fromNetwork: from.network, toNetwork: to.network, flow: "fixed-rate" };
  }

  async quote(q: QuoteInput, signal?: AbortSignal): Promise<ProviderQuote> {
    const range = obj(await this.call("GET", "/exchange/range", this.pairQuery(q.from, q.to), undefined, signal));
    const min = dec(this.name, range.minAmount, "minAmount");
    const max = decOrNull(range.maxAmount);
    checkRange(this.name, q.fromAmount, min, max);
    const est = obj(
      await this.call(
        "GET",
        "/exchange/estimated-amount",
        { ...this.pairQuery(q.from, q.to), fromAmount: formatAmount(q.fromAmount), type: "direct", useRateId: String(q.firm) },
        undefined,
        signal,
      ),
    );
    return {
      toAmount: dec(this.name, est.toAmount, "toAmount"),
      minAmount: min,
      maxAmount: max,
      quoteId: str(est.rateId),
      expiresAt: dateOrNull(str(est.validUntil)),
    };
  }

  async createSwap(input: CreateInput, signal?: AbortSignal): Promise<CreatedSwap> {
    const rateId = quoteIdOf(this.name, input.quote, "a fixed-rate exchange needs a rateId");
    const body = {
      fromCurrency: input.from.ticker,
      fromNetwork: input.from.network,
      toCurrency: input.to.ticker,
      toNetwork: input.to.network,
      fromAmount: formatAmount(input.fromAmount),
      toAmount: "",
      address: input.payoutAddress,
      extraId: input.payoutExtraId ?? "",
      refundAddress: input.refundAddress ?? "",
      refundExtraId: input.refundExtraId ?? "",
      flow: "fixed-rate",
      type: "direct",
      rateId,
    };
    const r = obj(await this.call("POST", "/exchange", null, body, signal));
    const { id, payinAddress } = created(this.name, "exchange", { id: str(r.id), payinAddress: str(r.payinAddress) });
    return {
      id,
      data: null,
      payinAddress,
      payinExtraId: str(r.payinExtraId),
      toAmount: decOrNull(r.toAmount),
      expiresAt: dateOrNull(str(r.validUntil)) ?? input.quote.expiresAt ?? null,
    };
  }

  async readSwap(ref: SwapRef, signal?: AbortSignal): Promise<SwapReading> {
    const r = obj(await this.call("GET", "/exchange/by-id", { id: ref.id }, undefined, signal));
    const status = str(r.status) ?? "";
    const amountFrom: Dec | null = decOrNull(r.amountFrom);
    return {
      status,
      mapped: mapStatus(STATUSES, status),
      payinHash: str(r.payinHash),
      payoutHash: str(r.payoutHash),
      refundHash: str(r.refundHash),
      amountReceived: amountFrom,
      refundAmount: decOrNull(r.refundAmount),
    };
  }
}

export const changenow = defineProvider({
  name: "changenow",
  label: "ChangeNOW",
  settings: {
    CHANGENOW_ENABLED: bool.default(false).describe("route new orders to ChangeNOW"),
    CHANGENOW_API_KEY: z.string().optional().describe("ChangeNOW partner API key (secret)"),
    CHANGENOW_API_URL: z.string().url().default("https://api.changenow.io/v2").describe("ChangeNOW v2 base URL"),
    CHANGENOW_ACCOUNT_COMMISSION_BPS: int(0, 0).describe(
      "the partner share set on the ChangeNOW account; an order goes there only when it covers platform fee + markup; enabled with a share below `PLATFORM_FEE_BPS` (the default 0 included), the server refuses to start",
    ),
    CHANGENOW_QUOTES_PER_MINUTE: int(1500, 1).describe("client-side budget of ChangeNOW quotes per minute (its limit is 1,800)"),
  },
  enabledBy: "CHANGENOW_ENABLED",
  credentials: ["CHANGENOW_API_KEY"],
  statuses: STATUSES,
  mapping,
  assetKey,
  baseUrl: (s) => s.CHANGENOW_API_URL,
  commissionCap: (s) => ({
    capBps: s.CHANGENOW_ACCOUNT_COMMISSION_BPS,
    setting: "CHANGENOW_ACCOUNT_COMMISSION_BPS",
    states: "share set on your ChangeNOW partner account",
  }),
  create: (s, http) =>
    s.CHANGENOW_API_KEY
      ? new ChangeNowAdapter({
          baseUrl: s.CHANGENOW_API_URL,
          apiKey: s.CHANGENOW_API_KEY,
          accountCommissionBps: s.CHANGENOW_ACCOUNT_COMMISSION_BPS,
          quotesPerMinute: s.CHANGENOW_QUOTES_PER_MINUTE,
          timeoutMs: http.timeoutMs,
        })
      : null,
});
