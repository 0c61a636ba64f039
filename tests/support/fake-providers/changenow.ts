import Decimal from "decimal.js";
import {
  type FakeProvider,
  FakeServer,
  type Fault,
  fakeId,
  faultReply,
  isFault,
  jsonNumber,
  type RecordedRequest,
  type Reply,
  Script,
  type ScriptStep,
  stepFields,
  stepStatus,
} from "./fake-server";

// A ChangeNOW API v2 stand-in written from the reference (section 1): x-changenow-api-key on
// every call, assets as ticker + network, range and estimated-amount (fixed-rate with a
// rateId), POST /exchange, GET /exchange/by-id, errors as {error, message} with HTTP 400.

export interface CnPair {
  rate: string;
  min: string;
  max: string | null;
}

interface CnOrder {
  id: string;
  body: Record<string, string>;
  fromAmount: Decimal;
  toAmount: Decimal;
  payinAddress: string;
  payinExtraId: string | null;
  script: Script;
  createdAt: string;
}

export const CN_HAPPY: ScriptStep[] = ["new", "waiting", "confirming", "exchanging", "sending", "finished"];

export class FakeChangeNow extends FakeServer {
  readonly apiKey = `cn-key-${fakeId("")}`;
  readonly pairs = new Map<string, CnPair>();
  readonly memoAssets = new Set<string>(["xrp@xrp", "xlm@xlm", "atom@atom"]);
  readonly orders = new Map<string, CnOrder>();
  private readonly rateIds = new Map<string, { pair: string; amount: string; toAmount: Decimal; validUntil: number }>();
  private readonly scripts = new Map<string, ScriptStep[]>();
  defaultScript: ScriptStep[] = CN_HAPPY;

  get baseUrl() {
    return `${this.url}/v2`;
  }

  /** Sets the pair's rate (to per from) and deposit limits; both directions are separate pairs. */
  setPair(from: string, to: string, p: CnPair) {
    this.pairs.set(`${from}>${to}`, p);
  }

  /** The status sequence an exchange paying out to `address` will read as. */
  script(address: string, steps: ScriptStep[]) {
    this.scripts.set(address, steps);
  }

  protected handle(r: RecordedRequest): Reply | Promise<Reply> {
    if (r.headers["x-changenow-api-key"] !== this.apiKey)
      return { status: 401, body: { error: "unauthorized", message: "Invalid or missing x-changenow-api-key" } };
    const path = r.path.replace(/^\/v2/, "");
    if (r.method === "GET" && path === "/exchange/currencies") return { status: 200, body: this.currencies() };
    if (r.method === "GET" && path === "/exchange/range") return this.range(r.query);
    if (r.method === "GET" && path === "/exchange/estimated-amount") return this.estimate(r.query);
    if (r.method === "POST" && path === "/exchange") return this.create(r);
    if (r.method === "GET" && path === "/exchange/by-id") return this.byId(r.query.id);
    return { status: 404, body: { error: "not_found", message: "Unknown method" } };
  }

  private currencies() {
    const assets = new Set<string>();
    for (const k of this.pairs.keys()) for (const a of k.split(">")) assets.add(a);
    return [...assets].map((a) => {
      const [ticker, network] = a.split("@");
      return {
        ticker,
        name: ticker.toUpperCase(),
        image: "",
        hasExternalId: this.memoAssets.has(a),
        isFiat: false,
        featured: false,
        isStable: false,
        supportsFixedRate: true,
        network,
        tokenContract: null,
        buy: true,
        sell: true,
        legacyTicker: ticker === network ? ticker : `${ticker}${network}`,
      };
    });
  }

  private pairOf(q: Record<string, string>): { key: string; pair: CnPair } | Reply {
    for (const f of ["fromCurrency", "toCurrency"])
      if (!q[f]) return { status: 400, body: { error: "not_valid_params", message: `${f} is required` } };
    const key = `${q.fromCurrency}@${q.fromNetwork ?? q.fromCurrency}>${q.toCurrency}@${q.toNetwork ?? q.toCurrency}`;
    const pair = this.pairs.get(key);
    if (!pair) return { status: 400, body: { error: "pair_is_inactive", message: "Pair is inactive" } };
    return { key, pair };
  }

  private range(q: Record<string, string>): Reply {
    const p = this.pairOf(q);
    if ("status" in p) return p;
    return {
      status: 200,
      body: {
        fromCurrency: q.fromCurrency,
        fromNetwork: q.fromNetwork,
        toCurrency: q.toCurrency,
        toNetwork: q.toNetwork,
        flow: q.flow ?? "standard",
        minAmount: jsonNumber(p.pair.min),
        maxAmount: p.pair.max === null ? null : jsonNumber(p.pair.max),
      },
    };
  }

  private estimate(q: Record<string, string>): Reply {
    const p = this.pairOf(q);
    if ("status" in p) return p;
    if ((q.type ?? "direct") !== "direct") return { status: 400, body: { error: "bad_params", message: "only direct here" } };
    const amount = new Decimal(q.fromAmount);
    if (amount.lt(p.pair.min))
      return {
        status: 400,
        body: { error: "out_of_range", message: `Amount is less then minimal: ${p.pair.min} ${q.fromCurrency.toUpperCase()}` },
      };
    const toAmount = amount.mul(p.pair.rate).toDecimalPlaces(8, Decimal.ROUND_DOWN);
    let rateId: string | null = null;
    let validUntil: string | null = null;
    if (q.flow === "fixed-rate" && q.useRateId === "true") {
      rateId = fakeId("rate");
      const until = Date.now() + 20 * 60_000;
      this.rateIds.set(rateId, { pair: p.key, amount: amount.toFixed(), toAmount, validUntil: until });
      validUntil = new Date(until).toISOString();
    }
    return {
      status: 200,
      body: {
        fromCurrency: q.fromCurrency,
        fromNetwork: q.fromNetwork,
        toCurrency: q.toCurrency,
        toNetwork: q.toNetwork,
        flow: q.flow ?? "standard",
        type: "direct",
        rateId,
        validUntil,
        transactionSpeedForecast: null,
        warningMessage: null,
        fromAmount: jsonNumber(amount),
        toAmount: jsonNumber(toAmount),
        depositFee: jsonNumber("0"),
        withdrawalFee: jsonNumber("0"),
        userId: null,
      },
    };
  }

  private create(r: RecordedRequest): Reply {
    const b = (r.body ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(b))
      if (typeof v !== "string") return { status: 400, body: { error: "not_valid_params", message: `${k} must be a string` } };
    const body = b as Record<string, string>;
    const p = this.pairOf(body);
    if ("status" in p) return p;
    if (!body.address || body.address.startsWith("invalid"))
      return { status: 400, body: { error: "not_valid_address", message: "Invalid address" } };
    if (body.refundAddress?.startsWith("invalid"))
      return { status: 400, body: { error: "not_valid_address", message: "Invalid refund address" } };
    let toAmount: Decimal;
    if (body.flow === "fixed-rate") {
      const rate = this.rateIds.get(body.rateId ?? "");
      if (!rate || rate.validUntil < Date.now() || rate.pair !== p.key || rate.amount !== new Decimal(body.fromAmount).toFixed())
        return { status: 400, body: { error: "rate_id_not_found_or_expired", message: "Rate id not found or expired" } };
      toAmount = rate.toAmount;
    } else toAmount = new Decimal(body.fromAmount).mul(p.pair.rate).toDecimalPlaces(8, Decimal.ROUND_DOWN);
    const id = fakeId("cn");
    const fromAsset = `${body.fromCurrency}@${body.fromNetwork}`;
    const order: CnOrder = {
      id,
      body,
      fromAmount: new Decimal(body.fromAmount),
      toAmount,
      payinAddress: `cn-deposit-${id}`,
      payinExtraId: this.memoAssets.has(fromAsset) ? String(100000 + this.orders.size) : null,
      script: new Script(this.scripts.get(body.address) ?? this.defaultScript),
      createdAt: new Date().toISOString(),
    };
    this.orders.set(id, order);
    return {
      status: 200,
      body: {
        id,
        fromAmount: jsonNumber(order.fromAmount),
        toAmount: jsonNumber(toAmount),
        flow: body.flow,
        type: body.type,
        payinAddress: order.payinAddress,
        payoutAddress: body.address,
        payinExtraId: order.payinExtraId ?? "",
        payoutExtraId: body.extraId,
        fromCurrency: body.fromCurrency,
        fromNetwork: body.fromNetwork,
        toCurrency: body.toCurrency,
        toNetwork: body.toNetwork,
        refundAddress: body.refundAddress,
        refundExtraId: body.refundExtraId,
        validUntil: new Date(Date.now() + 20 * 60_000).toISOString(),
      },
    };
  }

  private async byId(id: string | undefined): Promise<Reply> {
    const o = this.orders.get(id ?? "");
    if (!o) return { status: 404, body: { error: "not_found", message: "Exchange not found" } };
    const step = o.script.next();
    if (isFault(step)) return faultReply(step.fault as Fault);
    const status = stepStatus(step);
    const deposited = !["new", "waiting", "expired"].includes(status);
    const paid = status === "finished";
    const refunded = status === "refunded";
    return {
      status: 200,
      body: {
        id: o.id,
        status,
        actionsAvailable: false,
        fromCurrency: o.body.fromCurrency,
        fromNetwork: o.body.fromNetwork,
        toCurrency: o.body.toCurrency,
        toNetwork: o.body.toNetwork,
        expectedAmountFrom: jsonNumber(o.fromAmount),
        expectedAmountTo: jsonNumber(o.toAmount),
        amountFrom: deposited ? jsonNumber(o.fromAmount) : null,
        amountTo: paid ? jsonNumber(o.toAmount) : null,
        payinAddress: o.payinAddress,
        payoutAddress: o.body.address,
        payinExtraId: o.payinExtraId,
        payoutExtraId: o.body.extraId || null,
        refundAddress: o.body.refundAddress || null,
        refundExtraId: o.body.refundExtraId || null,
        createdAt: o.createdAt,
        updatedAt: new Date().toISOString(),
        depositReceivedAt: deposited ? o.createdAt : null,
        payinHash: deposited ? `cn-in-${o.id}` : null,
        payoutHash: paid ? `cn-out-${o.id}` : null,
        fromLegacyTicker: o.body.fromCurrency,
        toLegacyTicker: o.body.toCurrency,
        refundHash: refunded ? `cn-refund-${o.id}` : null,
        refundAmount: refunded ? jsonNumber(o.fromAmount) : null,
        userId: null,
        validUntil: null,
        relatedExchangesInfo: [],
        repeatedExchangesInfo: [],
        originalExchangeInfo: null,
        ...stepFields(step),
      },
    };
  }
}

/** For startFakes (index.ts): how the server is pointed at this fake. */
export const fake: FakeProvider<FakeChangeNow> = {
  create: () => new FakeChangeNow(),
  env: (f) => ({
    CHANGENOW_ENABLED: "true",
    CHANGENOW_API_KEY: f.apiKey,
    CHANGENOW_API_URL: f.baseUrl,
    CHANGENOW_ACCOUNT_COMMISSION_BPS: "200",
  }),
  byDefault: true,
};
