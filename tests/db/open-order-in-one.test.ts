import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCurrency, validateAddress } from "@/lib/currencies";
import type { Db, Order } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { createOrder } from "@/lib/orders/create-order";
import { openOrderPostgres } from "@/lib/orders/open-order-postgres";
import { openOrderSqlite } from "@/lib/orders/open-order-sqlite";
import { createEndpoint, setEndpointEnabled } from "@/lib/webhooks/endpoints";
import { newCaller } from "../support/callers";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

const ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7";
const input = (amount: string) => ({ from: "btc", to: "eth", amount, address: ADDRESS });

// A new order is opened in one statement on PostgreSQL (lib/orders/open-order-postgres.ts) and
// in one synchronous transaction on SQLite (lib/orders/open-order-sqlite.ts), unless its
// reseller has a webhook endpoint. Each must leave what the general path leaves: the order
// opened and unclaimed, its first event, one pending ledger entry and the balance row.
const OPENERS = { postgres: openOrderPostgres, sqlite: openOrderSqlite };

describe.each(["sqlite", "postgres"] as const)("opening an order in one step (%s)", (kind) => {
  let t: TempDb;
  let db: Db;
  const openInOne = OPENERS[kind];
  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(() => t?.cleanup());

  const ledgerOf = (orderId: string) =>
    db.ledgerEntry.findMany({ where: { orderId }, select: { resellerId: true, currency: true, bucket: true, kind: true, amount: true } });

  it("opens the order, writes its first event, its pending profit and the balance row; a second order adds to the balance", async () => {
    const caller = await newCaller(db, 150);
    const a = (await createOrder(db, { input: input("0.1"), caller, ctx: { scope: "t" } })).order;
    const b = (await createOrder(db, { input: input("0.25"), caller, ctx: { scope: "t" } })).order;
    for (const o of [a, b]) {
      const row = await db.order.findUniqueOrThrow({ where: { id: o.id }, include: { events: true } });
      // What createOrder answered is what was stored.
      expect({ ...row, events: undefined }).toStrictEqual({ ...o, events: undefined });
      expect(validateAddress(getCurrency("btc")!, row.payinAddress!)).toBe(true);
      expect([row.leaseToken, row.leaseUntil]).toEqual([null, null]);
      expect(row.events.map((e) => [e.status, e.at.getTime()])).toEqual([["waiting", row.createdAt.getTime()]]);
      expect(new D(row.profit).gt(0)).toBe(true);
      expect(await ledgerOf(o.id)).toEqual([
        { resellerId: caller.resellerId, currency: "eth", bucket: "pending", kind: "order_profit_pending", amount: row.profit },
      ]);
    }
    expect(await getBalances(db, caller.resellerId)).toEqual([
      { currency: "eth", pending: new D(a.profit).plus(b.profit).toFixed(), available: "0", reserved: "0" },
    ]);
    // And the daily rollup row the general path keeps (lib/ledger/daily.ts).
    expect(await db.ledgerDaily.findMany({ where: { resellerId: caller.resellerId } })).toEqual([
      {
        resellerId: caller.resellerId,
        kind: "order_profit_pending",
        bucket: "pending",
        day: a.createdAt.toISOString().slice(0, 10),
        currency: "eth",
        amount: new D(a.profit).plus(b.profit).toFixed(),
      },
    ]);
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  it("posts nothing for a keyless order or a zero profit", async () => {
    const keyless = (await createOrder(db, { input: input("0.1"), caller: null, ctx: { scope: "t" } })).order;
    const zero = await newCaller(db, 0);
    const free = (await createOrder(db, { input: input("0.1"), caller: zero, ctx: { scope: "t" } })).order;
    for (const o of [keyless, free]) {
      expect((await db.order.findUniqueOrThrow({ where: { id: o.id } })).payinAddress).toBe(o.payinAddress);
      expect(await db.orderEvent.count({ where: { orderId: o.id } })).toBe(1);
      expect(await ledgerOf(o.id)).toEqual([]);
    }
    expect(await getBalances(db, zero.resellerId)).toEqual([]);
  });

  it("does not apply without the caller's claim, or for a reseller with a webhook endpoint (whose order.created the general path writes)", async () => {
    const caller = await newCaller(db, 100);
    // A reservation as createOrder makes it (no deposit yet, claimed with a token): a copy of a
    // priced order under a new id, with no event or entry of its own.
    const priced = (await createOrder(db, { input: input("0.1"), caller, ctx: { scope: "t" } })).order;
    const r: Order = await db.order.create({
      data: {
        ...priced,
        id: `${priced.id.slice(0, -4)}beef`,
        payinAddress: null,
        leaseToken: "mine",
        leaseUntil: new Date(Date.now() + 60_000),
      },
    });
    const before = {
      events: await db.orderEvent.count(),
      entries: await db.ledgerEntry.count(),
      balances: await getBalances(db, caller.resellerId),
    };
    const opened = { ...r, payinAddress: "0xdead", leaseToken: null, leaseUntil: null };
    expect(await openInOne(db, opened, "theirs", new Date())).toBe(false);
    expect((await db.order.findUniqueOrThrow({ where: { id: r.id } })).payinAddress).toBeNull();

    const { endpoint } = await createEndpoint(db, {
      resellerId: caller.resellerId,
      url: "https://example.com/hook",
      events: ["order.created"],
    });
    expect(await openInOne(db, opened, "mine", new Date())).toBe(false);
    expect((await db.order.findUniqueOrThrow({ where: { id: r.id } })).payinAddress).toBeNull();
    expect({
      events: await db.orderEvent.count(),
      entries: await db.ledgerEntry.count(),
      balances: await getBalances(db, caller.resellerId),
    }).toEqual(before);

    // A disabled endpoint announces nothing: the one statement applies, with the claim.
    await setEndpointEnabled(db, { resellerId: caller.resellerId, endpointId: endpoint.id, enabled: false });
    expect(await openInOne(db, opened, "mine", new Date())).toBe(true);
    expect(await db.order.findUniqueOrThrow({ where: { id: r.id } })).toMatchObject({
      payinAddress: "0xdead",
      leaseToken: null,
      leaseUntil: null,
    });
    expect(await db.orderEvent.count()).toBe(before.events + 1);
    expect(await ledgerOf(r.id)).toEqual([
      { resellerId: caller.resellerId, currency: "eth", bucket: "pending", kind: "order_profit_pending", amount: r.profit },
    ]);
    expect(await getBalances(db, caller.resellerId)).toEqual([
      { ...before.balances[0], pending: new D(before.balances[0].pending).plus(r.profit).toFixed() },
    ]);
    // Twice is refused: the deposit is set.
    expect(await openInOne(db, opened, "mine", new Date())).toBe(false);
    await setEndpointEnabled(db, { resellerId: caller.resellerId, endpointId: endpoint.id, enabled: true });

    // createOrder then opens it the general way, announcing it.
    const o = (await createOrder(db, { input: input("0.2"), caller, ctx: { scope: "t" } })).order;
    expect(await ledgerOf(o.id)).toHaveLength(1);
    expect(await db.webhookMessage.count({ where: { resellerId: caller.resellerId, subject: o.id, type: "order.created" } })).toBe(1);
    expect((await checkLedger(db)).violations).toEqual([]);
  });
});
