import "server-only";
import { z } from "zod";
import { formatAmount } from "@/lib/money/decimal";
import { bool, int } from "@/lib/settings";
import { checkRange, created, dateOrNull, mapStatus, quoteIdOf } from "./helpers";
import { call, dec, decOrNull, type Endpoint, messageOf, obj, ProviderError, type ProviderErrorKind, str } from "./http";
import mapping from "./mappings/simpleswap.json";
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

// SimpleSwap API v3 (reference section 5). Auth: x-api-key. Every success is wrapped as
// {result: ...}. Assets are ticker + network, lower case. Commission is set per API key on the
// affiliate account (0.4% to 2%), so the operator states it. Orders are fixed-rate exchanges
// made from an estimate's rateId. The exchange object's names mix snake_case and camelCase and
// are copied exactly. `customFee` is not sent: its meaning is not documented.

const STATUSES: Record<string, MappedStatus> = {
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

  constructor(private readonly opts: Endpoint & { apiKey: string; accountCommissionBps: number; quotesPerMinute: number }) {
    this.commission = { kind: "per-account" as const, accountBps: opts.accountCommissionBps };
    this.quotesPerMinute = opts.quotesPerMinute;
  }

  assetKey(a: ProviderAsset): string {
    return assetKey(a);
  }

  private async call(
    method: "GET" | "POST",
    path: string,
    query: Record<string, string> | null,
    body?: Record<string, unknown>,
    signal?: AbortSignal,
  ) {
    const headers = { "x-api-key": this.opts.apiKey };
    const b = obj(
      await call(this.name, this.opts, { method, path, query, headers, body, signal }, (r) => {
        const message = messageOf(r.body) || `HTTP ${r.status}`;
        return new ProviderError(this.name, errorKind(message, r.status), `${path}: ${r.status} ${message}`);
      }),
    );
    if (!("result" in b)) throw new ProviderError(this.name, "unavailable", `${path}: answer without result`);
    return b.result;
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
    checkRange(this.name, q.fromAmount, min, max);
    const est = obj(
      await this.call("GET", "/estimates", { ...this.pairQuery(q.from, q.to), amount: formatAmount(q.fromAmount) }, undefined, signal),
    );
    return {
      toAmount: dec(this.name, est.estimatedAmount, "estimatedAmount"),
      minAmount: min,
      maxAmount: max,
      quoteId: str(est.rateId),
      expiresAt: dateOrNull(str(est.validUntil)),
    };
  }

  async createSwap(input: CreateInput, signal?: AbortSignal): Promise<CreatedSwap> {
    const rateId = quoteIdOf(this.name, input.quote, "a fixed exchange needs a rateId");
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
      rateId,
    };
    const r = obj(await this.call("POST", "/exchanges", null, body, signal));
    const { id, addressFrom } = created(this.name, "exchange", { id: str(r.id), addressFrom: str(r.addressFrom) });
    return {
      id,
      data: null,
      payinAddress: addressFrom,
      payinExtraId: str(r.extraIdFrom),
      toAmount: decOrNull(r.amountTo) ?? decOrNull(r.expected_amount),
      expiresAt: dateOrNull(str(r.valid_until)) ?? input.quote.expiresAt ?? null,
    };
  }

  async readSwap(ref: SwapRef, signal?: AbortSignal): Promise<SwapReading> {
    const r = obj(await this.call("GET", `/exchanges/${encodeURIComponent(ref.id)}`, null, undefined, signal));
    const status = str(r.status) ?? "";
    const mapped = mapStatus(STATUSES, status);
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

export const simpleswap = defineProvider({
  name: "simpleswap",
  label: "SimpleSwap",
  settings: {
    SIMPLESWAP_ENABLED: bool.default(false).describe("route new orders to SimpleSwap"),
    SIMPLESWAP_API_KEY: z.string().optional().describe("SimpleSwap API key (`x-api-key`)"),
    SIMPLESWAP_API_URL: z.string().url().default("https://api.simpleswap.io/v3").describe("SimpleSwap base URL (v3)"),
    SIMPLESWAP_ACCOUNT_COMMISSION_BPS: int(0, 0).describe(
      "the reward set on the SimpleSwap key (SimpleSwap allows 40 to 200); an order goes there only when it covers platform fee + markup; enabled with a value outside 40 to 200 or below `PLATFORM_FEE_BPS`, the server refuses to start",
    ),
    SIMPLESWAP_QUOTES_PER_MINUTE: int(300, 1).describe(
      "client-side budget of SimpleSwap quotes per minute (SimpleSwap documents no limit)",
    ),
  },
  enabledBy: "SIMPLESWAP_ENABLED",
  credentials: ["SIMPLESWAP_API_KEY"],
  statuses: STATUSES,
  mapping,
  assetKey,
  baseUrl: (s) => s.SIMPLESWAP_API_URL,
  commissionCap: (s) => ({
    capBps: s.SIMPLESWAP_ACCOUNT_COMMISSION_BPS,
    setting: "SIMPLESWAP_ACCOUNT_COMMISSION_BPS",
    states: "share set on your SimpleSwap partner account",
  }),
  // SimpleSwap's reward per key is 0.4% to 2% [D]: any other stated value cannot be the key's.
  traps: (s) =>
    s.SIMPLESWAP_ACCOUNT_COMMISSION_BPS < 40 || s.SIMPLESWAP_ACCOUNT_COMMISSION_BPS > 200
      ? [
          `SIMPLESWAP_ENABLED=true with SIMPLESWAP_ACCOUNT_COMMISSION_BPS=${s.SIMPLESWAP_ACCOUNT_COMMISSION_BPS}: SimpleSwap sets a key's reward between 40 and 200 bps; state the one set on your key, or set SIMPLESWAP_ENABLED=false`,
        ]
      : [],
  create: (s, http) =>
    s.SIMPLESWAP_API_KEY
      ? new SimpleSwapAdapter({
          baseUrl: s.SIMPLESWAP_API_URL,
          apiKey: s.SIMPLESWAP_API_KEY,
          accountCommissionBps: s.SIMPLESWAP_ACCOUNT_COMMISSION_BPS,
          quotesPerMinute: s.SIMPLESWAP_QUOTES_PER_MINUTE,
          timeoutMs: http.timeoutMs,
        })
      : null,
});
