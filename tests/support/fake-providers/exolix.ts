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

// An Exolix API v2 stand-in written from the reference (section 4): the raw key in
// Authorization; coin + network upper case; GET /currencies (paginated, withNetworks), GET
// /rate (both spellings of the network parameters; 422 with the limits out of range), POST
// /transactions (400 {errors:{field}} on a bad address), GET /transactions/{id} (404
// {error}); amounts are JSON numbers; no expiry field.

export interface ExPair {
  rate: string;
  min: string;
  max: string;
}

interface ExTx {
  id: string;
  body: Record<string, any>;
  amount: Decimal;
  amountTo: Decimal;
  depositAddress: string;
  depositExtraId: string | null;
  script: Script;
  createdAt: string;
}

export const EX_HAPPY: ScriptStep[] = ["wait", "confirmation", "confirmed", "exchanging", "sending", "success"];

export class FakeExolix extends FakeServer {
  readonly apiKey = `ex-key-${fakeId("")}`;
  readonly pairs = new Map<string, ExPair>();
  readonly memoNetworks = new Set<string>(["XRP", "XLM", "ATOM"]);
  readonly transactions = new Map<string, ExTx>();
  private readonly scripts = new Map<string, ScriptStep[]>();
  defaultScript: ScriptStep[] = EX_HAPPY;
  /** The most coins a page of /currencies holds, whatever size the client asks for. */
  pageSize = 100;

  get baseUrl() {
    return `${this.url}/api/v2`;
  }

  /** Pair by `COIN@NETWORK` ids, e.g. setPair("BTC@BTC", "ETH@ETH", ...). */
  setPair(from: string, to: string, p: ExPair) {
    this.pairs.set(`${from}>${to}`, p);
  }

  script(address: string, steps: ScriptStep[]) {
    this.scripts.set(address, steps);
  }

  protected handle(r: RecordedRequest): Reply | Promise<Reply> {
    const path = r.path.replace(/^\/api\/v2/, "");
    if (r.headers.authorization !== this.apiKey) return { status: 401, body: { error: "Unauthorized" } };
    if (r.method === "GET" && path === "/currencies") return this.currencies(r.query);
    if (r.method === "GET" && path === "/rate") return this.rate(r.query);
    if (r.method === "POST" && path === "/transactions") return this.create(r);
    if (r.method === "GET" && path.startsWith("/transactions/")) return this.read(decodeURIComponent(path.slice("/transactions/".length)));
    return { status: 404, body: { error: "Not found" } };
  }

  private currencies(q: Record<string, string>): Reply {
    const byCoin = new Map<string, Set<string>>();
    for (const k of this.pairs.keys())
      for (const a of k.split(">")) {
        const [coin, network] = a.split("@");
        if (!byCoin.has(coin)) byCoin.set(coin, new Set());
        byCoin.get(coin)!.add(network);
      }
    const all = [...byCoin].map(([code, networks]) => ({
      code,
      name: code,
      icon: "",
      notes: "",
      ...(q.withNetworks === "true"
        ? {
            networks: [...networks].map((network) => ({
              network,
              name: network,
              memoNeeded: this.memoNetworks.has(network),
              isDefault: true,
            })),
          }
        : {}),
    }));
    const size = Math.min(Number(q.size ?? this.pageSize), this.pageSize);
    const page = Number(q.page ?? 1);
    return { status: 200, body: { data: all.slice((page - 1) * size, page * size), count: all.length } };
  }

  private pairOf(coinFrom: string, netFrom: string, coinTo: string, netTo: string): ExPair | undefined {
    return this.pairs.get(`${coinFrom}@${netFrom}>${coinTo}@${netTo}`);
  }

  private rate(q: Record<string, string>): Reply {
    const netFrom = q.networkFrom ?? q.coinFromNetwork;
    const netTo = q.networkTo ?? q.coinToNetwork;
    const p = this.pairOf(q.coinFrom, netFrom, q.coinTo, netTo);
    if (!p) return { status: 400, body: { error: "Such exchange pair is not available" } };
    const amount = new Decimal(q.amount);
    const limits = { minAmount: jsonNumber(p.min), withdrawMin: jsonNumber("0"), maxAmount: jsonNumber(p.max) };
    if (amount.lt(p.min))
      return {
        status: 422,
        body: {
          fromAmount: jsonNumber(amount),
          toAmount: 0,
          message: "Amount to exchange is below the possible min amount to exchange",
          ...limits,
        },
      };
    if (amount.gt(p.max))
      return {
        status: 422,
        body: {
          fromAmount: jsonNumber(amount),
          toAmount: 0,
          message: "Amount to exchange is higher the possible max amount to exchange",
          ...limits,
        },
      };
    const toAmount = amount.mul(p.rate).toDecimalPlaces(8, Decimal.ROUND_DOWN);
    return {
      status: 200,
      body: { fromAmount: jsonNumber(amount), toAmount: jsonNumber(toAmount), rate: jsonNumber(p.rate), message: null, ...limits },
    };
  }

  private create(r: RecordedRequest): Reply {
    const b = (r.body ?? {}) as Record<string, any>;
    const p = this.pairOf(b.coinFrom, b.networkFrom, b.coinTo, b.networkTo);
    if (!p) return { status: 400, body: { error: "Such exchange pair is not available" } };
    if (typeof b.withdrawalAddress !== "string" || b.withdrawalAddress.startsWith("invalid"))
      return { status: 400, body: { errors: { withdrawalAddress: "Invalid withdrawal address" } } };
    if (typeof b.refundAddress === "string" && b.refundAddress.startsWith("invalid"))
      return { status: 400, body: { errors: { refundAddress: "Invalid refund address" } } };
    if (typeof b.withdrawalExtraId === "string" && b.withdrawalExtraId.startsWith("invalid"))
      return { status: 400, body: { errors: { withdrawalExtraId: "Invalid extra id" } } };
    const amount = new Decimal(String(b.amount));
    if (amount.lt(p.min) || amount.gt(p.max))
      return {
        status: 422,
        body: {
          message: "Amount to exchange is below the possible min amount to exchange",
          minAmount: jsonNumber(p.min),
          maxAmount: jsonNumber(p.max),
        },
      };
    const id = fakeId("ex");
    const tx: ExTx = {
      id,
      body: b,
      amount,
      amountTo: amount.mul(p.rate).toDecimalPlaces(8, Decimal.ROUND_DOWN),
      depositAddress: `ex-deposit-${id}`,
      depositExtraId: this.memoNetworks.has(b.networkFrom) ? String(300000 + this.transactions.size) : null,
      script: new Script(this.scripts.get(b.withdrawalAddress) ?? this.defaultScript),
      createdAt: new Date().toISOString(),
    };
    this.transactions.set(id, tx);
    return { status: 201, body: this.txBody(tx, "wait", {}) };
  }

  private txBody(tx: ExTx, status: string, extra: Record<string, unknown>) {
    return {
      id: tx.id,
      status,
      comment: null,
      createdAt: tx.createdAt,
      amount: jsonNumber(tx.amount),
      amountTo: jsonNumber(tx.amountTo),
      rate: jsonNumber(tx.amountTo.div(tx.amount).toSignificantDigits(12)),
      rateType: "fixed",
      coinFrom: { coinCode: tx.body.coinFrom, network: tx.body.networkFrom },
      coinTo: { coinCode: tx.body.coinTo, network: tx.body.networkTo },
      depositAddress: tx.depositAddress,
      depositExtraId: tx.depositExtraId,
      withdrawalAddress: tx.body.withdrawalAddress,
      withdrawalExtraId: tx.body.withdrawalExtraId ?? null,
      refundAddress: tx.body.refundAddress ?? null,
      refundExtraId: tx.body.refundExtraId ?? null,
      hashIn: { hash: null, link: null },
      hashOut: { hash: null, link: null },
      ...extra,
    };
  }

  private async read(id: string): Promise<Reply> {
    const tx = this.transactions.get(id);
    if (!tx) return { status: 404, body: { error: "Transaction not found" } };
    const step = tx.script.next();
    if (isFault(step)) return faultReply(step.fault as Fault);
    const status = stepStatus(step);
    const deposited = !["wait", "overdue"].includes(status);
    const paidOut = status === "success" || status === "refunded";
    return {
      status: 200,
      body: this.txBody(tx, status, {
        hashIn: { hash: deposited ? `ex-in-${tx.id}` : null, link: null },
        hashOut: { hash: paidOut ? `ex-out-${tx.id}` : null, link: null },
        ...stepFields(step),
      }),
    };
  }
}

/** For startFakes (index.ts): how the server is pointed at this fake. */
export const fake: FakeProvider<FakeExolix> = {
  create: () => new FakeExolix(),
  env: (f) => ({
    EXOLIX_ENABLED: "true",
    EXOLIX_API_KEY: f.apiKey,
    EXOLIX_API_URL: f.baseUrl,
    EXOLIX_ACCOUNT_COMMISSION_BPS: "200",
  }),
  byDefault: false,
};
