import "server-only";
import { z } from "zod";
import { formatAmount } from "@/lib/money/decimal";
import { bool, int } from "@/lib/settings";
import { checkRange, created, mapStatus } from "./helpers";
import { call, dec, decOrNull, type Endpoint, messageOf, obj, ProviderError, type ProviderErrorKind, str } from "./http";
import mapping from "./mappings/exolix.json";
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

// Exolix API v2 (reference section 4). Auth: the raw key in Authorization (no "Bearer"), which
// also attributes the orders to the affiliate account. Assets are coin + network, upper case.
// Commission is per account. Orders are fixed-rate transactions (the rate is locked at create;
// there is no rate id and no expiry field). What the reference marks [?] is handled both ways:
// the network parameters of /rate are sent under both spellings, and the undocumented
// statuses `deleted` / `error` are read as unknown (logged, never final).

const STATUSES: Record<string, MappedStatus> = {
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

const assetKey = (a: ProviderAsset): string => `${a.coin}@${a.network}`;

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
    const headers = { Authorization: this.opts.apiKey, Accept: "application/json" };
    return call(this.name, this.opts, { method, path, query, headers, body, signal }, (r) => {
      const b = obj(r.body);
      const message = messageOf(r.body) || `HTTP ${r.status}`;
      // The amount errors of /rate carry the pair's limits.
      return new ProviderError(this.name, errorKind(message, obj(b.errors), r.status), `${path}: ${r.status} ${message}`, {
        min: decOrNull(b.minAmount),
        max: decOrNull(b.maxAmount),
      });
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
    checkRange(this.name, q.fromAmount, min, max);
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
    const { id, depositAddress } = created(this.name, "transaction", { id: str(r.id), depositAddress: str(r.depositAddress) });
    return {
      id,
      data: null,
      payinAddress: depositAddress,
      payinExtraId: str(r.depositExtraId),
      toAmount: decOrNull(r.amountTo),
      expiresAt: null,
    };
  }

  async readSwap(ref: SwapRef, signal?: AbortSignal): Promise<SwapReading> {
    const r = obj(await this.call("GET", `/transactions/${encodeURIComponent(ref.id)}`, null, undefined, signal));
    const status = str(r.status) ?? "";
    const mapped = mapStatus(STATUSES, status);
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

export const exolix = defineProvider({
  name: "exolix",
  label: "Exolix",
  settings: {
    EXOLIX_ENABLED: bool.default(false).describe("route new orders to Exolix"),
    EXOLIX_API_KEY: z
      .string()
      .optional()
      .describe("Exolix API key (sent raw in `Authorization`; it also attributes the orders to your affiliate account)"),
    EXOLIX_API_URL: z.string().url().default("https://exolix.com/api/v2").describe("Exolix base URL"),
    EXOLIX_ACCOUNT_COMMISSION_BPS: int(0, 0).describe(
      "the partner share set on the Exolix account; an order goes there only when it covers platform fee + markup; enabled with a share below `PLATFORM_FEE_BPS` (the default 0 included), the server refuses to start",
    ),
    EXOLIX_QUOTES_PER_MINUTE: int(300, 1).describe("client-side budget of Exolix quotes per minute (Exolix documents no limit)"),
  },
  enabledBy: "EXOLIX_ENABLED",
  credentials: ["EXOLIX_API_KEY"],
  statuses: STATUSES,
  mapping,
  assetKey,
  baseUrl: (s) => s.EXOLIX_API_URL,
  commissionCap: (s) => ({
    capBps: s.EXOLIX_ACCOUNT_COMMISSION_BPS,
    setting: "EXOLIX_ACCOUNT_COMMISSION_BPS",
    states: "share set on your Exolix partner account",
  }),
  create: (s, http) =>
    s.EXOLIX_API_KEY
      ? new ExolixAdapter({
          baseUrl: s.EXOLIX_API_URL,
          apiKey: s.EXOLIX_API_KEY,
          accountCommissionBps: s.EXOLIX_ACCOUNT_COMMISSION_BPS,
          quotesPerMinute: s.EXOLIX_QUOTES_PER_MINUTE,
          timeoutMs: http.timeoutMs,
        })
      : null,
});
