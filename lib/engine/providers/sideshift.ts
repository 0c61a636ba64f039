import "server-only";
import { SIDESHIFT_MAX_COMMISSION_BPS } from "@/lib/config";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
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

// SideShift.ai API v2 (reference section 2). Auth: x-sideshift-secret, plus x-user-ip with
// the end user's IP on calls made for them; affiliateId in bodies and pair queries.
// Commission per request (commissionRate, a fraction, at most 0.02). Orders are a quote
// followed by a fixed shift created from its id (the quote carries the commission).

export const SIDESHIFT_STATUSES: Record<string, MappedStatus> = {
  waiting: { state: "waiting", reason: null, final: false },
  pending: { state: "confirming", reason: null, final: false },
  processing: { state: "exchanging", reason: null, final: false },
  review: { state: "exchanging", reason: "hold", final: false },
  settling: { state: "sending", reason: null, final: false },
  settled: { state: "finished", reason: null, final: true },
  refund: { state: "failed", reason: "refunding", final: false },
  refunding: { state: "failed", reason: "refunding", final: false },
  refunded: { state: "failed", reason: "refunded", final: true },
  expired: { state: "failed", reason: "expired", final: true },
};

const UNKNOWN: MappedStatus = { state: "exchanging", reason: "unknown", final: false };

/** The documented error messages (and Edge's amount ones) -> what they mean for us. */
function errorKind(message: string, code: string | null, httpStatus: number): ProviderErrorKind {
  if (/amount too low/i.test(message)) return "amount_too_low";
  if (/amount too high/i.test(message)) return "amount_too_high";
  if (/invalid refund|refund address/i.test(message)) return "invalid_refund_address";
  if (/invalid receiving address|settleAddress/i.test(message)) return "invalid_address";
  if (/memo/i.test(message)) return "invalid_extra_id";
  if (
    code === "METHOD_NOT_FOUND" ||
    /method .* not found|method.*disabled|invalid parameters: (deposit|settle)(Coin|Network)/i.test(message)
  )
    return "pair_unavailable";
  // Our own set-up is wrong (affiliate id, missing user IP) or the secret is refused: not usable now.
  if (/affiliateId|x-user-ip/i.test(message) || httpStatus === 401) return "unavailable";
  if (httpStatus === 404) return "not_found";
  // ACCESS_DENIED / country-blocked (the end user's IP), an expired quote, zero amounts: answers.
  return "rejected";
}

/** An IPv4 address as a dual-stack socket reports it (::ffff:203.0.113.7) is sent as the IPv4 address it is. */
export const plainIp = (ip: string): string => {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1] : ip;
};

export class SideShiftAdapter implements ProviderAdapter {
  readonly name = "sideshift" as const;
  readonly commission = { kind: "per-request" as const, maxBps: SIDESHIFT_MAX_COMMISSION_BPS };
  readonly sendsExternalId = true;
  readonly quotesPerMinute: number;

  constructor(private readonly opts: { baseUrl: string; secret: string; affiliateId: string; quotesPerMinute: number; timeoutMs: number }) {
    this.quotesPerMinute = opts.quotesPerMinute;
  }

  assetKey(a: ProviderAsset): string {
    return `${a.coin}-${a.network}`;
  }

  private async call(
    method: "GET" | "POST",
    path: string,
    opts: { query?: Record<string, string>; body?: Record<string, unknown>; userIp?: string; signal?: AbortSignal } = {},
  ) {
    const url = new URL(this.opts.baseUrl.replace(/\/$/, "") + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { "x-sideshift-secret": this.opts.secret };
    if (opts.userIp) headers["x-user-ip"] = plainIp(opts.userIp);
    if (method === "POST") headers["content-type"] = "application/json";
    const r = await httpJson(this.name, {
      method,
      url: url.toString(),
      headers,
      body: opts.body ? jsonBody(opts.body) : undefined,
      timeoutMs: this.opts.timeoutMs,
      signal: opts.signal,
    });
    if (r.status >= 200 && r.status < 300) return r.body;
    const err = obj(obj(r.body).error);
    const message = messageOf(r.body) || `HTTP ${r.status}`;
    throw new ProviderError(this.name, errorKind(message, str(err.code), r.status), `${path}: ${r.status} ${message}`);
  }

  async listCurrencies(signal?: AbortSignal): Promise<UpstreamCurrency[]> {
    const body = await this.call("GET", "/coins", { signal });
    if (!Array.isArray(body)) throw new ProviderError(this.name, "unavailable", "coins: not a list");
    // Flags are a boolean for every network or a list of the networks they apply to.
    const applies = (flag: unknown, network: string) => flag === true || (Array.isArray(flag) && flag.includes(network));
    return body.flatMap((c) => {
      const o = obj(c);
      const coin = str(o.coin);
      const networks = Array.isArray(o.networks) ? o.networks.filter((n): n is string => typeof n === "string") : [];
      if (!coin) return [];
      return networks.map((network) => ({
        asset: { coin: coin.toLowerCase(), network },
        // Orders here are fixed shifts: a variable-only network cannot take them.
        available: !applies(o.depositOffline, network) && !applies(o.settleOffline, network) && !applies(o.variableOnly, network),
        hasMemo: Array.isArray(o.networksWithMemo) && o.networksWithMemo.includes(network),
      }));
    });
  }

  /** commissionRate is a decimal fraction: 175 bps -> "0.0175". */
  private commissionRate(bps: number): string {
    return formatAmount(new D(bps).div(10_000));
  }

  async quote(q: QuoteInput, signal?: AbortSignal): Promise<ProviderQuote> {
    const commissionRate = this.commissionRate(q.commissionBps);
    const pair = obj(
      await this.call("GET", `/pair/${this.assetKey(q.from)}/${this.assetKey(q.to)}`, {
        query: { affiliateId: this.opts.affiliateId, commissionRate },
        userIp: q.userIp,
        signal,
      }),
    );
    const min = dec(this.name, pair.min, "min");
    const max = decOrNull(pair.max);
    if (q.fromAmount.lt(min)) throw new ProviderError(this.name, "amount_too_low", "below the pair's minimum", { min, max });
    if (max && q.fromAmount.gt(max)) throw new ProviderError(this.name, "amount_too_high", "above the pair's maximum", { min, max });
    let quote: Record<string, unknown>;
    try {
      quote = obj(
        await this.call("POST", "/quotes", {
          body: {
            depositCoin: q.from.coin,
            depositNetwork: q.from.network,
            settleCoin: q.to.coin,
            settleNetwork: q.to.network,
            depositAmount: formatAmount(q.fromAmount),
            settleAmount: null,
            affiliateId: this.opts.affiliateId,
            commissionRate,
          },
          userIp: q.userIp,
          signal,
        }),
      );
    } catch (e) {
      // The amount messages carry no numbers: pass on the pair's limit when it agrees with the message.
      if (e instanceof ProviderError && e.kind === "amount_too_low")
        throw new ProviderError(this.name, e.kind, e.message, { min: q.fromAmount.lt(min) ? min : null, max });
      if (e instanceof ProviderError && e.kind === "amount_too_high")
        throw new ProviderError(this.name, e.kind, e.message, { min, max: max && q.fromAmount.gt(max) ? max : null });
      throw e;
    }
    const expiresAt = str(quote.expiresAt);
    return {
      toAmount: dec(this.name, quote.settleAmount, "settleAmount"),
      minAmount: min,
      maxAmount: max,
      quoteId: str(quote.id),
      expiresAt: expiresAt ? new Date(expiresAt) : null,
    };
  }

  async createSwap(input: CreateInput, signal?: AbortSignal): Promise<CreatedSwap> {
    if (!input.quote.quoteId) throw new ProviderError(this.name, "rejected", "a fixed shift needs a quote id");
    const body: Record<string, unknown> = {
      settleAddress: input.payoutAddress,
      affiliateId: this.opts.affiliateId,
      quoteId: input.quote.quoteId,
      externalId: input.orderId,
    };
    if (input.payoutExtraId) body.settleMemo = input.payoutExtraId;
    if (input.refundAddress) body.refundAddress = input.refundAddress;
    if (input.refundExtraId) body.refundMemo = input.refundExtraId;
    const r = obj(await this.call("POST", "/shifts/fixed", { body, userIp: input.userIp, signal }));
    const id = str(r.id);
    const payinAddress = str(r.depositAddress);
    if (!id || !payinAddress) throw new ProviderError(this.name, "unavailable", "shift created without id or depositAddress");
    const expiresAt = str(r.expiresAt);
    return {
      id,
      data: null,
      payinAddress,
      payinExtraId: str(r.depositMemo),
      toAmount: decOrNull(r.settleAmount),
      expiresAt: expiresAt ? new Date(expiresAt) : (input.quote.expiresAt ?? null),
    };
  }

  async readSwap(ref: SwapRef, signal?: AbortSignal): Promise<SwapReading> {
    const r = obj(await this.call("GET", `/shifts/${encodeURIComponent(ref.id)}`, { signal }));
    let status = str(r.status) ?? "";
    let leg: Record<string, unknown> = r;
    // Several deposits: a fixed shift settles the first and refunds the rest.
    if (status === "multiple" && Array.isArray(r.deposits) && r.deposits.length) {
      leg = obj(r.deposits[0]);
      status = str(leg.status) ?? status;
    }
    let mapped = Object.hasOwn(SIDESHIFT_STATUSES, status) ? SIDESHIFT_STATUSES[status] : UNKNOWN;
    // Queued for refund without a refund address: someone has to give one.
    if (status === "refund" && !str(r.refundAddress)) mapped = { ...mapped, reason: "needs_action" };
    // A fixed shift names its quoted depositAmount from the start: it was received only once a deposit hash exists.
    const depositSeen = str(leg.depositHash) !== null || str(leg.depositReceivedAt) !== null;
    const received: Dec | null = depositSeen ? decOrNull(leg.depositAmount) : null;
    const refunded = status === "refunded";
    return {
      status: str(r.status) === "multiple" ? `multiple/${status}` : status,
      mapped,
      payinHash: str(leg.depositHash),
      payoutHash: refunded ? null : str(leg.settleHash),
      // Where a refund's hash is given is not settled: refundHash, else the settle leg's hash.
      refundHash: str(leg.refundHash) ?? (refunded ? str(leg.settleHash) : null),
      amountReceived: received,
      refundAmount: refunded ? (decOrNull(leg.refundAmount) ?? received) : null,
    };
  }
}
