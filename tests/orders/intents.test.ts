import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db, Order } from "@/lib/db/client";
import { getEngine, type OpenedSwap } from "@/lib/engine";
import type { EngineContext } from "@/lib/engine/types";
import { getBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { createOrder } from "@/lib/orders/create-order";
import { recoverIntents } from "@/lib/orders/recover-intents";
import { newCaller } from "../support/callers";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempSqlite } from "../support/sqlite-db";

// Intents around the upstream create (issue 31, lib/orders/intents.ts), in-process on SQLite:
// the engine's openSwap is replaced by one that does what an upstream engine does with the
// hooks and then "dies" at a chosen point (its promise never settles, like a killed process),
// and the worker's recovery runs once the dead request's claim is over.

const ETH_ADDR = "0x52908400098527886E0F7030069857D2E4169EE7";
settingsForTests({ WORKER_LEASE_SECONDS: "30", ORDER_TTL_SECONDS: "3600", QUOTE_TTL_SECONDS: "60" });
let t: TempDb;
let db: Db;

beforeAll(async () => {
  t = await tempSqlite();
  db = t.db;
});
afterAll(async () => {
  await t.cleanup();
});

const swapFor = (orderId: string): OpenedSwap => ({
  payinAddress: `deposit-of-${orderId}`,
  payinExtraId: null,
  firstCheckAfterMs: 1000,
  upstream: { provider: "sideshift", id: `shift-of-${orderId}`, data: null },
  expiresAt: new Date(Date.now() + 900_000),
});

type DieAt = "before create" | "create in flight" | "answer recorded" | "never";
const never = new Promise<never>(() => {});

/** Replaces openSwap: records the intent like the providers engine, then stops at `dieAt`. */
function upstreamThatDies(dieAt: DieAt, opts: { refuse?: boolean } = {}) {
  const engine = getEngine();
  const real = engine.openSwap.bind(engine);
  engine.openSwap = async (req, ctx: EngineContext) => {
    if (dieAt === "before create") return never;
    const id = await ctx.intents!.creating({ orderId: req.orderId, provider: "sideshift", externalId: req.orderId });
    if (opts.refuse) {
      await ctx.intents!.notCreated(id);
      throw new Error("refused");
    }
    if (dieAt === "create in flight") return never;
    const swap = swapFor(req.orderId);
    await ctx.intents!.created(id, swap);
    if (dieAt === "answer recorded") return never;
    return swap;
  };
  return () => {
    engine.openSwap = real;
  };
}

async function reservation(key: string): Promise<Order> {
  for (;;) {
    const o = await db.order.findFirst({ where: { idempotencyKey: key } });
    const i = o && (await db.upstreamIntent.findFirst({ where: { orderId: o.id } }));
    if (o && i) return o;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The worker's recovery, later than the dead request's claim and the intents' settling time. */
const recoverLater = () => recoverIntents(db, new Date(Date.now() + 61_000));

describe("intents: what a dead opening request leaves is adopted or recorded", () => {
  it("the order commits: its intent is closed as committed, and the recovery leaves it alone", async () => {
    const restore = upstreamThatDies("never");
    try {
      const { order } = await createOrder(db, {
        input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR },
        caller: null,
        ctx: { scope: "i1" },
      });
      expect(order.payinAddress).toBe(`deposit-of-${order.id}`);
      const [i] = await db.upstreamIntent.findMany({ where: { orderId: order.id } });
      expect(i).toMatchObject({ provider: "sideshift", externalId: order.id, upstreamId: `shift-of-${order.id}`, outcome: "committed" });
    } finally {
      restore();
    }
  });

  it("the answer was recorded, the commit never came: the recovery opens the order with that exchange", async () => {
    const caller = await newCaller(db, 100);
    const restore = upstreamThatDies("answer recorded");
    try {
      void createOrder(db, {
        input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR },
        caller,
        ctx: { scope: "i2" },
        idempotencyKey: "adopt",
      });
      const o = await reservation("adopt");
      await waitFor(async () => (await db.upstreamIntent.findFirst({ where: { orderId: o.id } }))?.opened != null);
      expect(await recoverIntents(db, new Date())).toBe(0); // the request's claim still holds
      expect(await recoverLater()).toBe(1);
      const adopted = await db.order.findUniqueOrThrow({ where: { id: o.id } });
      expect(adopted).toMatchObject({
        payinAddress: `deposit-of-${o.id}`,
        provider: "sideshift",
        upstreamId: `shift-of-${o.id}`,
        leaseToken: null,
      });
      expect((await db.upstreamIntent.findFirstOrThrow({ where: { orderId: o.id } })).outcome).toBe("adopted");
      // Opened like any order: its first event and the reseller's pending profit.
      expect(await db.orderEvent.count({ where: { orderId: o.id } })).toBe(1);
      expect(new D((await getBalances(db, caller.resellerId))[0].pending).eq(o.profit)).toBe(true);
    } finally {
      restore();
    }
  });

  it("an order opened by its own request reads no intents when its engine made no provider exchange, reserved (its claim fresh) or not", async () => {
    // A database without the intents table: any statement on it fails, so the creation
    // succeeding shows the opening made none (the simulated engine records no intents).
    const bare = await tempSqlite();
    try {
      await bare.db.$executeRawUnsafe(`ALTER TABLE "UpstreamIntent" RENAME TO "UpstreamIntentGone"`);
      for (const idempotencyKey of [null, "fresh"]) {
        const made = await createOrder(bare.db, {
          input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR },
          caller: null,
          ctx: { scope: "i-fresh" },
          idempotencyKey,
        });
        expect(made.order.payinAddress).toEqual(expect.any(String));
      }
      expect(await bare.db.order.count({ where: { payinAddress: { not: null } } })).toBe(2);
    } finally {
      await bare.cleanup();
    }
  });

  it("a retry with the Idempotency-Key after the claim ran out adopts the recorded exchange instead of making a second", async () => {
    const restore = upstreamThatDies("answer recorded");
    let calls = 0;
    try {
      void createOrder(db, {
        input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR },
        caller: null,
        ctx: { scope: "i3" },
        idempotencyKey: "retry",
      });
      const o = await reservation("retry");
      await waitFor(async () => (await db.upstreamIntent.findFirst({ where: { orderId: o.id } }))?.opened != null);
      await db.order.update({ where: { id: o.id }, data: { leaseUntil: new Date(Date.now() - 1000) } });
      const engine = getEngine();
      const dying = engine.openSwap;
      engine.openSwap = (req, ctx) => {
        calls++;
        return dying(req, ctx);
      };
      const again = await createOrder(db, {
        input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR },
        caller: null,
        ctx: { scope: "i3" },
        idempotencyKey: "retry",
      });
      expect(again).toMatchObject({ replayed: true, order: { id: o.id, payinAddress: `deposit-of-${o.id}` } });
      expect(calls).toBe(0);
      expect((await db.upstreamIntent.findFirstOrThrow({ where: { orderId: o.id } })).outcome).toBe("adopted");
    } finally {
      restore();
    }
  });

  it("the create was in flight: the intent is recorded as unknown, under the external id; the order stays unopened (the worker drops it)", async () => {
    const restore = upstreamThatDies("create in flight");
    try {
      void createOrder(db, {
        input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR },
        caller: null,
        ctx: { scope: "i4" },
        idempotencyKey: "inflight",
      });
      const o = await reservation("inflight");
      expect(await recoverLater()).toBe(1);
      expect(await db.upstreamIntent.findFirstOrThrow({ where: { orderId: o.id } })).toMatchObject({
        outcome: "unknown",
        externalId: o.id,
        upstreamId: null,
      });
      expect((await db.order.findUniqueOrThrow({ where: { id: o.id } })).payinAddress).toBeNull();
    } finally {
      restore();
    }
  });

  it("a refusal closes the intent as not created; an exchange whose order is gone is abandoned", async () => {
    const restore = upstreamThatDies("never", { refuse: true });
    try {
      await expect(
        createOrder(db, {
          input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR },
          caller: null,
          ctx: { scope: "i5" },
          idempotencyKey: "refused",
        }),
      ).rejects.toThrow("refused");
      const [i] = await db.upstreamIntent.findMany({ where: { externalId: { not: null }, outcome: "not_created" } });
      expect(i).toBeTruthy();
    } finally {
      restore();
    }
    // An answer recorded for an order whose reservation was dropped (e.g. the fixed rate no longer held).
    await db.upstreamIntent.create({
      data: {
        id: "orphan1",
        orderId: "gone",
        provider: "sideshift",
        externalId: "gone",
        upstreamId: "shift-gone",
        opened: null,
        createdAt: new Date(Date.now() - 120_000),
      },
    });
    await recoverLater();
    expect((await db.upstreamIntent.findUniqueOrThrow({ where: { id: "orphan1" } })).outcome).toBe("abandoned");
  });
});

async function waitFor(cond: () => Promise<boolean>) {
  for (let i = 0; !(await cond()); i++) {
    if (i > 20_000) throw new Error("condition never held");
    await new Promise((r) => setTimeout(r, 5));
  }
}
