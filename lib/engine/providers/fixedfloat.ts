import "server-only";
import crypto from "node:crypto";
import { D, type Dec } from "@/lib/money/decimal";
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

// FixedFloat API v2 (reference section 3). Every method is a POST with a JSON body, signed:
// X-API-SIGN = hex HMAC-SHA256(secret, the exact body bytes sent). Answers are
// {code, msg, data}; success is code 0. Commission per request: refcode + afftax (percent).
// There is no refund address at creation: a refund is the `emergency` choice REFUND, which
// this adapter makes with the order's refund address when FixedFloat asks for a choice.

export const FIXEDFLOAT_STATUSES: Record<string, MappedStatus> = {
  NEW: { state: "waiting", reason: null, final: false },
  PENDING: { state: "confirming", reason: null, final: false },
  EXCHANGE: { state: "exchanging", reason: null, final: false },
  WITHDRAW: { state: "sending", reason: null, final: false },
  DONE: { state: "finished", reason: null, final: true },
  EXPIRED: { state: "failed", reason: "expired", final: true },
  EMERGENCY: { state: "exchanging", reason: "needs_action", final: false },
};

const UNKNOWN: MappedStatus = { state: "exchanging", reason: "unknown", final: false };
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
    private readonly opts: {
      baseUrl: string;
      apiKey: string;
      apiSecret: string;
      refcode: string | null;
      maxAfftaxBps: number;
      quotesPerMinute: number;
      timeoutMs: number;
    },
  ) {
    this.commission = { kind: "per-request" as const, maxBps: opts.maxAfftaxBps };
    this.quotesPerMinute = opts.quotesPerMinute;
  }

  assetKey(a: ProviderAsset): string {
    return a.code;
  }

  /** Signs and sends one method call; returns `data` of a code-0 answer. */
  private async call(method: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const body = jsonBody(params); // serialised once: the signature is over these bytes
    const sign = crypto.createHmac("sha256", this.opts.apiSecret).update(body, "utf8").digest("hex");
    const r = await httpJson(this.name, {
      method: "POST",
      url: `${this.opts.baseUrl.replace(/\/$/, "")}/${method}`,
      headers: { "content-type": "application/json; charset=UTF-8", "x-api-key": this.opts.apiKey, "x-api-sign": sign },
      body,
      timeoutMs: this.opts.timeoutMs,
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
      if (min && q.fromAmount.lt(min)) throw new ProviderError(this.name, "amount_too_low", errors.join(", "), { min, max });
      if (max && q.fromAmount.gt(max)) throw new ProviderError(this.name, "amount_too_high", errors.join(", "), { min, max });
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
    const id = str(o.id);
    const token = str(o.token);
    const from = obj(o.from);
    const payinAddress = str(from.address);
    if (!id || !token || !payinAddress) throw new ProviderError(this.name, "unavailable", "order created without id, token or address");
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
    let mapped = Object.hasOwn(FIXEDFLOAT_STATUSES, status) ? FIXEDFLOAT_STATUSES[status] : UNKNOWN;
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
    const params: Record<string, unknown> = { id: ref.id, token: d.token, choice: "REFUND", address: d.refundAddress };
    if (d.refundExtraId) params.tag = d.refundExtraId;
    await this.call("emergency", params, signal);
    return true;
  }
}
