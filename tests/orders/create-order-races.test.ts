import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCurrency } from "@/lib/currencies";
import type { Db, Order } from "@/lib/db/client";
import { applyRate } from "@/lib/domain/quote-math";
import { getEngine, type OpenedSwap } from "@/lib/engine";
import type { Caller } from "@/lib/keys/api-keys";
import { getBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { applyStep } from "@/lib/orders/advance-order";
import { createOrder } from "@/lib/orders/create-order";
import { listOrders } from "@/lib/orders/get-order";
import { flagStuckOrders, listStuckOrders } from "@/lib/orders/stuck";
import { getEstimate } from "@/lib/quotes/get-estimate";
import { refusalOf } from "../support/app-error";
import { newCaller as makeCaller } from "../support/callers";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempSqlite } from "../support/sqlite-db";

// createOrder's races and compatibility promises, and the corners of a step and a listing that
// the main order tests leave out (each found by mutation testing, issue 9), in-process on SQLite.

const ETH_ADDR = "0x52908400098527886E0F7030069857D2E4169EE7";
const ctx = { scope: "races" };
const input = (over: Record<string, unknown> = {}) => ({ from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR, ...over });
settingsForTests({
  ORDER_TTL_SECONDS: "3600",
  QUOTE_TTL_SECONDS: "60",
  SIM_STEP_SECONDS: "3",
  WORKER_LEASE_SECONDS: "30",
  SIM_AUTO_DEPOSIT_SECONDS: undefined,
  SIM_STEP_DELAY_MS: undefined,
});
let t: TempDb;
let db: Db;

const newCaller = (markupBps = 100) => makeCaller(db, markupBps);

/** Replaces the engine's openSwap for one test; `gate` holds the first call until released. */
function holdFirstOpen(opts: { failFirst?: boolean } = {}) {
  const engine = getEngine();
  const real = engine.openSwap.bind(engine);
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let calls = 0;
  engine.openSwap = async (req, c): Promise<OpenedSwap> => {
    if (++calls === 1) {
      await gate;
      if (opts.failFirst) throw new Error("engine fell over");
    }
    return real(req, c);
  };
  return { release, calls: () => calls, restore: () => (engine.openSwap = real) };
}

async function reservationOf(key: string): Promise<Order> {
  for (let i = 0; i < 200; i++) {
    const o = await db.order.findFirst({ where: { idempotencyKey: key } });
    if (o) return o;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`no reservation for ${key}`);
}

beforeAll(async () => {
  t = await tempSqlite();
  db = t.db;
});
afterAll(async () => {
  await t.cleanup();
});

describe("idempotency races", () => {
  it("a winner whose claim expired mid-call and was taken over answers with the order the taker opened", async () => {
    const caller = await newCaller();
    const hold = holdFirstOpen();
    try {
      const winner = createOrder(db, { input: input(), caller, ctx, idempotencyKey: "slow-winner" });
      const reserved = await reservationOf("slow-winner");
      // The winner's claim runs out while its engine call hangs; a retry takes the opening over.
      await db.order.update({ where: { id: reserved.id }, data: { leaseUntil: new Date(Date.now() - 1000) } });
      const taker = await createOrder(db, { input: input(), caller, ctx, idempotencyKey: "slow-winner" });
      expect(taker).toMatchObject({ replayed: true, order: { id: reserved.id } });
      hold.release();
      const late = await winner;
      expect(late.order.id).toBe(reserved.id);
      expect(late.order.payinAddress).toBe(taker.order.payinAddress);
      expect(hold.calls()).toBe(2);
    } finally {
      hold.restore();
    }
    // Opened once: one first event, one pending profit.
    expect(await db.orderEvent.count({ where: { orderId: (await reservationOf("slow-winner")).id } })).toBe(1);
    expect((await getBalances(db, caller.resellerId))[0].pending).toBe((await reservationOf("slow-winner")).profit);
  });

  it("a request waiting on a winner whose engine call fails is told to send it again", async () => {
    const hold = holdFirstOpen({ failFirst: true });
    try {
      const winner = createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "doomed" });
      await reservationOf("doomed");
      const waiter = createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "doomed" });
      await new Promise((r) => setTimeout(r, 60));
      hold.release();
      await expect(winner).rejects.toThrow("engine fell over");
      expect(await refusalOf(waiter)).toEqual({
        code: "ENGINE_UNAVAILABLE",
        message: "The exchange engine could not open this order; send the request again.",
        details: undefined,
      });
    } finally {
      hold.restore();
    }
    expect(await db.order.count({ where: { idempotencyKey: "doomed" } })).toBe(0);
  });
});

describe("the stored request hash", () => {
  // An Idempotency-Key outlives a release: a client retrying across an upgrade must still match
  // the hash stored for its first request. The stored form, which may never change: SHA-256 of
  // the JSON array [from, to, amount, address, extraId, refundAddress, refundExtraId] (tickers
  // lower-cased, texts trimmed, blanks null), and only when an extension is used, three more:
  // [toAmount, rateType, rateId].
  const sha256 = (v: unknown[]) => crypto.createHash("sha256").update(JSON.stringify(v)).digest("hex");
  const hashOf = async (key: string, over: Record<string, unknown>) =>
    (await createOrder(db, { input: input(over), caller: null, ctx, idempotencyKey: key })).order.requestHash;

  it("of a spec-only request: case, spaces and blank extra ids aside", async () => {
    const h = await hashOf("h-spec", {
      from: "BTC",
      to: "Eth",
      amount: " 0.1 ",
      address: ` ${ETH_ADDR} `,
      extraId: " ",
      refundAddress: null,
    });
    expect(h).toBe(sha256(["btc", "eth", "0.1", ETH_ADDR, null, null, null]));
  });

  it("of a request using the extensions", async () => {
    expect(await hashOf("h-fixed", { amount: undefined, toAmount: " 1.5 ", rateType: "fixed" })).toBe(
      sha256(["btc", "eth", null, ETH_ADDR, null, null, null, "1.5", "fixed", null]),
    );
    expect(await hashOf("h-floating", { rateType: "floating" })).toBe(
      sha256(["btc", "eth", "0.1", ETH_ADDR, null, null, null, null, "floating", null]),
    );
    const e = await getEstimate({ from: "btc", to: "eth", amount: "0.1", rateType: "fixed", markupBps: 0, ctx, db, resellerId: null });
    expect(await hashOf("h-rate", { rateType: "fixed", rateId: e.rateId })).toBe(
      sha256(["btc", "eth", "0.1", ETH_ADDR, null, null, null, null, "fixed", e.rateId]),
    );
  });
});

describe("fixed rates without a key", () => {
  it("a keyless caller takes its own keyless fixed quote", async () => {
    const e = await getEstimate({ from: "btc", to: "eth", amount: "0.1", rateType: "fixed", markupBps: 0, ctx, db, resellerId: null });
    const { order } = await createOrder(db, { input: input({ rateType: "fixed", rateId: e.rateId }), caller: null, ctx });
    expect(order).toMatchObject({ rateType: "fixed", rateId: e.rateId, toAmount: e.toAmount.toFixed(), resellerId: null });
  });
});

describe("a step's corners", () => {
  const fresh = async (caller: Caller | null = null) => (await createOrder(db, { input: input(), caller, ctx })).order;

  it("a step that says nothing of the deposit or its hash keeps what the order has", async () => {
    const o = await fresh();
    const c = await applyStep(db, o, { to: "confirming", amountReceived: "0.1", payinHash: "ab" });
    const x = await applyStep(db, c!, { to: "exchanging" });
    expect(x).toMatchObject({ amountReceived: "0.1", payinHash: "ab" });
  });

  it("keeps an upstream engine's firm amounts when the quoted deposit arrives and the rate is unchanged", async () => {
    const o = await fresh();
    // A firm quote may differ from our own math; the exchange starting must not recompute it.
    await db.order.update({ where: { id: o.id }, data: { toAmount: "3.3", rawToAmount: "3.3", profit: "0" } });
    const c = await applyStep(
      db,
      { ...o, toAmount: "3.3", rawToAmount: "3.3", profit: "0" },
      { to: "confirming", amountReceived: o.fromAmount },
    );
    const x = await applyStep(db, c!, { to: "exchanging" });
    expect(x).toMatchObject({ toAmount: "3.3", rawToAmount: "3.3", profit: "0" });
  });

  it("prices a different deposit at the destination's own precision", async () => {
    const caller = await newCaller(150);
    const xrp = getCurrency("xrp")!;
    const o = (await createOrder(db, { input: input({ to: "xrp", address: "rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY" }), caller, ctx })).order;
    const c = await applyStep(db, o, { to: "confirming", amountReceived: "0.0512345" });
    const x = await applyStep(db, c!, { to: "exchanging" });
    const q = applyRate(new D("0.0512345"), new D(o.rate), xrp.precision, 150);
    expect(xrp.precision).not.toBe(8);
    expect(x).toMatchObject({ toAmount: q.toAmount.toFixed(), rawToAmount: q.rawToAmount.toFixed(), profit: q.profit.toFixed() });
  });

  it("the profit stays pending through every open state", async () => {
    const caller = await newCaller(100);
    let o: Order | null = await fresh(caller);
    for (const step of [
      { to: "confirming" as const, amountReceived: o.fromAmount },
      { to: "exchanging" as const },
      { to: "sending" as const },
    ]) {
      o = await applyStep(db, o!, step);
      expect((await getBalances(db, caller.resellerId))[0]).toMatchObject({ pending: o!.profit, available: "0" });
    }
  });
});

describe("listings", () => {
  it("finds an order by an upper-case id prefix, and breaks ties of creation time by id (newest first: id descending, the keyset's order)", async () => {
    const caller = await newCaller();
    const now = new Date("2026-11-22T08:00:00.000Z");
    const made: string[] = [];
    for (let i = 0; i < 6; i++) made.push((await createOrder(db, { input: input(), caller, ctx, now })).order.id);
    const all = await listOrders(db, { resellerId: caller.resellerId });
    expect(all.orders.map((o) => o.id)).toEqual([...made].sort().reverse());
    const found = await listOrders(db, { resellerId: caller.resellerId, search: made[0].slice(0, 10).toUpperCase() });
    expect(found.orders.map((o) => o.id)).toEqual([made[0]]);
  });

  it("stuck orders: listed oldest first, and no longer once they end", async () => {
    const now = new Date("2026-11-22T20:00:00.000Z");
    const mk = async (minutesAgo: number, status: string) => {
      const o = (await createOrder(db, { input: input(), caller: null, ctx, now: new Date(now.getTime() - minutesAgo * 60_000) })).order;
      await db.order.update({ where: { id: o.id }, data: { provider: "list", upstreamId: `u-${o.id}`, status } });
      return o.id;
    };
    // Created in this order, so that neither insertion nor state order is the age order.
    const young = await mk(90, "confirming");
    const old = await mk(300, "waiting");
    const middle = await mk(200, "sending");
    await flagStuckOrders(db, { now, afterMinutes: 60 });
    const listed = async () => (await listStuckOrders(db)).filter((o) => o.provider === "list").map((o) => o.id);
    expect(await listed()).toEqual([old, middle, young]);
    await db.order.update({ where: { id: middle }, data: { status: "finished" } });
    expect(await listed()).toEqual([old, young]);
  });
});
