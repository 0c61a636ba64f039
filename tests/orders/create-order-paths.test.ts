import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db, Order } from "@/lib/db/client";
import { getEngine, type OpenedSwap } from "@/lib/engine";
import type { EngineContext } from "@/lib/engine/types";
import { D } from "@/lib/money/decimal";
import { createOrder } from "@/lib/orders/create-order";
import { resolveIntent } from "@/lib/orders/intents";
import { getEstimate } from "@/lib/quotes/get-estimate";
import { refusalOf } from "../support/app-error";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempSqlite, tracedStatements } from "../support/sqlite-db";

// createOrder's paths that the main order tests leave out (found by mutation testing): which
// outcome closes the provider exchange's intent, a new order whose intent a recovery settled
// first, whether a reserved order looks for an exchange someone else made, a replay that is
// answered before anything is priced again, the idempotency hash's extensions, and a takeover
// of a dead winner's claim by several replays at once. In-process on SQLite.

const ETH_ADDR = "0x52908400098527886E0F7030069857D2E4169EE7";
const ctx = { scope: "paths" };
const input = (over: Record<string, unknown> = {}) => ({ from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR, ...over });
settingsForTests({ ORDER_TTL_SECONDS: "3600", QUOTE_TTL_SECONDS: "60", FIXED_RATE_WINDOW_SECONDS: "1200", WORKER_LEASE_SECONDS: "30" });
let t: TempDb;
let db: Db;
beforeAll(async () => {
  t = await tempSqlite();
  db = t.db;
});
afterAll(() => t.cleanup());

const swapFor = (orderId: string): OpenedSwap => ({
  payinAddress: `deposit-of-${orderId}`,
  payinExtraId: null,
  firstCheckAfterMs: 1000,
  upstream: { provider: "sideshift", id: `shift-of-${orderId}`, data: null },
  expiresAt: new Date(Date.now() + 900_000),
});

/** Replaces openSwap for `fn` with one that records its intent like an upstream engine; `between` runs after the answer is recorded. */
async function withUpstream<T>(fn: (calls: () => number) => Promise<T>, between?: (intentId: string) => Promise<void>): Promise<T> {
  const engine = getEngine();
  const real = engine.openSwap;
  let calls = 0;
  engine.openSwap = async (req, c: EngineContext) => {
    calls++;
    const id = await c.intents!.creating({ orderId: req.orderId, provider: "sideshift", externalId: req.orderId });
    const swap = swapFor(req.orderId);
    await c.intents!.created(id, swap);
    if (between) await between(id);
    return swap;
  };
  try {
    return await fn(() => calls);
  } finally {
    engine.openSwap = real;
  }
}

describe("createOrder and the provider exchange's intent", () => {
  it("a reserved order (Idempotency-Key) that opens with its own exchange closes the intent as committed, not adopted", async () => {
    const { order } = await withUpstream(() => createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "own-1" }));
    expect(order.upstreamId).toBe(`shift-of-${order.id}`);
    expect(await db.upstreamIntent.findMany({ where: { orderId: order.id }, select: { outcome: true } })).toEqual([
      { outcome: "committed" },
    ]);
  });

  it("a new order whose intent a recovery settled before the commit is not written, and the request is told to retry", async () => {
    const before = await db.order.count();
    const refused = await withUpstream(
      () => refusalOf(createOrder(db, { input: input(), caller: null, ctx })),
      async (intentId) => {
        await resolveIntent(db, intentId, "abandoned");
      },
    );
    expect(refused).toEqual({
      code: "ENGINE_UNAVAILABLE",
      message: "The exchange engine could not open this order; send the request again.",
      details: undefined,
    });
    expect(await db.order.count()).toBe(before);
  });
});

describe("a reserved order looks for an exchange someone else made only when its claim may have been taken over", () => {
  const intentReads = (statements: string[]) => statements.filter((s) => s.includes("FROM `main`.`UpstreamIntent`")).length;
  it("a claim with more than half to run: no look; a claim reserved with less than half to run: one", async () => {
    const fresh = await tracedStatements(t.url, (traced) =>
      createOrder(traced, { input: input(), caller: null, ctx, idempotencyKey: "look-1" }),
    );
    expect(intentReads(fresh)).toBe(0);
    // Reserved at a "now" 20 s ago: its 30 s claim has 10 s to run, less than the engine's half.
    const late = await tracedStatements(t.url, (traced) =>
      createOrder(traced, { input: input(), caller: null, ctx, idempotencyKey: "look-2", now: new Date(Date.now() - 20_000) }),
    );
    expect(intentReads(late)).toBe(1);
  });
});

describe("replays", () => {
  it("a replay is answered with its order before anything is checked again (here: its fixed rate has expired since)", async () => {
    const now = new Date();
    const e = await getEstimate({ from: "btc", to: "eth", amount: "0.1", rateType: "fixed", markupBps: 0, ctx, db, resellerId: null, now });
    const body = input({ rateType: "fixed", rateId: e.rateId! });
    const first = await createOrder(db, { input: body, caller: null, ctx, idempotencyKey: "rp-1", now });
    const later = new Date(now.getTime() + 3_600_000);
    const again = await createOrder(db, { input: body, caller: null, ctx, idempotencyKey: "rp-1", now: later });
    expect(again).toMatchObject({ replayed: true, order: { id: first.order.id, rateId: e.rateId } });
  });

  it("a key reused with a toAmount or a rateId added (no rateType) is a conflict, not a replay of the plain request", async () => {
    const plain = await createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "rp-2" });
    expect(plain.replayed).toBe(false);
    for (const extra of [{ toAmount: "1" }, { rateId: "rate_000000000000000000000000" }])
      expect((await refusalOf(createOrder(db, { input: input(extra), caller: null, ctx, idempotencyKey: "rp-2" })))?.code).toBe(
        "IDEMPOTENCY_CONFLICT",
      );
  });

  it("replays that find a dead winner's expired claim at once: one of them takes it over, one exchange is made", async () => {
    const engine = getEngine();
    const real = engine.openSwap;
    let calls = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    // The winner's request dies after reserving: its engine call never answers. Every later call opens.
    engine.openSwap = async (req, c) => {
      calls++;
      if (calls > 1) return real.call(engine, req, c);
      await held;
      throw new Error("the winner died");
    };
    void createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "rp-3" }).catch(() => {});
    let o: Order | null = null;
    while (!o) {
      await new Promise((r) => setTimeout(r, 5));
      o = await db.order.findFirst({ where: { idempotencyKey: "rp-3" } });
    }
    await db.order.update({ where: { id: o.id }, data: { leaseUntil: new Date(Date.now() - 1000) } });
    try {
      const replays = await Promise.all(
        Array.from({ length: 5 }, () => createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "rp-3" })),
      );
      expect(new Set(replays.map((r) => r.order.payinAddress)).size).toBe(1);
      expect(replays.every((r) => r.replayed && r.order.id === o.id)).toBe(true);
      expect(calls).toBe(2); // the dead winner's, and the one takeover's
    } finally {
      release();
      engine.openSwap = real;
    }
    expect(new D((await db.order.findUniqueOrThrow({ where: { id: o.id } })).fromAmount).eq("0.1")).toBe(true);
  });
});
