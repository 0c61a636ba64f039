import "server-only";
import { type Dec, formatAmount } from "@/lib/money/decimal";
import { dec, decOrNull, httpJson, messageOf, obj, ProviderError, type ProviderErrorKind, str } from "./http";
import type {
  CreatedSwap,
  CreateInput,
  MappedStatus,
  ProviderAdapter,
  ProviderAsset,
  ProviderQuote,
  QuoteInput,
  SwapReading,
  SwapRef,
  UpstreamCurrency,
} from "./types";

// ChangeNOW API v2 (reference section 1). Auth: x-changenow-api-key on every call. Assets are
// ticker + network. Commission is per account. Orders use the fixed-rate flow with a rateId,
// so the amount shown is the amount ChangeNOW commits to.

export const CHANGENOW_STATUSES: Record<string, MappedStatus> = {
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

const UNKNOWN: MappedStatus = { state: "exchanging", reason: "unknown", final: false };

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

  constructor(
    private readonly opts: { baseUrl: string; apiKey: string; accountCommissionBps: number; quotesPerMinute: number; timeoutMs: number },
  ) {
    this.commission = { kind: "per-account" as const, accountBps: opts.accountCommissionBps };
    this.quotesPerMinute = opts.quotesPerMinute;
  }

  assetKey(a: ProviderAsset): string {
    return `${a.ticker}@${a.network}`;
  }

  private async call(method: "GET" | "POST", path: string, query: Record<string, string> | null, body: unknown, signal?: AbortSignal) {
    const url = new URL(this.opts.baseUrl.replace(/\/$/, "") + path);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { "x-changenow-api-key": this.opts.apiKey };
    if (method === "POST") headers["content-type"] = "application/json";
    const r = await httpJson(this.name, {
      method,
      url: url.toString(),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: this.opts.timeoutMs,
      signal,
    });
    if (r.status >= 200 && r.status < 300) return r.body;
    const b = obj(r.body);
    const code = str(b.error) ?? "";
    const message = messageOf(r.body) || `HTTP ${r.status}`;
    const kind = errorKind(code, message, r.status);
    // "Amount is less then minimal: 0.0223925 XMR": the minimum is in the text.
    const limit = decOrNull(message.match(/(\d+(?:\.\d+)?)/)?.[1]);
    throw new ProviderError(this.name, kind, `${path}: ${code || r.status} ${message}`, {
      min: kind === "amount_too_low" ? limit : null,
      max: kind === "amount_too_high" ? limit : null,
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
    if (q.fromAmount.lt(min)) throw new ProviderError(this.name, "amount_too_low", "below the pair's minimum", { min, max });
    if (max && q.fromAmount.gt(max)) throw new ProviderError(this.name, "amount_too_high", "above the pair's maximum", { min, max });
    const est = obj(
      await this.call(
        "GET",
        "/exchange/estimated-amount",
        { ...this.pairQuery(q.from, q.to), fromAmount: formatAmount(q.fromAmount), type: "direct", useRateId: String(q.firm) },
        undefined,
        signal,
      ),
    );
    const validUntil = str(est.validUntil);
    return {
      toAmount: dec(this.name, est.toAmount, "toAmount"),
      minAmount: min,
      maxAmount: max,
      quoteId: str(est.rateId),
      expiresAt: validUntil ? new Date(validUntil) : null,
    };
  }

  async createSwap(input: CreateInput, signal?: AbortSignal): Promise<CreatedSwap> {
    if (!input.quote.quoteId) throw new ProviderError(this.name, "rejected", "a fixed-rate exchange needs a rateId");
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
      rateId: input.quote.quoteId,
    };
    const r = obj(await this.call("POST", "/exchange", null, body, signal));
    const id = str(r.id);
    const payinAddress = str(r.payinAddress);
    if (!id || !payinAddress) throw new ProviderError(this.name, "unavailable", "exchange created without id or payinAddress");
    const validUntil = str(r.validUntil);
    return {
      id,
      data: null,
      payinAddress,
      payinExtraId: str(r.payinExtraId),
      toAmount: decOrNull(r.toAmount),
      expiresAt: validUntil ? new Date(validUntil) : (input.quote.expiresAt ?? null),
    };
  }

  async readSwap(ref: SwapRef, signal?: AbortSignal): Promise<SwapReading> {
    const r = obj(await this.call("GET", "/exchange/by-id", { id: ref.id }, undefined, signal));
    const status = str(r.status) ?? "";
    const amountFrom: Dec | null = decOrNull(r.amountFrom);
    return {
      status,
      mapped: Object.hasOwn(CHANGENOW_STATUSES, status) ? CHANGENOW_STATUSES[status] : UNKNOWN,
      payinHash: str(r.payinHash),
      payoutHash: str(r.payoutHash),
      refundHash: str(r.refundHash),
      amountReceived: amountFrom,
      refundAmount: decOrNull(r.refundAmount),
    };
  }
}
