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

// Exolix API v2 (reference section 4). Auth: the raw key in Authorization (no "Bearer"), which
// also attributes the orders to the affiliate account. Assets are coin + network, upper case.
// Commission is per account. Orders are fixed-rate transactions (the rate is locked at create;
// there is no rate id and no expiry field). What the reference marks [?] is handled both ways:
// the network parameters of /rate are sent under both spellings, and the undocumented
// statuses `deleted` / `error` are read as unknown (logged, never final).

export const EXOLIX_STATUSES: Record<string, MappedStatus> = {
  wait: { state: "waiting", reason: null, final: false },
  confirmation: { state: "confirming", reason: null, final: false },
  confirmed: { state: "exchanging", reason: null, final: false },
  exchanging: { state: "exchanging", reason: null, final: false },
  sending: { state: "sending", reason: null, final: false },
  success: { state: "finished", reason: null, final: true },
  overdue: { state: "failed", reason: "expired", final: true },
  refund: { state: "failed", reason: "refunding", final: false },
  refunded: { state: "failed", reason: "refunded", final: true },
};

const UNKNOWN: MappedStatus = { state: "exchanging", reason: "unknown", final: false };

/** The documented messages and field errors -> what they mean for us. */
function errorKind(message: string, fieldErrors: Record<string, unknown>, httpStatus: number): ProviderErrorKind {
  if (/below the possible min/i.test(message)) return "amount_too_low";
  if (/higher the possible max|above the possible max/i.test(message)) return "amount_too_high";
  if (/pair is not available|not available|not supported/i.test(message)) return "pair_unavailable";
  const fields = Object.keys(fieldErrors);
  if (fields.some((f) => /^refund/i.test(f))) return fields.some((f) => /extra/i.test(f)) ? "invalid_extra_id" : "invalid_refund_address";
  if (fields.some((f) => /extraid/i.test(f))) return "invalid_extra_id";
  if (fields.some((f) => /address/i.test(f))) return "invalid_address";
  if (httpStatus === 401 || httpStatus === 403) return "unavailable";
  if (httpStatus === 404) return "not_found";
  return "rejected";
}

export class ExolixAdapter implements ProviderAdapter {
  readonly name = "exolix" as const;
  readonly commission;
  readonly quotesPerMinute: number;

  constructor(
    private readonly opts: { baseUrl: string; apiKey: string; accountCommissionBps: number; quotesPerMinute: number; timeoutMs: number },
  ) {
    this.commission = { kind: "per-account" as const, accountBps: opts.accountCommissionBps };
    this.quotesPerMinute = opts.quotesPerMinute;
  }

  assetKey(a: ProviderAsset): string {
    return `${a.coin}@${a.network}`;
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
    const headers: Record<string, string> = { Authorization: this.opts.apiKey, Accept: "application/json" };
    if (method === "POST") headers["content-type"] = "application/json";
    const r = await httpJson(this.name, {
      method,
      url: url.toString(),
      headers,
      body: body ? jsonBody(body) : undefined,
      timeoutMs: this.opts.timeoutMs,
      signal,
    });
    if (r.status >= 200 && r.status < 300) return r.body;
    const b = obj(r.body);
    const fieldErrors = obj(b.errors);
    const message = messageOf(r.body) || `HTTP ${r.status}`;
    const kind = errorKind(message, fieldErrors, r.status);
    // The amount errors of /rate carry the pair's limits.
    throw new ProviderError(this.name, kind, `${path}: ${r.status} ${message}`, {
      min: decOrNull(b.minAmount),
      max: decOrNull(b.maxAmount),
    });
  }

  async listCurrencies(signal?: AbortSignal): Promise<UpstreamCurrency[]> {
    const out: UpstreamCurrency[] = [];
    const size = 100;
    let seen = 0;
    for (let page = 1; ; page++) {
      const body = obj(
        await this.call("GET", "/currencies", { page: String(page), size: String(size), withNetworks: "true" }, undefined, signal),
      );
      const data = Array.isArray(body.data) ? body.data : null;
      if (!data) throw new ProviderError(this.name, "unavailable", "currencies: no data list");
      for (const c of data) {
        const o = obj(c);
        const coin = str(o.code);
        if (!coin) continue;
        for (const n of Array.isArray(o.networks) ? o.networks : []) {
          const net = obj(n);
          const network = str(net.network);
          if (network)
            out.push({
              asset: { coin: coin.toUpperCase(), network: network.toUpperCase() },
              available: true,
              hasMemo: net.memoNeeded === true,
            });
        }
      }
      // The server may send fewer than asked per page: done when every counted coin came.
      seen += data.length;
      const count = Number(str(body.count) ?? 0);
      if (!data.length || seen >= count) break;
    }
    return out;
  }

  async quote(q: QuoteInput, signal?: AbortSignal): Promise<ProviderQuote> {
    const r = obj(
      await this.call(
        "GET",
        "/rate",
        {
          coinFrom: q.from.coin,
          coinTo: q.to.coin,
          // Clients disagree on the names (reference [?]): both are sent.
          networkFrom: q.from.network,
          networkTo: q.to.network,
          coinFromNetwork: q.from.network,
          coinToNetwork: q.to.network,
          amount: formatAmount(q.fromAmount),
          rateType: "fixed",
        },
        undefined,
        signal,
      ),
    );
    const min = decOrNull(r.minAmount);
    const max = decOrNull(r.maxAmount);
    const message = str(r.message);
    if (message && r.rate === null) throw new ProviderError(this.name, errorKind(message, {}, 200), `/rate: ${message}`, { min, max });
    if (min && q.fromAmount.lt(min)) throw new ProviderError(this.name, "amount_too_low", "below the pair's minimum", { min, max });
    if (max && q.fromAmount.gt(max)) throw new ProviderError(this.name, "amount_too_high", "above the pair's maximum", { min, max });
    // No rate id and no expiry: the fixed rate is locked when the transaction is created.
    return { toAmount: dec(this.name, r.toAmount, "toAmount"), minAmount: min, maxAmount: max, quoteId: null, expiresAt: null };
  }

  async createSwap(input: CreateInput, signal?: AbortSignal): Promise<CreatedSwap> {
    const body: Record<string, unknown> = {
      coinFrom: input.from.coin,
      networkFrom: input.from.network,
      coinTo: input.to.coin,
      networkTo: input.to.network,
      amount: input.fromAmount,
      withdrawalAddress: input.payoutAddress,
      rateType: "fixed",
    };
    if (input.payoutExtraId) body.withdrawalExtraId = input.payoutExtraId;
    if (input.refundAddress) body.refundAddress = input.refundAddress;
    if (input.refundExtraId) body.refundExtraId = input.refundExtraId;
    const r = obj(await this.call("POST", "/transactions", null, body, signal));
    const id = str(r.id);
    const payinAddress = str(r.depositAddress);
    if (!id || !payinAddress) throw new ProviderError(this.name, "unavailable", "transaction created without id or depositAddress");
    return { id, data: null, payinAddress, payinExtraId: str(r.depositExtraId), toAmount: decOrNull(r.amountTo), expiresAt: null };
  }

  async readSwap(ref: SwapRef, signal?: AbortSignal): Promise<SwapReading> {
    const r = obj(await this.call("GET", `/transactions/${encodeURIComponent(ref.id)}`, null, undefined, signal));
    const status = str(r.status) ?? "";
    const mapped = Object.hasOwn(EXOLIX_STATUSES, status) ? EXOLIX_STATUSES[status] : UNKNOWN;
    const hashIn = str(obj(r.hashIn).hash);
    const hashOut = str(obj(r.hashOut).hash);
    const refunded = status === "refunded";
    return {
      status,
      mapped,
      payinHash: hashIn,
      payoutHash: refunded ? null : hashOut,
      // Where a refund's hash is given is not documented: the payout leg's, when refunded.
      refundHash: refunded ? hashOut : null,
      // `amount` is the deposit asked for from the start: received only once a deposit hash exists.
      amountReceived: hashIn ? decOrNull(r.amount) : null,
      refundAmount: refunded ? decOrNull(r.amount) : null,
    };
  }
}
