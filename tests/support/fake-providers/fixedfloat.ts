import crypto from "node:crypto";
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

// A FixedFloat v2 stand-in written from the reference (section 3): every method is a POST
// to /api/v2/{method} with a JSON body, X-API-KEY and X-API-SIGN = hex HMAC-SHA256(secret,
// raw body); answers are {code, msg, data}, code 0 on success and non-zero codes (undocumented
// numbers) on failure; afftax (percent) lowers what the user gets; orders carry a token.

export interface FfPair {
  rate: string;
  min: string;
  max: string;
}

interface FfOrder {
  id: string;
  token: string;
  params: Record<string, any>;
  fromAmount: Decimal;
  toAmount: Decimal;
  address: string;
  tag: string | null;
  script: Script;
  reg: number;
  choice: "NONE" | "EXCHANGE" | "REFUND";
  emergencyCalls: Record<string, any>[];
}

export const FF_HAPPY: ScriptStep[] = ["NEW", "PENDING", "EXCHANGE", "WITHDRAW", "DONE"];

export class FakeFixedFloat extends FakeServer {
  readonly apiKey = `ff-key-${fakeId("")}`;
  readonly apiSecret = `ff-secret-${fakeId("")}`;
  readonly pairs = new Map<string, FfPair>();
  readonly tagCodes = new Set<string>(["XRP", "XLM", "ATOM"]);
  readonly orders = new Map<string, FfOrder>();
  private readonly scripts = new Map<string, ScriptStep[]>();
  defaultScript: ScriptStep[] = FF_HAPPY;

  get baseUrl() {
    return `${this.url}/api/v2`;
  }

  setPair(from: string, to: string, p: FfPair) {
    this.pairs.set(`${from}>${to}`, p);
  }

  script(address: string, steps: ScriptStep[]) {
    this.scripts.set(address, steps);
  }

  /** Whether a recorded request's X-API-SIGN is the HMAC of exactly the bytes it sent. */
  signatureOk(r: RecordedRequest): boolean {
    return r.headers["x-api-sign"] === crypto.createHmac("sha256", this.apiSecret).update(r.rawBody, "utf8").digest("hex");
  }

  private fail(code: number, msg: string): Reply {
    return { status: 200, body: { code, msg, data: null } };
  }

  private ok(data: unknown): Reply {
    return { status: 200, body: { code: 0, msg: "OK", data } };
  }

  protected handle(r: RecordedRequest): Reply | Promise<Reply> {
    if (r.method !== "POST") return { status: 405, body: { code: 405, msg: "POST only", data: null } };
    if (r.headers["x-api-key"] !== this.apiKey) return this.fail(301, "Invalid API key");
    if (!this.signatureOk(r)) return this.fail(302, "Invalid signature");
    const method = r.path.replace(/^\/api\/v2\//, "");
    const p = (r.body ?? {}) as Record<string, any>;
    switch (method) {
      case "ccies":
        return this.ok(this.ccies());
      case "price":
        return this.price(p);
      case "create":
        return this.create(p);
      case "order":
        return this.order(p);
      case "emergency":
        return this.emergency(p);
      default:
        return this.fail(404, `Unknown method ${method}`);
    }
  }

  private ccies() {
    const codes = new Set<string>();
    for (const k of this.pairs.keys()) for (const c of k.split(">")) codes.add(c);
    return [...codes].map((code, i) => ({
      code,
      coin: code.replace(/(TRC|BSC|SOL)$/, ""),
      network: code,
      name: code,
      recv: 1,
      send: true,
      tag: this.tagCodes.has(code) ? "Memo" : null,
      logo: "",
      color: "#000",
      priority: i,
    }));
  }

  /** What the user gets: amount x rate, less afftax percent. */
  private toAmount(pair: FfPair, amount: Decimal, afftax: unknown): Decimal {
    const tax = new Decimal(afftax === undefined ? 0 : String(afftax)).div(100);
    return amount.mul(pair.rate).mul(new Decimal(1).minus(tax)).toDecimalPlaces(8, Decimal.ROUND_DOWN);
  }

  private price(p: Record<string, any>): Reply {
    const pair = this.pairs.get(`${p.fromCcy}>${p.toCcy}`);
    if (!pair) return this.fail(311, "Currency not found or pair unavailable");
    if (p.direction !== "from") return this.fail(312, "Unsupported direction in this fake");
    const amount = new Decimal(String(p.amount));
    const errors: string[] = [];
    if (amount.lt(pair.min)) errors.push("LIMIT_MIN");
    if (amount.gt(pair.max)) errors.push("LIMIT_MAX");
    return this.ok({
      from: {
        code: p.fromCcy,
        network: p.fromCcy,
        coin: p.fromCcy,
        amount: amount.toFixed(),
        rate: pair.rate,
        precision: 8,
        min: pair.min,
        max: pair.max,
        usd: "0",
        btc: "0",
      },
      to: {
        code: p.toCcy,
        network: p.toCcy,
        coin: p.toCcy,
        amount: this.toAmount(pair, amount, p.afftax).toFixed(),
        rate: "0",
        precision: 8,
        min: "0",
        max: "0",
        usd: "0",
        btc: "0",
      },
      errors,
    });
  }

  private create(p: Record<string, any>): Reply {
    const pair = this.pairs.get(`${p.fromCcy}>${p.toCcy}`);
    if (!pair) return this.fail(311, "Currency not found or pair unavailable");
    if (typeof p.toAddress !== "string" || p.toAddress.startsWith("invalid")) return this.fail(321, "Invalid toAddress");
    const amount = new Decimal(String(p.amount));
    if (amount.lt(pair.min) || amount.gt(pair.max)) return this.fail(322, "Amount out of limits");
    const id = fakeId("FF").toUpperCase();
    const order: FfOrder = {
      id,
      token: fakeId("tok"),
      params: p,
      fromAmount: amount,
      toAmount: this.toAmount(pair, amount, p.afftax),
      address: `ff-deposit-${id}`,
      tag: this.tagCodes.has(p.fromCcy) ? String(300000 + this.orders.size) : null,
      script: new Script(this.scripts.get(p.toAddress) ?? this.defaultScript),
      reg: Math.floor(Date.now() / 1000),
      choice: "NONE",
      emergencyCalls: [],
    };
    this.orders.set(id, order);
    return this.ok(this.orderBody(order, "NEW", {}));
  }

  private orderBody(o: FfOrder, status: string, extra: Record<string, unknown>) {
    const deposited = !["NEW", "EXPIRED"].includes(status);
    const refunded = extra.refunded === true;
    const paid = status === "DONE" && !refunded;
    const { refunded: _r, emergency, ...rest } = extra;
    return {
      id: o.id,
      type: "fixed",
      email: "",
      status,
      time: {
        reg: o.reg,
        start: deposited ? o.reg : null,
        finish: status === "DONE" ? o.reg + 60 : null,
        update: o.reg,
        expiration: o.reg + 1800,
        left: 1800,
      },
      from: {
        code: o.params.fromCcy,
        coin: o.params.fromCcy,
        network: o.params.fromCcy,
        name: o.params.fromCcy,
        alias: o.params.fromCcy,
        amount: o.fromAmount.toFixed(),
        address: o.address,
        addressAlt: null,
        tag: o.tag,
        tagName: o.tag ? "Memo" : null,
        reqConfirmations: 1,
        maxConfirmations: 1,
        tx: deposited
          ? {
              id: `ff-in-${o.id}`,
              amount: o.fromAmount.toFixed(),
              fee: "0",
              ccyfee: o.params.fromCcy,
              timeReg: o.reg,
              timeBlock: o.reg,
              confirmations: 1,
            }
          : { id: null, amount: null },
      },
      to: {
        code: o.params.toCcy,
        coin: o.params.toCcy,
        network: o.params.toCcy,
        name: o.params.toCcy,
        alias: o.params.toCcy,
        amount: o.toAmount.toFixed(),
        address: o.params.toAddress,
        tag: o.params.tag ?? null,
        tagName: null,
        tx: paid ? { id: `ff-out-${o.id}`, amount: o.toAmount.toFixed() } : { id: null, amount: null },
      },
      back: {
        code: o.params.fromCcy,
        coin: o.params.fromCcy,
        network: o.params.fromCcy,
        amount: refunded ? o.fromAmount.toFixed() : null,
        address: o.emergencyCalls.at(-1)?.address ?? null,
        tag: o.emergencyCalls.at(-1)?.tag ?? null,
        tagName: null,
        tx: refunded ? { id: `ff-refund-${o.id}`, amount: o.fromAmount.toFixed() } : { id: null, amount: null },
      },
      emergency: { status: (emergency as string[] | undefined) ?? [], choice: o.choice, repeat: "0" },
      token: o.token,
      ...rest,
    };
  }

  private find(p: Record<string, any>): FfOrder | null {
    const o = this.orders.get(p.id);
    return o && o.token === p.token ? o : null;
  }

  private async order(p: Record<string, any>): Promise<Reply> {
    const o = this.find(p);
    if (!o) return this.fail(331, "Order not found");
    const step = o.script.next();
    if (isFault(step)) return faultReply(step.fault as Fault);
    return this.ok(this.orderBody(o, stepStatus(step), stepFields(step)));
  }

  private emergency(p: Record<string, any>): Reply {
    const o = this.find(p);
    if (!o) return this.fail(331, "Order not found");
    if (p.choice !== "EXCHANGE" && p.choice !== "REFUND") return this.fail(341, "Invalid choice");
    if (p.choice === "REFUND" && !p.address) return this.fail(342, "Refund address required");
    o.choice = p.choice;
    o.emergencyCalls.push(p);
    return this.ok(true);
  }
}

/** For startFakes (index.ts): how the server is pointed at this fake. */
export const fake: FakeProvider<FakeFixedFloat> = {
  create: () => new FakeFixedFloat(),
  env: (f) => ({
    FIXEDFLOAT_ENABLED: "true",
    FIXEDFLOAT_API_KEY: f.apiKey,
    FIXEDFLOAT_API_SECRET: f.apiSecret,
    FIXEDFLOAT_REFCODE: "testref",
    FIXEDFLOAT_API_URL: f.baseUrl,
  }),
  byDefault: true,
};
