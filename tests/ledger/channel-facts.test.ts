import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { type OrderForLedger, recordPendingProfit, settleProfit } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { orderRow } from "../support/orders";
import { type TempDb, tempDatabase, tracedStatements } from "../support/sqlite-db";

// Settling an order's profit counts the order finished in the channel rollup (lib/ledger/
// channel-daily.ts) on its creation day, with its channel, source currency and amount: taken
// from the caller's copy of the order when it has all four (the worker's hot path: no read), and
// from the order's row when any is missing. SQLite, where the statements can be traced.

const CREATED = new Date("2026-10-01T08:00:00.000Z");
const ROW = { channel: "hosted", createdAt: CREATED, fromCurrency: "btc", fromAmount: "0.1" };

describe("the channel facts of a finishing order", () => {
  let t: TempDb;
  let db: Db;
  let n = 0;
  /** A reseller's waiting order with its pending profit; the ledger's copy of it, less `omit`. */
  const pendingOrder = async (omit?: keyof typeof ROW): Promise<OrderForLedger> => {
    const r = `cf${++n}`;
    await db.reseller.create({ data: { id: r, walletAddress: `0x${n.toString(16).padStart(40, "c")}` } });
    const id = `o-${r}`;
    await db.order.create({
      data: orderRow(id, { resellerId: r, rawToAmount: "2", toAmount: "1.97", markupBps: 150, profit: "0.03", expiresAt: CREATED, ...ROW }),
    });
    const order: OrderForLedger = { id, resellerId: r, toCurrency: "eth", rawToAmount: "2", platformFeeBps: 25, ...ROW };
    await db.$transaction((tx) => recordPendingProfit(tx, order, new D("0.03")));
    if (omit) delete order[omit];
    return order;
  };
  const readsOrder = (statements: string[]) => statements.some((q) => /SELECT .* FROM [`"]?(main[`"]?\.[`"]?)?Order[`"]? /.test(q));
  const finishedRow = async (resellerId: string) =>
    db.channelDaily.findMany({
      where: { resellerId, day: "2026-10-01" },
      select: { channel: true, currency: true, finished: true, volume: true },
    });

  beforeAll(async () => {
    t = await tempDatabase("sqlite");
    db = t.db;
  });
  afterAll(async () => t.cleanup());

  it("with the caller's copy complete, the order is not read", async () => {
    const order = await pendingOrder();
    const statements = await tracedStatements(t.url, (traced) => traced.$transaction((tx) => settleProfit(tx, order, new D("0.03"))));
    expect(readsOrder(statements)).toBe(false);
    expect(await finishedRow(order.resellerId!)).toEqual([{ channel: "hosted", currency: "btc", finished: 1, volume: "0.1" }]);
  });

  it.each(Object.keys(ROW) as (keyof typeof ROW)[])("without %s in the caller's copy, the order's row gives the facts", async (omit) => {
    const order = await pendingOrder(omit);
    const statements = await tracedStatements(t.url, (traced) => traced.$transaction((tx) => settleProfit(tx, order, new D("0.03"))));
    expect(readsOrder(statements)).toBe(true);
    expect(await finishedRow(order.resellerId!)).toEqual([{ channel: "hosted", currency: "btc", finished: 1, volume: "0.1" }]);
  });
});
