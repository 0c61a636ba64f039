import "server-only";
import { formatAmount } from "@/lib/money/decimal";
import { dec, decOrNull, httpJson, jsonBody, messageOf, obj, ProviderError, type ProviderErrorKind, str } from "./http";
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

// SimpleSwap API v3 (reference section 5). Auth: x-api-key. Every success is wrapped as
// {result: ...}. Assets are ticker + network, lower case. Commission is set per API key on the
// affiliate account (0.4% to 2%), so the operator states it. Orders are fixed-rate exchanges
// made from an estimate's rateId. The exchange object's names mix snake_case and camelCase and
// are copied exactly. `customFee` is not sent: its meaning is not documented.

export const SIMPLESWAP_STATUSES: Record<string, MappedStatus> = {
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

/** HTTP statuses of the errors page (and Edge's 422) -> what they mean for us; the body's shape is not documented. */
function errorKind(message: string, httpStatus: number): ProviderErrorKind {
  if (httpStatus === 401) return "unavailable";
  if (/refund/i.test(message) && /address/i.test(message)) return "invalid_refund_address";
  if (/extra ?id/i.test(message)) return "invalid_extra_id";
  if (/address/i.test(message)) return "invalid_address";
  if (/min(imal|imum)?\b|too (low|small)|less than/i.test(message)) return "amount_too_low";
  if (/max(imal|imum)?\b|too (high|big)|greater than/i.test(message)) return "amount_too_high";
  if (httpStatus === 422 || /pair|not available|not supported/i.test(message)) return "pair_unavailable";
  if (httpStatus === 404) return "not_found";
  return "rejected";
}

export class SimpleSwapAdapter implements ProviderAdapter {
  readonly name = "simpleswap" as const;
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

  private async call(
    method: "GET" | "POST",
    path: string,
    query: Record<string, string> | null,
    body?: Record<string, unknown>,
    signal?: AbortSignal,
  ) {
    const url = new URL(this.opts.baseUrl.replace(/\/$/, "") + path);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { "x-api-key": this.opts.apiKey };
    if (method === "POST") headers["content-type"] = "application/json";
    const r = await httpJson(this.name, {
      method,
      url: url.toString(),
      headers,
      body: body ? jsonBody(body) : undefined,
      timeoutMs: this.opts.timeoutMs,
      signal,
    });
    if (r.status >= 200 && r.status < 300) {
      const b = obj(r.body);
      if (!("result" in b)) throw new ProviderError(this.name, "unavailable", `${path}: answer without result`);
      return b.result;
    }
    const message = messageOf(r.body) || `HTTP ${r.status}`;
    throw new ProviderError(this.name, errorKind(message, r.status), `${path}: ${r.status} ${message}`);
  }

  async listCurrencies(signal?: AbortSignal): Promise<UpstreamCurrency[]> {
    const list = await this.call("GET", "/currencies", null, undefined, signal);
    if (!Array.isArray(list)) throw new ProviderError(this.name, "unavailable", "currencies: not a list");
    return list.flatMap((c) => {
      const o = obj(c);
      const ticker = str(o.ticker);
      const network = str(o.network);
      if (!ticker || !network) return [];
      return [{ asset: { ticker: ticker.toLowerCase(), network: network.toLowerCase() }, available: true, hasMemo: o.hasExtraId === true }];
    });
  }

  private pairQuery(from: ProviderAsset, to: ProviderAsset) {
    return {
      tickerFrom: from.ticker,
      networkFrom: from.network,
      tickerTo: to.ticker,
      networkTo: to.network,
      fixed: "true",
      reverse: "false",
    };
  }

  async quote(q: QuoteInput, signal?: AbortSignal): Promise<ProviderQuote> {
    const range = obj(await this.call("GET", "/ranges", this.pairQuery(q.from, q.to), undefined, signal));
    const min = dec(this.name, range.min, "min");
    const max = decOrNull(range.max);
    if (q.fromAmount.lt(min)) throw new ProviderError(this.name, "amount_too_low", "below the pair's minimum", { min, max });
    if (max && q.fromAmount.gt(max)) throw new ProviderError(this.name, "amount_too_high", "above the pair's maximum", { min, max });
    const est = obj(
      await this.call("GET", "/estimates", { ...this.pairQuery(q.from, q.to), amount: formatAmount(q.fromAmount) }, undefined, signal),
    );
    const validUntil = str(est.validUntil);
    return {
      toAmount: dec(this.name, est.estimatedAmount, "estimatedAmount"),
      minAmount: min,
      maxAmount: max,
      quoteId: str(est.rateId),
      expiresAt: validUntil ? new Date(validUntil) : null,
    };
  }

  async createSwap(input: CreateInput, signal?: AbortSignal): Promise<CreatedSwap> {
    if (!input.quote.quoteId) throw new ProviderError(this.name, "rejected", "a fixed exchange needs a rateId");
    const body: Record<string, unknown> = {
      tickerFrom: input.from.ticker,
      networkFrom: input.from.network,
      tickerTo: input.to.ticker,
      networkTo: input.to.network,
      amount: formatAmount(input.fromAmount),
      fixed: true,
      reverse: false,
      addressTo: input.payoutAddress,
      extraIdTo: input.payoutExtraId ?? "",
      userRefundAddress: input.refundAddress ?? "",
      userRefundExtraId: input.refundExtraId ?? "",
      rateId: input.quote.quoteId,
    };
    const r = obj(await this.call("POST", "/exchanges", null, body, signal));
    const id = str(r.id);
    const payinAddress = str(r.addressFrom);
    if (!id || !payinAddress) throw new ProviderError(this.name, "unavailable", "exchange created without id or addressFrom");
    const validUntil = str(r.valid_until);
    return {
      id,
      data: null,
      payinAddress,
      payinExtraId: str(r.extraIdFrom),
      toAmount: decOrNull(r.amountTo) ?? decOrNull(r.expected_amount),
      expiresAt: validUntil ? new Date(validUntil) : (input.quote.expiresAt ?? null),
    };
  }

  async readSwap(ref: SwapRef, signal?: AbortSignal): Promise<SwapReading> {
    const r = obj(await this.call("GET", `/exchanges/${encodeURIComponent(ref.id)}`, null, undefined, signal));
    const status = str(r.status) ?? "";
    const mapped = Object.hasOwn(SIMPLESWAP_STATUSES, status) ? SIMPLESWAP_STATUSES[status] : UNKNOWN;
    const txFrom = str(r.txFrom);
    const refunded = status === "refunded";
    return {
      status,
      mapped,
      payinHash: txFrom,
      payoutHash: refunded ? null : str(r.txTo),
      // Where a refund's hash is given is not documented: txTo, when refunded.
      refundHash: refunded ? str(r.txTo) : null,
      // amountFrom is the amount asked for: received only once the deposit's hash exists.
      amountReceived: txFrom ? decOrNull(r.amountFrom) : null,
      refundAmount: refunded ? decOrNull(r.amountFrom) : null,
    };
  }
}
