import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, driverOf } from "@/lib/db/client";
import { sqliteDate } from "@/lib/db/sqlite-direct";
import { applyStep } from "@/lib/orders/advance-order";
import { createOrder } from "@/lib/orders/create-order";
import { getOrderForCaller } from "@/lib/orders/get-order";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// GET /exchange/{id} reads an order and its timeline on the bare driver (lib/orders/get-order.ts).
// It must give exactly what Prisma's include gives: every column with its type (money as exact
// decimal strings, times as Dates), the events in order; also for values stored in the ways
// Prisma reads but our own writes never make (SQLite dates as CURRENT_TIMESTAMP text or epoch
// ms, PostgreSQL NUMERIC with trailing zeros).
const input = { from: "btc", to: "eth", amount: "0.1", address: "0x52908400098527886E0F7030069857D2E4169EE7" };

describe.each(["sqlite", "postgres"] as const)("%s", (kind) => {
  let t: TempDb;
  let db: Db;
  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(() => t?.cleanup());

  const prismaRead = (id: string) => db.order.findUniqueOrThrow({ where: { id }, include: { events: { orderBy: { id: "asc" } } } });

  it("gives what Prisma's include gives, for a new order and one several steps on", async () => {
    const { order } = await createOrder(db, { input, caller: null, ctx: { scope: "read" } });
    expect(await getOrderForCaller(db, { orderId: order.id, caller: null })).toStrictEqual(await prismaRead(order.id));

    let o = await applyStep(db, order, { to: "confirming", amountReceived: "0.0999999999999", payinHash: "ab" }, new Date(Date.now() + 1));
    o = await applyStep(db, o!, { to: "exchanging" }, new Date(Date.now() + 2));
    await db.order.update({ where: { id: order.id }, data: { upstreamData: '{"k":1}', stateReason: "hold", fixedUntil: new Date(0) } });
    const read = await getOrderForCaller(db, { orderId: order.id.toUpperCase(), caller: null });
    expect(read).toStrictEqual(await prismaRead(order.id));
    expect(read.events.map((e) => e.status)).toEqual(["waiting", "confirming", "exchanging"]);
    expect(read.amountReceived).toBe("0.0999999999999");
    expect(read.fixedUntil).toEqual(new Date(0));
  });

  it("reads values stored in other forms as Prisma does", async () => {
    const { order } = await createOrder(db, { input, caller: null, ctx: { scope: "read-forms" } });
    if (kind === "sqlite") {
      // Zone-less text is UTC; epoch ms; a "+HH" zone; a date alone.
      await db.$executeRawUnsafe(
        `UPDATE "Order" SET "createdAt" = '2026-11-23 08:00:01', "updatedAt" = '2026-11-23T08:00:02.5',
           "depositedAt" = 1795000000123, "stuckAt" = '2026-11-23T10:00:03+02', "fixedUntil" = '2026-11-24' WHERE "id" = ?`,
        order.id,
      );
      await db.$executeRawUnsafe(`UPDATE "OrderEvent" SET "at" = '2026-11-23 08:00:04' WHERE "orderId" = ?`, order.id);
    } else {
      await db.$executeRawUnsafe(
        `UPDATE "Order" SET "fromAmount" = 0.100000, "toAmount" = 12.50, "profit" = 0.000, "amountReceived" = 100.0,
           "createdAt" = '2026-11-23 08:00:01' WHERE "id" = $1`,
        order.id,
      );
    }
    const tz = process.env.TZ;
    process.env.TZ = "America/New_York"; // a zone-less time must not be read as local time
    try {
      const read = await getOrderForCaller(db, { orderId: order.id, caller: null });
      expect(read).toStrictEqual(await prismaRead(order.id));
      expect(read.createdAt.toISOString()).toBe("2026-11-23T08:00:01.000Z");
      if (kind === "sqlite") {
        expect(read.stuckAt?.toISOString()).toBe("2026-11-23T08:00:03.000Z");
        expect(read.events[0].at.toISOString()).toBe("2026-11-23T08:00:04.000Z");
      } else {
        expect([read.fromAmount, read.toAmount, read.profit, read.amountReceived]).toEqual(["0.1", "12.5", "0", "100"]);
      }
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it("gives null for an id that is not there, and leaves the reader out of any transaction", async () => {
    await expect(getOrderForCaller(db, { orderId: "0".repeat(24), caller: null })).rejects.toMatchObject({ code: "ORDER_NOT_FOUND" });
    const driver = driverOf(db);
    if (driver.kind === "sqlite") expect(driver.reader().inTransaction).toBe(false);
  });
});

describe("sqliteDate", () => {
  it.each([
    ["2026-11-23T08:00:01.234+00:00", "2026-11-23T08:00:01.234Z"],
    ["2026-11-23T08:00:01.234Z", "2026-11-23T08:00:01.234Z"],
    ["2026-11-23 08:00:01", "2026-11-23T08:00:01.000Z"],
    ["2026-11-23T09:30:01-01:30", "2026-11-23T11:00:01.000Z"],
    ["2026-11-23T10:00:01+02", "2026-11-23T08:00:01.000Z"],
    ["2026-11-23T13:30:01+0530", "2026-11-23T08:00:01.000Z"],
    ["2026-11-23", "2026-11-23T00:00:00.000Z"],
  ])("%s", (text, iso) => expect(sqliteDate(text)?.toISOString()).toBe(iso));
  it("numbers, null and undefined", () => {
    expect(sqliteDate(0)?.toISOString()).toBe("1970-01-01T00:00:00.000Z");
    expect(sqliteDate(1_795_420_801_234n)?.toISOString()).toBe("2026-11-23T08:00:01.234Z"); // an INTEGER read as a BigInt
    expect(sqliteDate(null)).toBeNull();
    expect(sqliteDate(undefined)).toBeNull();
  });
});
