import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCurrency, validateAddress } from "@/lib/currencies";
import type { Db, Order } from "@/lib/db/client";
import { groupCommitStats } from "@/lib/db/pg-group-commit";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { commitOpened, createOrder } from "@/lib/orders/create-order";
import { ORDER_COLUMN_TYPES, openOrderPostgres } from "@/lib/orders/open-order-postgres";
import { openOrderSqlite } from "@/lib/orders/open-order-sqlite";
import { openingPlan } from "@/lib/orders/opening";
import { createEndpoint, setEndpointEnabled } from "@/lib/webhooks/endpoints";
import { newCaller } from "../support/callers";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

const ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7";
const input = (amount: string) => ({ from: "btc", to: "eth", amount, address: ADDRESS });

// A new order is opened in one statement on PostgreSQL (lib/orders/open-order-postgres.ts) and
// in one synchronous transaction on SQLite (lib/orders/open-order-sqlite.ts), unless its
// reseller has a webhook endpoint. Each must leave what the general path leaves: the order
// opened and unclaimed, its first event, one pending ledger entry and the balance row.
// Each writes the opening's plan (lib/orders/opening.ts); tests/orders/opening-parity.test.ts
// holds every path's rows equal.
const OPENERS = { postgres: openOrderPostgres, sqlite: openOrderSqlite };

describe.each(["sqlite", "postgres"] as const)("opening an order in one step (%s)", (kind) => {
  let t: TempDb;
  let db: Db;
  const openInOne = (db: Db, order: Order, token: string | null, now: Date) => OPENERS[kind](db, openingPlan(order, token, now));
  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(() => t?.cleanup());

  const ledgerOf = (orderId: string) =>
    db.ledgerEntry.findMany({ where: { orderId }, select: { resellerId: true, currency: true, bucket: true, kind: true, amount: true } });

  // Without an Idempotency-Key a new order is inserted opened (no reservation); with one, its reservation is opened.
  it.each([
    ["a new order", null],
    ["a reserved order", "key"],
  ])("opens %s, writes its first event, its pending profit and the balance row; a second order adds to the balance", async (_, key) => {
    const caller = await newCaller(db, 150);
    const idem = (n: number) => (key === null ? null : `${key}-${n}`);
    const a = (await createOrder(db, { input: input("0.1"), caller, ctx: { scope: "t" }, idempotencyKey: idem(1) })).order;
    const b = (await createOrder(db, { input: input("0.25"), caller, ctx: { scope: "t" }, idempotencyKey: idem(2) })).order;
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

  // On PostgreSQL a reseller's openings that wait for one another's rows commit together
  // (lib/db/pg-group-commit.ts): what they write must add up as if each had run alone.
  it("opens a reseller's concurrent orders with every sum right, together in one commit on PostgreSQL", async () => {
    const caller = await newCaller(db, 150);
    const priced = (await createOrder(db, { input: input("0.2"), caller, ctx: { scope: "t" } })).order;
    const before = { ...groupCommitStats };
    const copies = Array.from(
      { length: 12 },
      (_, i): Order => ({ ...priced, id: `${priced.id.slice(0, -4)}c${String(i).padStart(3, "0")}` }),
    );
    expect(await Promise.all(copies.map((o) => openInOne(db, o, null, new Date())))).toEqual(copies.map(() => true));
    const profit = new D(priced.profit);
    expect(await getBalances(db, caller.resellerId)).toEqual([
      { currency: "eth", pending: profit.times(13).toFixed(), available: "0", reserved: "0" },
    ]);
    const daily = await db.ledgerDaily.findMany({ where: { resellerId: caller.resellerId } });
    expect(daily.map((d) => d.amount)).toEqual([profit.times(13).toFixed()]);
    const channel = await db.channelDaily.findMany({ where: { resellerId: caller.resellerId } });
    expect(channel.map((c) => c.orders)).toEqual([13]);
    expect(await db.orderEvent.count({ where: { orderId: { in: copies.map((o) => o.id) } } })).toBe(12);
    expect((await checkLedger(db)).violations).toEqual([]);
    // The first went alone; the eleven that waited for it, in one transaction.
    if (kind === "postgres") expect(groupCommitStats.batched - before.batched).toBe(11);
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

  // Each kind of opening has a statement of its own on PostgreSQL: a new order or a reserved
  // one, keyless or of a reseller (a keyless one writes no ledger rows). Each must apply in one step.
  it.each([
    ["a keyless new order", false, null],
    ["a keyless reserved order", false, "mine"],
    ["a reseller's new order", true, null],
    ["a reseller's reserved order", true, "mine"],
  ])("opens %s in one step", async (_, ofReseller, token) => {
    const caller = ofReseller ? await newCaller(db, 120) : null;
    const priced = (await createOrder(db, { input: input("0.3"), caller, ctx: { scope: "t" } })).order;
    const id = `${priced.id.slice(0, -4)}${token === null ? "cafe" : "f00d"}`;
    if (token !== null)
      await db.order.create({ data: { ...priced, id, payinAddress: null, leaseToken: token, leaseUntil: new Date(Date.now() + 60_000) } });
    const entries = await db.ledgerEntry.count();
    const opened: Order = { ...priced, id, payinAddress: "0xfeed", leaseToken: null, leaseUntil: null };
    expect(await openInOne(db, opened, token, new Date())).toBe(true);
    expect(await db.order.findUniqueOrThrow({ where: { id } })).toMatchObject({ payinAddress: "0xfeed", leaseToken: null });
    expect(await db.orderEvent.count({ where: { orderId: id } })).toBe(1);
    expect(await ledgerOf(id)).toEqual(
      ofReseller
        ? [{ resellerId: caller!.resellerId, currency: "eth", bucket: "pending", kind: "order_profit_pending", amount: priced.profit }]
        : [],
    );
    expect(await db.ledgerEntry.count()).toBe(entries + (ofReseller ? 1 : 0));
    expect((await checkLedger(db)).violations).toEqual([]);
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

  it("inserts a new order only while its provider exchange's intent is open, and marks it committed; a settled intent leaves no order, on either path", async () => {
    const caller = await newCaller(db, 100);
    const priced = (await createOrder(db, { input: input("0.1"), caller, ctx: { scope: "t" } })).order;
    const fresh = (suffix: string): Order => ({
      ...priced,
      id: `${priced.id.slice(0, -4)}${suffix}`,
      payinAddress: `0x${suffix}`,
      provider: "sideshift",
      upstreamId: `up-${suffix}`,
    });
    const intent = (o: Order, outcome: string | null) =>
      db.upstreamIntent.create({ data: { id: `i-${o.id}`, orderId: o.id, provider: "sideshift", upstreamId: o.upstreamId, outcome } });
    const counts = async () => ({ events: await db.orderEvent.count(), entries: await db.ledgerEntry.count() });

    const open = fresh("0a01");
    await intent(open, null);
    expect(await openInOne(db, open, null, new Date())).toBe(true);
    expect(await db.order.findUniqueOrThrow({ where: { id: open.id } })).toMatchObject({ payinAddress: "0x0a01", upstreamId: "up-0a01" });
    expect((await db.upstreamIntent.findUniqueOrThrow({ where: { id: `i-${open.id}` } })).outcome).toBe("committed");

    // Settled by the worker's recovery before the commit: abandoned, so nobody may be shown its address.
    const settled = fresh("0a02");
    await intent(settled, "abandoned");
    const before = await counts();
    expect(await openInOne(db, settled, null, new Date())).toBe(false);
    expect(await db.order.findUnique({ where: { id: settled.id } })).toBeNull();
    expect(await counts()).toEqual(before);
    // The general path (commitOpened) refuses it too, and leaves the intent as the recovery settled it.
    const swap = {
      payinAddress: "0x0a02",
      payinExtraId: null,
      firstCheckAfterMs: null,
      upstream: { provider: "sideshift", id: "up-0a02", data: null },
    };
    expect(await commitOpened(db, settled, null, swap, new Date())).toBeNull();
    expect(await db.order.findUnique({ where: { id: settled.id } })).toBeNull();
    expect((await db.upstreamIntent.findUniqueOrThrow({ where: { id: `i-${settled.id}` } })).outcome).toBe("abandoned");

    // An exchange with no intent written for it (an engine that records none) opens as before.
    const unrecorded = fresh("0a03");
    expect(await openInOne(db, unrecorded, null, new Date())).toBe(true);
    expect((await db.order.findUniqueOrThrow({ where: { id: unrecorded.id } })).payinAddress).toBe("0x0a03");
    // An order whose fields come in another order is its own statement (on PostgreSQL, a named
    // prepared statement may not change its text on a connection).
    const reordered = Object.fromEntries(Object.entries(fresh("0a04")).reverse()) as unknown as Order;
    expect(await openInOne(db, reordered, null, new Date())).toBe(true);
    expect((await db.order.findUniqueOrThrow({ where: { id: reordered.id } })).payinAddress).toBe("0x0a04");
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  it("does not insert a new order for a reseller with an enabled webhook endpoint, nor touch its intent: the general path announces it", async () => {
    const caller = await newCaller(db, 100);
    const priced = (await createOrder(db, { input: input("0.1"), caller, ctx: { scope: "t" } })).order;
    const o: Order = {
      ...priced,
      id: `${priced.id.slice(0, -4)}0b01`,
      payinAddress: "0x0b01",
      provider: "sideshift",
      upstreamId: "up-0b01",
    };
    await db.upstreamIntent.create({ data: { id: `i-${o.id}`, orderId: o.id, provider: "sideshift", upstreamId: "up-0b01" } });
    await createEndpoint(db, { resellerId: caller.resellerId, url: "https://example.com/hook", events: ["order.created"] });
    expect(await openInOne(db, o, null, new Date())).toBe(false);
    expect(await db.order.findUnique({ where: { id: o.id } })).toBeNull();
    expect((await db.upstreamIntent.findUniqueOrThrow({ where: { id: `i-${o.id}` } })).outcome).toBeNull();
    const swap = {
      payinAddress: "0x0b01",
      payinExtraId: null,
      firstCheckAfterMs: null,
      upstream: { provider: "sideshift", id: "up-0b01", data: null },
    };
    expect((await commitOpened(db, o, null, swap, new Date()))?.payinAddress).toBe("0x0b01");
    expect((await db.upstreamIntent.findUniqueOrThrow({ where: { id: `i-${o.id}` } })).outcome).toBe("committed");
    expect(await db.webhookMessage.count({ where: { resellerId: caller.resellerId, subject: o.id, type: "order.created" } })).toBe(1);
    expect(await db.orderEvent.count({ where: { orderId: o.id } })).toBe(1);
  });

  it.runIf(kind === "postgres")(
    "types every non-text column of Order as the schema does (a new order's insert casts its values)",
    async () => {
      const rows = await db.$queryRawUnsafe<{ column_name: string; udt_name: string }[]>(
        `SELECT column_name, udt_name FROM information_schema.columns WHERE table_name = 'Order' AND udt_name <> 'text'`,
      );
      expect(Object.fromEntries(rows.map((r) => [r.column_name, r.udt_name]))).toEqual(ORDER_COLUMN_TYPES);
    },
  );
});
