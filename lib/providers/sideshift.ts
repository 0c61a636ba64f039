import "server-only";
import { z } from "zod";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { bool, int } from "@/lib/settings";
import { checkRange, created, dateOrNull, mapStatus, quoteIdOf } from "./helpers";
import { call, dec, decOrNull, type Endpoint, messageOf, obj, ProviderError, type ProviderErrorKind, str } from "./http";
import mapping from "./mappings/sideshift.json";
import {
  type CreatedSwap,
  type CreateInput,
  defineProvider,
  type MappedStatus,
  type ProviderAdapter,
  type ProviderAsset,
  type ProviderQuote,
  type QuoteInput,
  type RefundTarget,
  type SwapReading,
  type SwapRef,
  type UpstreamCurrency,
} from "./types";

// SideShift.ai API v2 (reference section 2). Auth: x-sideshift-secret, plus x-user-ip with
// the end user's IP on calls made for them; affiliateId in bodies and pair queries.
// Commission per request (commissionRate, a fraction, at most 0.02). Orders are a quote
// followed by a fixed shift created from its id (the quote carries the commission).

/** SideShift's maximum commissionRate (2%, the platform fee included): fixed by SideShift, not a setting. */
const MAX_COMMISSION_BPS = 200;

const STATUSES: Record<string, MappedStatus> = {
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

const assetKey = (a: ProviderAsset): string => `${a.coin}-${a.network}`;

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
  readonly commission = { kind: "per-request" as const, maxBps: MAX_COMMISSION_BPS };
  readonly sendsExternalId = true;
  readonly quotesPerMinute: number;

  constructor(private readonly opts: Endpoint & { secret: string; affiliateId: string; quotesPerMinute: number }) {
    this.quotesPerMinute = opts.quotesPerMinute;
  }

  assetKey(a: ProviderAsset): string {
    return assetKey(a);
  }

  private call(
    method: "GET" | "POST",
    path: string,
    opts: { query?: Record<string, string>; body?: Record<string, unknown>; userIp?: string; signal?: AbortSignal } = {},
  ) {
    const headers: Record<string, string> = { "x-sideshift-secret": this.opts.secret };
    if (opts.userIp) headers["x-user-ip"] = plainIp(opts.userIp);
    return call(this.name, this.opts, { method, path, query: opts.query, headers, body: opts.body, signal: opts.signal }, (r) => {
      const err = obj(obj(r.body).error);
      const message = messageOf(r.body) || `HTTP ${r.status}`;
      return new ProviderError(this.name, errorKind(message, str(err.code), r.status), `${path}: ${r.status} ${message}`);
    });
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
    checkRange(this.name, q.fromAmount, min, max);
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
    return {
      toAmount: dec(this.name, quote.settleAmount, "settleAmount"),
      minAmount: min,
      maxAmount: max,
      quoteId: str(quote.id),
      expiresAt: dateOrNull(str(quote.expiresAt)),
    };
  }

  async createSwap(input: CreateInput, signal?: AbortSignal): Promise<CreatedSwap> {
    const quoteId = quoteIdOf(this.name, input.quote, "a fixed shift needs a quote id");
    const body: Record<string, unknown> = {
      settleAddress: input.payoutAddress,
      affiliateId: this.opts.affiliateId,
      quoteId,
      externalId: input.orderId,
    };
    if (input.payoutExtraId) body.settleMemo = input.payoutExtraId;
    if (input.refundAddress) body.refundAddress = input.refundAddress;
    if (input.refundExtraId) body.refundMemo = input.refundExtraId;
    const r = obj(await this.call("POST", "/shifts/fixed", { body, userIp: input.userIp, signal }));
    const { id, depositAddress } = created(this.name, "shift", { id: str(r.id), depositAddress: str(r.depositAddress) });
    return {
      id,
      data: null,
      payinAddress: depositAddress,
      payinExtraId: str(r.depositMemo),
      toAmount: decOrNull(r.settleAmount),
      expiresAt: dateOrNull(str(r.expiresAt)) ?? input.quote.expiresAt ?? null,
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
    let mapped = mapStatus(STATUSES, status);
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

  /** POST /shifts/{id}/set-refund-address {address, memo?} (reference section 2): answered 201 with the shift. */
  async setRefundAddress(ref: SwapRef, to: RefundTarget, opts: { userIp?: string; signal?: AbortSignal } = {}): Promise<void> {
    const body: Record<string, unknown> = { address: to.address };
    if (to.extraId) body.memo = to.extraId;
    await this.call("POST", `/shifts/${encodeURIComponent(ref.id)}/set-refund-address`, {
      body,
      userIp: opts.userIp,
      signal: opts.signal,
    });
  }
}

export const sideshift = defineProvider({
  name: "sideshift",
  label: "SideShift",
  settings: {
    SIDESHIFT_ENABLED: bool.default(false).describe("route new orders to SideShift"),
    SIDESHIFT_SECRET: z.string().optional().describe("SideShift account private key, sent as `x-sideshift-secret` (secret)"),
    SIDESHIFT_AFFILIATE_ID: z.string().optional().describe("SideShift account id (`affiliateId`); commission accrues to it"),
    SIDESHIFT_API_URL: z.string().url().default("https://sideshift.ai/api/v2").describe("SideShift v2 base URL"),
    SIDESHIFT_QUOTES_PER_MINUTE: int(20, 1).describe("client-side budget of SideShift quotes per minute (its limit per IP)"),
  },
  enabledBy: "SIDESHIFT_ENABLED",
  credentials: ["SIDESHIFT_SECRET", "SIDESHIFT_AFFILIATE_ID"],
  statuses: STATUSES,
  refundAddressLater: true,
  mapping,
  assetKey,
  baseUrl: (s) => s.SIDESHIFT_API_URL,
  commissionCap: () => ({ capBps: MAX_COMMISSION_BPS, setting: `SideShift's commissionRate cap (${MAX_COMMISSION_BPS} bps)` }),
  create: (s, http) =>
    s.SIDESHIFT_SECRET && s.SIDESHIFT_AFFILIATE_ID
      ? new SideShiftAdapter({
          baseUrl: s.SIDESHIFT_API_URL,
          secret: s.SIDESHIFT_SECRET,
          affiliateId: s.SIDESHIFT_AFFILIATE_ID,
          quotesPerMinute: s.SIDESHIFT_QUOTES_PER_MINUTE,
          timeoutMs: http.timeoutMs,
        })
      : null,
});
