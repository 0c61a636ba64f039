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

// A SideShift v2 stand-in written from the reference (section 2): x-sideshift-secret, and
// x-user-ip required on quotes and shifts; affiliateId in bodies and pair queries;
// commissionRate (at most 0.02) lowers what the user gets; quotes expire after 15 minutes and
// are limited to 20 a minute, shifts to 5 (429 beyond); amounts are strings; errors are
// {error: {code?, message}}.

export interface SsPair {
  rate: string;
  min: string;
  max: string;
}

interface SsQuote {
  id: string;
  body: Record<string, any>;
  settleAmount: string;
  expiresAt: number;
}

export interface SsShift {
  id: string;
  quote: SsQuote;
  body: Record<string, any>;
  depositAddress: string;
  depositMemo: string | null;
  script: Script;
  createdAt: string;
  /** The status its last read answered ("waiting" until read). */
  status: string;
}

/** A set-refund-address call the fake received, as it was asked. */
export interface SsRefundAddressCall {
  shiftId: string;
  address: unknown;
  memo: unknown;
  /** The status of the shift when it was asked, and the fake's answer. */
  status: string;
  answered: number;
}

/** Statuses in which a shift still takes a refund address (the docs' refund flow: while held, or queued for a refund). */
const TAKES_REFUND_ADDRESS = new Set(["waiting", "pending", "processing", "review", "refund"]);

export const SS_HAPPY: ScriptStep[] = ["waiting", "pending", "processing", "settling", "settled"];

export class FakeSideShift extends FakeServer {
  readonly secret = `ss-secret-${fakeId("")}`;
  readonly affiliateId = `aff${fakeId("")}`;
  readonly pairs = new Map<string, SsPair>();
  readonly memoNetworks = new Set<string>(["ripple", "stellar", "cosmos"]);
  readonly quotes = new Map<string, SsQuote>();
  readonly shifts = new Map<string, SsShift>();
  /** Requests answered 429 because the documented per-minute limit was exceeded. */
  rateLimited = 0;
  quotesPerMinute = 20;
  shiftsPerMinute = 5;
  private quoteTimes: number[] = [];
  private shiftTimes: number[] = [];
  private readonly scripts = new Map<string, ScriptStep[]>();
  defaultScript: ScriptStep[] = SS_HAPPY;
  /** Every POST /shifts/{id}/set-refund-address, in order. */
  readonly refundAddressCalls: SsRefundAddressCall[] = [];
  /** Addresses the fake refuses as SideShift's own ("This refund address belongs to SideShift.ai"), besides its prefixes. */
  readonly refusedRefundAddresses = new Set<string>();

  get baseUrl() {
    return `${this.url}/api/v2`;
  }

  /** Pair by `coin-network` ids, e.g. setPair("btc-bitcoin", "eth-ethereum", ...). */
  setPair(from: string, to: string, p: SsPair) {
    this.pairs.set(`${from}>${to}`, p);
  }

  script(address: string, steps: ScriptStep[]) {
    this.scripts.set(address, steps);
  }

  /**
   * Awaited before a read of a shift takes its script's next step: a test that must see every
   * status the order passes through reads the order there (tests/http/providers.test.ts), so
   * that no status lasts too short for it on a loaded machine.
   */
  beforeRead: ((shiftId: string) => Promise<unknown>) | null = null;

  /** The shift made for a payout address (the last one, when several). */
  shiftFor(settleAddress: string): SsShift | undefined {
    return [...this.shifts.values()].filter((s) => s.body.settleAddress === settleAddress).pop();
  }

  /**
   * Puts the shift on hold: its next reads answer "review" (exchanging, reason hold), with the
   * documented `issue`, until the test moves it on. A shift scripted to end on "review" is held already.
   */
  hold(shiftId: string, issue = "Needs review") {
    this.shiftOf(shiftId).script.continueWith([{ status: "review", issue }]);
  }

  /**
   * Refunds the shift to its refund address: its next reads answer "refund" then "refunding"
   * then "refunded" (the refund's hash in settleHash, as this fake puts it). Without a refund
   * address it stays queued for one ("refund", the adapter's needs_action) until it has one.
   */
  refund(shiftId: string) {
    const s = this.shiftOf(shiftId);
    s.script.continueWith(s.body.refundAddress ? ["refund", "refunding", "refunded"] : ["refund"]);
  }

  private shiftOf(id: string): SsShift {
    const s = this.shifts.get(id);
    if (!s) throw new Error(`no shift ${id}`);
    return s;
  }

  private err(status: number, message: string, code?: string): Reply {
    return { status, body: { error: code ? { code, message } : { message } } };
  }

  /** The documented per-IP limits, kept over a sliding minute. */
  private overLimit(times: number[], limit: number): boolean {
    const now = Date.now();
    while (times.length && times[0] <= now - 60_000) times.shift();
    if (times.length >= limit) {
      this.rateLimited++;
      return true;
    }
    times.push(now);
    return false;
  }

  protected handle(r: RecordedRequest): Reply | Promise<Reply> {
    const path = r.path.replace(/^\/api\/v2/, "");
    if (r.method === "GET" && path === "/coins") return { status: 200, body: this.coins() };
    // Edge and Cake call /pair without the secret: tolerated. Everything else needs it.
    if (!path.startsWith("/pair/") && r.headers["x-sideshift-secret"] !== this.secret) return this.err(401, "Invalid account secret");
    if (r.method === "GET" && path.startsWith("/pair/")) return this.pair(path, r.query);
    if (r.method === "POST" && (path === "/quotes" || path === "/shifts/fixed")) {
      if (!r.headers["x-user-ip"]) return this.err(400, "The x-user-ip header must be set to the end-user IP address");
      if (path === "/quotes") return this.quote(r);
      return this.createShift(r);
    }
    const setRefund = /^\/shifts\/([^/]+)\/set-refund-address$/.exec(path);
    if (r.method === "POST" && setRefund) return this.setRefundAddress(decodeURIComponent(setRefund[1]), r);
    if (r.method === "GET" && path.startsWith("/shifts/")) return this.readShift(decodeURIComponent(path.slice("/shifts/".length)));
    return this.err(404, `Method ${path} not found`, "METHOD_NOT_FOUND");
  }

  private coins() {
    const byCoin = new Map<string, Set<string>>();
    for (const k of this.pairs.keys())
      for (const a of k.split(">")) {
        const [coin, network] = a.split("-");
        if (!byCoin.has(coin)) byCoin.set(coin, new Set());
        byCoin.get(coin)!.add(network);
      }
    return [...byCoin].map(([coin, networks]) => ({
      coin: coin.toUpperCase(),
      name: coin,
      networks: [...networks],
      hasMemo: [...networks].some((n) => this.memoNetworks.has(n)),
      fixedOnly: false,
      variableOnly: false,
      depositOffline: false,
      settleOffline: false,
      tokenDetails: {},
      networksWithMemo: [...networks].filter((n) => this.memoNetworks.has(n)),
    }));
  }

  private findPair(from: string, to: string): SsPair | undefined {
    return this.pairs.get(`${from.toLowerCase()}>${to.toLowerCase()}`);
  }

  private pair(path: string, q: Record<string, string>): Reply {
    const [, , from, to] = path.split("/");
    const p = this.findPair(from, to);
    if (!p) return this.err(400, `Method ${from}/${to} not found`, "METHOD_NOT_FOUND");
    if (q.affiliateId !== undefined && q.affiliateId !== this.affiliateId) return this.err(400, "Unknown affiliateId");
    const [depositCoin, depositNetwork] = from.split("-");
    const [settleCoin, settleNetwork] = to.split("-");
    return { status: 200, body: { min: p.min, max: p.max, rate: p.rate, depositCoin, settleCoin, depositNetwork, settleNetwork } };
  }

  private quote(r: RecordedRequest): Reply {
    const b = (r.body ?? {}) as Record<string, any>;
    if (this.overLimit(this.quoteTimes, this.quotesPerMinute)) return this.err(429, "Rate limit exceeded");
    if (b.affiliateId !== this.affiliateId) return this.err(400, b.affiliateId ? "Unknown affiliateId" : 'Invalid "affiliateId"');
    for (const f of ["depositCoin", "depositNetwork", "settleCoin", "settleNetwork"])
      if (typeof b[f] !== "string") return this.err(400, `Bad request: Invalid parameters: ${f}`, "BAD_USER_INPUT");
    const p = this.findPair(`${b.depositCoin}-${b.depositNetwork}`, `${b.settleCoin}-${b.settleNetwork}`);
    if (!p) return this.err(400, `Method ${b.depositCoin}/${b.depositNetwork} not found`, "METHOD_NOT_FOUND");
    if ((b.depositAmount === null) === (b.settleAmount === null))
      return this.err(400, "Bad request: Invalid parameters: depositAmount", "BAD_USER_INPUT");
    const commission = new Decimal(b.commissionRate ?? "0.005");
    if (commission.gt("0.02") || commission.lt(0))
      return this.err(400, "Bad request: Invalid parameters: commissionRate", "BAD_USER_INPUT");
    const amount = new Decimal(b.depositAmount);
    if (amount.lte(0)) return this.err(400, "depositAmount must be greater than zero", "BAD_USER_INPUT");
    if (amount.lt(p.min)) return this.err(400, "Amount too low");
    if (amount.gt(p.max)) return this.err(400, "Amount too high");
    const settle = amount.mul(p.rate).mul(new Decimal(1).minus(commission)).toDecimalPlaces(8, Decimal.ROUND_DOWN);
    const q: SsQuote = { id: fakeId("q-"), body: b, settleAmount: settle.toFixed(), expiresAt: Date.now() + 15 * 60_000 };
    this.quotes.set(q.id, q);
    return {
      status: 201,
      body: {
        id: q.id,
        createdAt: new Date().toISOString(),
        depositCoin: String(b.depositCoin).toUpperCase(),
        settleCoin: String(b.settleCoin).toUpperCase(),
        depositNetwork: b.depositNetwork,
        settleNetwork: b.settleNetwork,
        expiresAt: new Date(q.expiresAt).toISOString(),
        depositAmount: amount.toFixed(),
        settleAmount: q.settleAmount,
        rate: new Decimal(q.settleAmount).div(amount).toSignificantDigits(12).toFixed(),
        affiliateId: this.affiliateId,
      },
    };
  }

  private createShift(r: RecordedRequest): Reply {
    const b = (r.body ?? {}) as Record<string, any>;
    if (this.overLimit(this.shiftTimes, this.shiftsPerMinute)) return this.err(429, "Rate limit exceeded");
    const q = this.quotes.get(b.quoteId);
    if (!q) return this.err(404, "Quote not found");
    if (b.affiliateId !== q.body.affiliateId) return this.err(400, "Quote has different affiliateId than input");
    if (q.expiresAt < Date.now()) return this.err(400, "Quote has already expired. Request a new quote.");
    if (typeof b.settleAddress !== "string" || b.settleAddress.startsWith("invalid")) return this.err(400, "Invalid receiving address");
    if (typeof b.refundAddress === "string" && b.refundAddress.startsWith("invalid")) return this.err(400, "Invalid refundDestination");
    if (typeof b.refundAddress === "string" && b.refundAddress.startsWith("sideshift"))
      return this.err(400, "This refund address belongs to SideShift.ai");
    const id = fakeId("ss");
    const s: SsShift = {
      id,
      quote: q,
      body: b,
      depositAddress: `ss-deposit-${id}`,
      depositMemo: this.memoNetworks.has(q.body.depositNetwork) ? String(200000 + this.shifts.size) : null,
      script: new Script(this.scripts.get(b.settleAddress) ?? this.defaultScript),
      createdAt: new Date().toISOString(),
      status: "waiting",
    };
    this.shifts.set(id, s);
    return { status: 201, body: this.shiftBody(s, "waiting", {}) };
  }

  private shiftBody(s: SsShift, status: string, extra: Record<string, unknown>) {
    const deposited = !["waiting", "expired"].includes(status);
    const refunded = status === "refunded";
    const settled = status === "settled";
    return {
      id: s.id,
      createdAt: s.createdAt,
      depositCoin: String(s.quote.body.depositCoin).toUpperCase(),
      settleCoin: String(s.quote.body.settleCoin).toUpperCase(),
      depositNetwork: s.quote.body.depositNetwork,
      settleNetwork: s.quote.body.settleNetwork,
      depositAddress: s.depositAddress,
      ...(s.depositMemo ? { depositMemo: s.depositMemo } : {}),
      settleAddress: s.body.settleAddress,
      ...(s.body.settleMemo ? { settleMemo: s.body.settleMemo } : {}),
      ...(s.body.refundAddress ? { refundAddress: s.body.refundAddress } : {}),
      ...(s.body.refundMemo ? { refundMemo: s.body.refundMemo } : {}),
      depositMin: s.quote.body.depositAmount,
      depositMax: s.quote.body.depositAmount,
      type: "fixed",
      quoteId: s.quote.id,
      depositAmount: s.quote.body.depositAmount,
      settleAmount: s.quote.settleAmount,
      expiresAt: new Date(s.quote.expiresAt).toISOString(),
      status,
      averageShiftSeconds: "60",
      rate: new Decimal(s.quote.settleAmount).div(s.quote.body.depositAmount).toSignificantDigits(12).toFixed(),
      ...(s.body.externalId ? { externalId: s.body.externalId } : {}),
      ...(deposited
        ? {
            updatedAt: new Date().toISOString(),
            depositHash: `ss-in-${s.id}`,
            depositReceivedAt: s.createdAt,
          }
        : {}),
      ...(settled ? { settleHash: `ss-out-${s.id}` } : {}),
      // Where a refund's hash appears is not documented: this fake puts it in settleHash (scripts may say refundHash).
      ...(refunded ? { settleHash: `ss-refund-${s.id}` } : {}),
      ...extra,
    };
  }

  private async readShift(id: string): Promise<Reply> {
    const s = this.shifts.get(id);
    if (!s) return this.err(404, "Shift not found");
    // The test has seen what the previous read made of the order before this read moves it on.
    await this.beforeRead?.(id);
    const step = s.script.next();
    if (isFault(step)) return faultReply(step.fault as Fault);
    let status = stepStatus(step);
    // A refund goes out only to a refund address: without one the shift waits in "refund".
    if ((status === "refunding" || status === "refunded") && !s.body.refundAddress) status = "refund";
    s.status = status;
    return { status: 200, body: this.shiftBody(s, status, stepFields(step)) };
  }

  /**
   * POST /shifts/{id}/set-refund-address {address, memo?}: answered 201 with the shift. Refused
   * as the API refuses: a missing address (400 BAD_USER_INPUT), the fake's invalid addresses
   * ("invalid..." prefix: "Invalid refundDestination"), SideShift's own ("sideshift..." prefix or
   * refusedRefundAddresses), a memo where the network has none, and a shift past taking one.
   */
  private setRefundAddress(id: string, r: RecordedRequest): Reply {
    const s = this.shifts.get(id);
    const b = (r.body ?? {}) as Record<string, any>;
    const call: SsRefundAddressCall = { shiftId: id, address: b.address, memo: b.memo, status: s?.status ?? "", answered: 0 };
    this.refundAddressCalls.push(call);
    const answer = (reply: Reply) => {
      call.answered = reply.status;
      return reply;
    };
    if (!s) return answer(this.err(404, "Shift not found"));
    if (typeof b.address !== "string" || !b.address)
      return answer(this.err(400, "Bad request: Invalid parameters: address", "BAD_USER_INPUT"));
    if (b.address.startsWith("invalid")) return answer(this.err(400, "Invalid refundDestination"));
    if (b.address.startsWith("sideshift") || this.refusedRefundAddresses.has(b.address))
      return answer(this.err(400, "This refund address belongs to SideShift.ai"));
    if (b.memo !== undefined && !this.memoNetworks.has(s.quote.body.depositNetwork))
      return answer(this.err(400, "Bad request: Invalid parameters: memo", "BAD_USER_INPUT"));
    if (!TAKES_REFUND_ADDRESS.has(s.status)) return answer(this.err(400, `Cannot update a shift in status ${s.status}`));
    s.body.refundAddress = b.address;
    if (b.memo !== undefined) s.body.refundMemo = b.memo;
    return answer({ status: 201, body: this.shiftBody(s, s.status, {}) });
  }
}

/** For startFakes (index.ts): how the server is pointed at this fake. */
export const fake: FakeProvider<FakeSideShift> = {
  create: () => new FakeSideShift(),
  env: (f) => ({
    SIDESHIFT_ENABLED: "true",
    SIDESHIFT_SECRET: f.secret,
    SIDESHIFT_AFFILIATE_ID: f.affiliateId,
    SIDESHIFT_API_URL: f.baseUrl,
  }),
  byDefault: true,
};
