import "server-only";
import crypto from "node:crypto";
import { z } from "zod";
import { D, type Dec } from "@/lib/money/decimal";
import { bool, int } from "@/lib/settings";
import { checkRange, created, mapStatus } from "./helpers";
import { dec, decOrNull, type Endpoint, jsonBody, messageOf, obj, ProviderError, type ProviderErrorKind, request, str } from "./http";
import mapping from "./mappings/fixedfloat.json";
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

// FixedFloat API v2 (reference section 3). Every method is a POST with a JSON body, signed:
// X-API-SIGN = hex HMAC-SHA256(secret, the exact body bytes sent). Answers are
// {code, msg, data}; success is code 0. Commission per request: refcode + afftax (percent).
// There is no refund address at creation: a refund is the `emergency` choice REFUND, which
// this adapter makes with the order's refund address when FixedFloat asks for a choice.

const STATUSES: Record<string, MappedStatus> = {
  NEW: { state: "waiting", reason: null, final: false },
  PENDING: { state: "confirming", reason: null, final: false },
  EXCHANGE: { state: "exchanging", reason: null, final: false },
  WITHDRAW: { state: "sending", reason: null, final: false },
  DONE: { state: "finished", reason: null, final: true },
  EXPIRED: { state: "failed", reason: "expired", final: true },
  EMERGENCY: { state: "exchanging", reason: "needs_action", final: false },
};

const assetKey = (a: ProviderAsset): string => a.code;
const REFUNDED: MappedStatus = { state: "failed", reason: "refunded", final: true };

/** The numeric codes are undocumented: only `code != 0` is reliable, the message says the rest. */
function errorKind(message: string): ProviderErrorKind {
  if (/api.?key|sign|auth|permission|access/i.test(message)) return "unavailable";
  if (/(to)?address/i.test(message)) return "invalid_address";
  if (/\btag\b|memo/i.test(message)) return "invalid_extra_id";
  if (/currenc|ccy|pair|direction/i.test(message)) return "pair_unavailable";
  if (/order.*not found|not found/i.test(message)) return "not_found";
  return "rejected";
}

/** The order's handle for later calls, and where a refund goes if FixedFloat asks for a choice. */
interface FixedFloatData {
  token: string;
  refundAddress: string | null;
  refundExtraId: string | null;
}

export class FixedFloatAdapter implements ProviderAdapter {
  readonly name = "fixedfloat" as const;
  readonly commission;
  readonly quotesPerMinute: number;

  constructor(
    private readonly opts: Endpoint & {
      apiKey: string;
      apiSecret: string;
      refcode: string | null;
      maxAfftaxBps: number;
      quotesPerMinute: number;
    },
  ) {
    this.commission = { kind: "per-request" as const, maxBps: opts.maxAfftaxBps };
    this.quotesPerMinute = opts.quotesPerMinute;
  }

  assetKey(a: ProviderAsset): string {
    return assetKey(a);
  }

  /** Signs and sends one method call; returns `data` of a code-0 answer. */
  private async call(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const body = jsonBody(params); // serialised once: the signature is over these bytes
    const sign = crypto.createHmac("sha256", this.opts.apiSecret).update(body, "utf8").digest("hex");
    const r = await request(this.name, this.opts, {
      method: "POST",
      path: `/${method}`,
      headers: { "content-type": "application/json; charset=UTF-8", "x-api-key": this.opts.apiKey, "x-api-sign": sign },
      body,
      signal,
    });
    const b = obj(r.body);
    if (r.status === 401 || r.status === 403) throw new ProviderError(this.name, "unavailable", `${method}: HTTP ${r.status}`);
    if (!("code" in b)) throw new ProviderError(this.name, "unavailable", `${method}: HTTP ${r.status} without an answer envelope`);
    if (String(b.code) !== "0") {
      const msg = messageOf(r.body) || `code ${String(b.code)}`;
      throw new ProviderError(this.name, errorKind(msg), `${method}: code ${String(b.code)} ${msg}`);
    }
    return b.data;
  }

  /** afftax is a percentage: 175 bps -> 1.75. */
  private commissionParams(bps: number): Record<string, unknown> {
    return this.opts.refcode ? { refcode: this.opts.refcode, afftax: new D(bps).div(100) } : {};
  }

  async listCurrencies(signal?: AbortSignal): Promise<UpstreamCurrency[]> {
    const data = await this.call("ccies", {}, signal);
    if (!Array.isArray(data)) throw new ProviderError(this.name, "unavailable", "ccies: not a list");
    // recv/send come as 0/1 or as booleans.
    const yes = (v: unknown) => v === true || v === "1" || v === 1;
    return data.flatMap((c) => {
      const o = obj(c);
      const code = str(o.code);
      if (!code) return [];
      return [{ asset: { code }, available: yes(o.recv) && yes(o.send), hasMemo: str(o.tag) !== null }];
    });
  }

  async quote(q: QuoteInput, signal?: AbortSignal): Promise<ProviderQuote> {
    const data = obj(
      await this.call(
        "price",
        {
          type: "fixed",
          fromCcy: q.from.code,
          toCcy: q.to.code,
          direction: "from",
          amount: q.fromAmount,
          ...this.commissionParams(q.commissionBps),
        },
        signal,
      ),
    );
    const from = obj(data.from);
    const to = obj(data.to);
    const min = decOrNull(from.min);
    const max = decOrNull(from.max);
    const errors = Array.isArray(data.errors) ? data.errors.map(String) : [];
    if (errors.length) {
      checkRange(this.name, q.fromAmount, min, max, errors.join(", "));
      throw new ProviderError(this.name, "pair_unavailable", `price: ${errors.join(", ")}`);
    }
    // No rate id: the fixed rate is locked when the order is created.
    return { toAmount: dec(this.name, to.amount, "to.amount"), minAmount: min, maxAmount: max, quoteId: null, expiresAt: null };
  }

  async createSwap(input: CreateInput, signal?: AbortSignal): Promise<CreatedSwap> {
    const params: Record<string, unknown> = {
      type: "fixed",
      fromCcy: input.from.code,
      toCcy: input.to.code,
      direction: "from",
      amount: input.fromAmount,
      toAddress: input.payoutAddress,
      ...this.commissionParams(input.commissionBps),
    };
    if (input.payoutExtraId) params.tag = input.payoutExtraId;
    const o = obj(await this.call("create", params, signal));
    const from = obj(o.from);
    const {
      id,
      token,
      address: payinAddress,
    } = created(this.name, "order", { id: str(o.id), token: str(o.token), address: str(from.address) });
    const expiration = decOrNull(obj(o.time).expiration);
    const data: FixedFloatData = { token, refundAddress: input.refundAddress, refundExtraId: input.refundExtraId };
    return {
      id,
      data: JSON.stringify(data),
      payinAddress,
      payinExtraId: str(from.tag),
      toAmount: decOrNull(obj(o.to).amount),
      expiresAt: expiration ? new Date(expiration.mul(1000).toNumber()) : null,
    };
  }

  private parseData(ref: SwapRef): FixedFloatData {
    const d = obj(ref.data ? JSON.parse(ref.data) : null);
    const token = str(d.token);
    if (!token) throw new ProviderError(this.name, "rejected", `order ${ref.id} has no token`);
    return { token, refundAddress: str(d.refundAddress), refundExtraId: str(d.refundExtraId) };
  }

  async readSwap(ref: SwapRef, signal?: AbortSignal): Promise<SwapReading> {
    const { token } = this.parseData(ref);
    const o = obj(await this.call("order", { id: ref.id, token }, signal));
    const status = str(o.status) ?? "";
    const from = obj(o.from);
    const to = obj(o.to);
    const back = obj(o.back);
    const payinHash = str(obj(from.tx).id);
    const payoutHash = str(obj(to.tx).id);
    const refundHash = str(obj(back.tx).id);
    let mapped = mapStatus(STATUSES, status);
    // DONE with only the refund leg's transaction: the deposit went back.
    if (status === "DONE" && !payoutHash && refundHash) mapped = REFUNDED;
    const emergency = obj(o.emergency);
    const choice = str(emergency.choice) ?? "NONE";
    if (status === "EMERGENCY" && choice === "REFUND") mapped = { state: "failed", reason: "refunding", final: false };
    const received: Dec | null = payinHash ? (decOrNull(obj(from.tx).amount) ?? decOrNull(from.amount)) : null;
    return {
      status:
        status === "EMERGENCY" ? `EMERGENCY/${(Array.isArray(emergency.status) ? emergency.status : []).join(",")}/${choice}` : status,
      mapped,
      payinHash,
      payoutHash,
      refundHash,
      amountReceived: received,
      refundAmount: refundHash ? (decOrNull(obj(back.tx).amount) ?? decOrNull(back.amount)) : null,
      needsChoice: status === "EMERGENCY" && choice === "NONE",
    };
  }

  /** FixedFloat waits for a choice: send the deposit back to the order's refund address (the rate we promised no longer holds). */
  async resolveChoice(ref: SwapRef, signal?: AbortSignal): Promise<boolean> {
    const d = this.parseData(ref);
    if (!d.refundAddress) return false;
    await this.makeChoice(ref, { choice: "refund", address: d.refundAddress, extraId: d.refundExtraId }, signal);
    return true;
  }

  /** An operator's answer to the emergency (the console): EXCHANGE at the new rate, or REFUND to `address`. */
  async makeChoice(
    ref: SwapRef,
    c: { choice: "exchange" | "refund"; address: string | null; extraId: string | null },
    signal?: AbortSignal,
  ): Promise<void> {
    const d = this.parseData(ref);
    const params: Record<string, unknown> = { id: ref.id, token: d.token, choice: c.choice === "refund" ? "REFUND" : "EXCHANGE" };
    if (c.choice === "refund") {
      if (!c.address) throw new ProviderError(this.name, "invalid_refund_address", "emergency: a refund needs an address");
      params.address = c.address;
      if (c.extraId) params.tag = c.extraId;
    }
    await this.call("emergency", params, signal);
  }
}

export const fixedfloat = defineProvider({
  name: "fixedfloat",
  label: "FixedFloat",
  settings: {
    FIXEDFLOAT_ENABLED: bool.default(false).describe("route new orders to FixedFloat"),
    FIXEDFLOAT_API_KEY: z.string().optional().describe("FixedFloat API key (secret)"),
    FIXEDFLOAT_API_SECRET: z.string().optional().describe("FixedFloat API secret, signs every request (secret)"),
    FIXEDFLOAT_REFCODE: z.string().optional().describe("FixedFloat affiliate code; with it, fee + markup is sent as `afftax`"),
    FIXEDFLOAT_API_URL: z.string().url().default("https://ff.io/api/v2").describe("FixedFloat v2 base URL"),
    FIXEDFLOAT_MAX_AFFTAX_BPS: int(300, 0).describe(
      "highest fee + markup sent as FixedFloat's `afftax`; orders above it go elsewhere; below `PLATFORM_FEE_BPS` with FixedFloat enabled, the server refuses to start",
    ),
    FIXEDFLOAT_QUOTES_PER_MINUTE: int(200, 1).describe("client-side budget of FixedFloat quotes per minute (of its 250 weight units)"),
  },
  enabledBy: "FIXEDFLOAT_ENABLED",
  credentials: ["FIXEDFLOAT_API_KEY", "FIXEDFLOAT_API_SECRET"],
  statuses: STATUSES,
  mapping,
  assetKey,
  baseUrl: (s) => s.FIXEDFLOAT_API_URL,
  commissionCap: (s) => ({
    capBps: s.FIXEDFLOAT_MAX_AFFTAX_BPS,
    setting: "FIXEDFLOAT_MAX_AFFTAX_BPS",
    states: "FixedFloat accepts for your refcode",
  }),
  create: (s, http) =>
    s.FIXEDFLOAT_API_KEY && s.FIXEDFLOAT_API_SECRET
      ? new FixedFloatAdapter({
          baseUrl: s.FIXEDFLOAT_API_URL,
          apiKey: s.FIXEDFLOAT_API_KEY,
          apiSecret: s.FIXEDFLOAT_API_SECRET,
          refcode: s.FIXEDFLOAT_REFCODE ?? null,
          maxAfftaxBps: s.FIXEDFLOAT_MAX_AFFTAX_BPS,
          quotesPerMinute: s.FIXEDFLOAT_QUOTES_PER_MINUTE,
          timeoutMs: http.timeoutMs,
        })
      : null,
});
