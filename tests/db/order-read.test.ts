import { afterAll, beforeAll, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { applyStep } from "@/lib/orders/advance-order";
import { createOrder } from "@/lib/orders/create-order";
import { getOrderForCaller } from "@/lib/orders/get-order";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// On PostgreSQL, GET /exchange/{id} reads an order and its timeline in one raw statement
// (lib/orders/get-order.ts). It must give exactly what Prisma's include gives: every column
// with its type (money as exact decimal strings, times as Dates), the events in order.
let t: TempDb;
let db: Db;
beforeAll(async () => {
  t = await tempDatabase("postgres");
  db = t.db;
});
afterAll(() => t?.cleanup());

const prismaRead = (id: string) => db.order.findUniqueOrThrow({ where: { id }, include: { events: { orderBy: { id: "asc" } } } });

it("gives what Prisma's include gives, for a new order and one several steps on", async () => {
  const input = { from: "btc", to: "eth", amount: "0.1", address: "0x52908400098527886E0F7030069857D2E4169EE7" };
  const { order } = await createOrder(db, { input, caller: null, ctx: { scope: "read" } });
  expect(await getOrderForCaller(db, { orderId: order.id, caller: null })).toStrictEqual(await prismaRead(order.id));

  let o = await applyStep(db, order, { to: "confirming", amountReceived: "0.0999999999999", payinHash: "ab" }, new Date(Date.now() + 1));
  o = await applyStep(db, o!, { to: "exchanging" }, new Date(Date.now() + 2));
  await db.order.update({ where: { id: order.id }, data: { upstreamData: '{"k":1}', stateReason: "hold", fixedUntil: new Date(0) } });
  const read = await getOrderForCaller(db, { orderId: order.id.toUpperCase(), caller: null });
  expect(read).toStrictEqual(await prismaRead(order.id));
  expect(read.events.map((e) => e.status)).toEqual(["waiting", "confirming", "exchanging"]);
  expect(read.amountReceived).toBe("0.0999999999999");
});
