import Decimal from "decimal.js";
import {
  type FakeProvider,
  FakeServer,
  type Fault,
  fakeId,
  faultReply,
  isFault,
  type RecordedRequest,
  type Reply,
  Script,
  type ScriptStep,
  stepFields,
  stepStatus,
} from "./fake-server";

// A SimpleSwap API v3 stand-in written from the reference (section 5): x-api-key; ticker +
// network lower case; every success wrapped as {result}; /ranges and /estimates with fixed and
// reverse as strings; POST /exchanges with a rateId; the exchange object's mixed snake_case and
// camelCase names; errors by HTTP status (401 key, 404 not found, 422 amount or pair, 400
// parameters) with a description (the body's shape is not documented); amounts are strings.

export interface SwPair {
  rate: string;
  min: string;
  max: string | null;
}

interface SwExchange {
  id: string;
  body: Record<string, any>;
  amountFrom: Decimal;
  amountTo: Decimal;
  addressFrom: string;
  extraIdFrom: string | null;
  validUntil: string;
  script: Script;
  createdAt: string;
}

export const SW_HAPPY: ScriptStep[] = ["waiting", "confirming", "exchanging", "sending", "finished"];

export class FakeSimpleSwap extends FakeServer {
  readonly apiKey = `sw-key-${fakeId("")}`;
  readonly pairs = new Map<string, SwPair>();
  readonly memoNetworks = new Set<string>(["xrp", "xlm", "atom"]);
  readonly exchanges = new Map<string, SwExchange>();
  private readonly rateIds = new Map<string, { pair: string; amount: string; estimated: Decimal; validUntil: number }>();
  private readonly scripts = new Map<string, ScriptStep[]>();
  defaultScript: ScriptStep[] = SW_HAPPY;

  get baseUrl() {
    return `${this.url}/v3`;
  }

  /** Pair by `ticker@network` ids, e.g. setPair("btc@btc", "eth@eth", ...). */
  setPair(from: string, to: string, p: SwPair) {
    this.pairs.set(`${from}>${to}`, p);
  }

  script(address: string, steps: ScriptStep[]) {
    this.scripts.set(address, steps);
  }

  private err(status: number, description: string): Reply {
    return { status, body: { code: status, error: "Error", description } };
  }

  protected handle(r: RecordedRequest): Reply | Promise<Reply> {
    const path = r.path.replace(/^\/v3/, "");
    if (r.headers["x-api-key"] !== this.apiKey) return this.err(401, "Wrong API key");
    if (r.method === "GET" && path === "/currencies") return this.ok(this.currencies());
    if (r.method === "GET" && (path === "/ranges" || path === "/estimates")) return this.priced(path, r.query);
    if (r.method === "POST" && path === "/exchanges") return this.create(r);
    if (r.method === "GET" && path.startsWith("/exchanges/")) return this.read(decodeURIComponent(path.slice("/exchanges/".length)));
    return this.err(404, "Not found");
  }

  private ok(result: unknown): Reply {
    return { status: 200, body: { result } };
  }

  private currencies() {
    const seen = new Set<string>();
    for (const k of this.pairs.keys()) for (const a of k.split(">")) seen.add(a);
    return [...seen].map((a) => {
      const [ticker, network] = a.split("@");
      const memo = this.memoNetworks.has(network);
      return {
        name: ticker,
        ticker,
        network,
        legacySymbol: ticker,
        contractAddress: null,
        extraId: memo ? "Memo" : "",
        hasExtraId: memo,
        validationExtra: null,
      };
    });
  }

  private pairKey(q: Record<string, string>) {
    return `${q.tickerFrom}@${q.networkFrom}>${q.tickerTo}@${q.networkTo}`;
  }

  private priced(path: string, q: Record<string, string>): Reply {
    if (q.fixed !== "true" && q.fixed !== "false") return this.err(400, "fixed must be a boolean string");
    const key = this.pairKey(q);
    const p = this.pairs.get(key);
    if (!p) return this.err(422, "Pair is not available");
    if (path === "/ranges") return this.ok({ min: p.min, max: p.max });
    const amount = new Decimal(q.amount);
    if (amount.lt(p.min)) return this.err(422, `Amount is less than minimal: ${p.min}`);
    if (p.max && amount.gt(p.max)) return this.err(422, `Amount is greater than maximal: ${p.max}`);
    const estimated = amount.mul(p.rate).toDecimalPlaces(8, Decimal.ROUND_DOWN);
    const rateId = q.fixed === "true" ? fakeId("rate-") : null;
    const validUntil = Date.now() + 5 * 60_000;
    if (rateId) this.rateIds.set(rateId, { pair: key, amount: amount.toFixed(), estimated, validUntil });
    return this.ok({ estimatedAmount: estimated.toFixed(), rateId, validUntil: rateId ? new Date(validUntil).toISOString() : null });
  }

  private create(r: RecordedRequest): Reply {
    const b = (r.body ?? {}) as Record<string, any>;
    if (b.fixed !== true || b.reverse !== false) return this.err(400, "fixed and reverse must be booleans");
    const key = this.pairKey(b);
    const p = this.pairs.get(key);
    if (!p) return this.err(422, "Pair is not available");
    const rate = this.rateIds.get(b.rateId);
    if (!rate || rate.pair !== key || rate.amount !== new Decimal(String(b.amount)).toFixed() || rate.validUntil < Date.now())
      return this.err(400, "Invalid rateId");
    if (typeof b.addressTo !== "string" || b.addressTo.startsWith("invalid")) return this.err(400, "Invalid address");
    if (typeof b.userRefundAddress === "string" && b.userRefundAddress.startsWith("invalid"))
      return this.err(400, "Invalid refund address");
    if (typeof b.extraIdTo === "string" && b.extraIdTo.startsWith("invalid")) return this.err(400, "Invalid extra id");
    const id = fakeId("sw");
    const ex: SwExchange = {
      id,
      body: b,
      amountFrom: new Decimal(String(b.amount)),
      amountTo: rate.estimated,
      addressFrom: `sw-deposit-${id}`,
      extraIdFrom: this.memoNetworks.has(b.networkFrom) ? String(400000 + this.exchanges.size) : null,
      validUntil: new Date(Date.now() + 20 * 60_000).toISOString(),
      script: new Script(this.scripts.get(b.addressTo) ?? this.defaultScript),
      createdAt: new Date().toISOString(),
    };
    this.exchanges.set(id, ex);
    return this.ok(this.exchangeBody(ex, "waiting", {}));
  }

  private exchangeBody(ex: SwExchange, status: string, extra: Record<string, unknown>) {
    return {
      id: ex.id,
      type: "fixed",
      status,
      timestamp: ex.createdAt,
      updated_at: new Date().toISOString(),
      valid_until: ex.validUntil,
      tickerFrom: ex.body.tickerFrom,
      tickerTo: ex.body.tickerTo,
      networkFrom: ex.body.networkFrom,
      networkTo: ex.body.networkTo,
      amountFrom: ex.amountFrom.toFixed(),
      expected_amount: ex.amountFrom.toFixed(),
      amountTo: ex.amountTo.toFixed(),
      addressFrom: ex.addressFrom,
      extraIdFrom: ex.extraIdFrom,
      addressTo: ex.body.addressTo,
      extraIdTo: ex.body.extraIdTo || null,
      userRefundAddress: ex.body.userRefundAddress || null,
      userRefundExtraId: ex.body.userRefundExtraId || null,
      txFrom: null,
      txTo: null,
      ...extra,
    };
  }

  private async read(id: string): Promise<Reply> {
    const ex = this.exchanges.get(id);
    if (!ex) return this.err(404, "Exchange not found");
    const step = ex.script.next();
    if (isFault(step)) return faultReply(step.fault as Fault);
    const status = stepStatus(step);
    const deposited = !["waiting", "expired"].includes(status);
    const paidOut = status === "finished" || status === "refunded";
    return this.ok(
      this.exchangeBody(ex, status, {
        txFrom: deposited ? `sw-in-${ex.id}` : null,
        txTo: paidOut ? `sw-out-${ex.id}` : null,
        ...stepFields(step),
      }),
    );
  }
}

/** For startFakes (index.ts): how the server is pointed at this fake. */
export const fake: FakeProvider<FakeSimpleSwap> = {
  create: () => new FakeSimpleSwap(),
  env: (f) => ({
    SIMPLESWAP_ENABLED: "true",
    SIMPLESWAP_API_KEY: f.apiKey,
    SIMPLESWAP_API_URL: f.baseUrl,
    SIMPLESWAP_ACCOUNT_COMMISSION_BPS: "200",
  }),
  byDefault: false,
};
