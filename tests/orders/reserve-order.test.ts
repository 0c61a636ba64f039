import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, driverOf, isUniqueViolation } from "@/lib/db/client";
import { createOrder } from "@/lib/orders/create-order";
import { reserveOrder } from "@/lib/orders/reserve-order";
import { newCaller } from "../support/callers";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// A reservation is one INSERT of every column (lib/orders/reserve-order.ts), on PostgreSQL's
// pool or as a raw statement on SQLite. It must store what Prisma's create stores (the schema's
// defaults for what the reservation leaves unset) and answer the row as stored.

const ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7";

describe.each(["sqlite", "postgres"] as const)("reserving an order (%s)", (kind) => {
  let t: TempDb;
  let db: Db;
  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(() => t?.cleanup());

  it("stores what Prisma's create stores, and answers the row as stored", async () => {
    const caller = await newCaller(db, 100);
    const opened = (
      await createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", address: ADDRESS }, caller, ctx: { scope: "t" } })
    ).order;
    const { id: _, payinAddress: __, ...rest } = await db.order.findUniqueOrThrow({ where: { id: opened.id } });
    // The same reservation twice: once through Prisma, once on the pool.
    const data = { ...rest, payinAddress: null, leaseToken: "x", leaseUntil: new Date(), idempotencyKey: null, idempotencyScope: null };
    const unset = {
      payinExtraId: undefined,
      amountReceived: undefined,
      payinHash: undefined,
      payoutHash: undefined,
      refundState: undefined,
      refundHash: undefined,
      refundAmount: undefined,
      failureReason: undefined,
      nextActionAt: undefined,
      attempts: undefined,
      lastError: undefined,
      provider: undefined,
      upstreamId: undefined,
      upstreamData: undefined,
      upstreamStatus: undefined,
      stateReason: undefined,
      stuckAt: undefined,
      depositedAt: undefined,
    };
    const viaPrisma = await db.order.create({ data: { ...data, ...unset, id: "prisma-reserved" } });
    const answered = await reserveOrder(db, { ...data, id: "pool-reserved" });
    const stored = await db.order.findUniqueOrThrow({ where: { id: "pool-reserved" } });
    expect(stored).toStrictEqual(answered);
    expect({ ...stored, id: null }).toStrictEqual({ ...viaPrisma, id: null });
    // And in the same form, as the driver sees it (SQLite: dates as text, compared as text in SQL).
    const bare = async (id: string) => {
      const d = driverOf(db);
      const r: Record<string, unknown> =
        d.kind === "sqlite"
          ? d.reader().prepare(`SELECT * FROM "Order" WHERE id = ?`).get(id)
          : (await d.pool.query(`SELECT * FROM "Order" WHERE id = $1`, [id])).rows[0];
      return { ...r, id: null };
    };
    expect(await bare("pool-reserved")).toStrictEqual(await bare("prisma-reserved"));
  });

  it("a taken Idempotency-Key is a unique violation, as through Prisma", async () => {
    const caller = await newCaller(db, 0);
    const input = { from: "btc", to: "eth", amount: "0.2", address: ADDRESS };
    const first = (await createOrder(db, { input, caller, ctx: { scope: "k" }, idempotencyKey: "same" })).order;
    const row = await db.order.findUniqueOrThrow({ where: { id: first.id } });
    const err = await reserveOrder(db, { ...row, id: "dup" }).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
  });
});
