import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getCurrency } from "@/lib/currencies";
import { getEarningsSeries } from "@/lib/dashboard/earnings";
import { getResellerOrder, listResellerOrders } from "@/lib/dashboard/orders";
import { getOverview } from "@/lib/dashboard/overview";
import type { Db, Order } from "@/lib/db/client";
import { type Caller, createApiKey } from "@/lib/keys/api-keys";
import { post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { createOrder } from "@/lib/orders/create-order";
import { reportSandboxDeposit } from "@/lib/orders/report-deposit";
import { getOrCreateReseller, setMarkup } from "@/lib/resellers/resellers";
import { runWorkerOnce } from "@/lib/worker/run-worker";
import { queryPlan, tempSqlite, tracedStatements } from "../support/sqlite-db";

// The dashboard's read models on a real SQLite database, fed by the same service functions
// the API and the worker use (create, sandbox deposit, worker steps post the ledger). Every
// figure is recomputed here from the orders themselves, so a read model that drops, zeroes
// or misdates a posting fails.

let db: Db;
let url: string;
let cleanup: () => Promise<void>;
const DAY = 86_400_000;
const ETH_USD = getCurrency("eth")!.priceUsd;
const BTC_USD = getCurrency("btc")!.priceUsd;

beforeAll(async () => {
  ({ db, url, cleanup } = await tempSqlite());
});
afterAll(() => cleanup());
afterEach(() => vi.useRealTimers());

/** Runs `fn` with the clock (and so every row's createdAt) at `at`. */
async function at<T>(when: Date, fn: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(when);
  try {
    return await fn();
  } finally {
    vi.useRealTimers();
  }
}

async function newReseller(markupBps: number): Promise<Caller> {
  const r = await getOrCreateReseller(db, { walletAddress: `0x${crypto.randomBytes(20).toString("hex")}` });
  await setMarkup(db, { resellerId: r.id, markupBps });
  const { apiKey } = await createApiKey(db, { resellerId: r.id, name: "test" });
  return { resellerId: r.id, apiKeyId: apiKey.id, markupBps };
}

const ethAddress = () => `0x${"ab".repeat(20)}`;

function order(caller: Caller, input: { from: string; to: string; amount: string }) {
  const address = input.to === "eth" ? ethAddress() : "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
  return createOrder(db, { input: { ...input, address }, caller, ctx: { scope: `reseller:${caller.resellerId}` } }).then((r) => r.order);
}

/** Deposit (the quoted amount unless given) and let the worker take every step; returns the final order. */
async function settle(o: Order, caller: Caller, amount?: string): Promise<Order> {
  await reportSandboxDeposit(db, { orderId: o.id, caller, amount });
  for (let i = 0; i < 20; i++) {
    const now = await db.order.findUniqueOrThrow({ where: { id: o.id } });
    if (now.status === "finished" || now.status === "failed") return now;
    await runWorkerOnce(db, new Date(Date.now() + 60_000 * (i + 1)));
  }
  throw new Error(`order ${o.id} did not settle`);
}

const usd = (amount: string, price: string) => usdValue(amount, price)!.toFixed();

describe("overview", () => {
  it("balances, USD totals and order counts come from the ledger and the orders, for this reseller only", async () => {
    const me = await newReseller(150);
    const other = await newReseller(300);
    const done = await settle(await order(me, { from: "btc", to: "eth", amount: "0.1" }), me);
    const waiting = await order(me, { from: "btc", to: "eth", amount: "0.2" });
    const failed = await settle(await order(me, { from: "btc", to: "eth", amount: "0.1" }), me, "0.00000001");
    await settle(await order(other, { from: "btc", to: "eth", amount: "0.3" }), other);
    expect([done.status, failed.status]).toEqual(["finished", "failed"]);

    const o = await getOverview(db, { resellerId: me.resellerId, days: 30 });
    // Available: the profit of the finished order; pending: the waiting one's; the failed one's is reversed.
    expect(o.balances).toEqual([
      {
        currency: "eth",
        available: done.profit,
        pending: waiting.profit,
        reserved: "0",
        availableUsd: usd(done.profit, ETH_USD),
        pendingUsd: usd(waiting.profit, ETH_USD),
      },
    ]);
    expect(new D(done.profit).gt(0)).toBe(true);
    expect(o.totals).toEqual({ availableUsd: usd(done.profit, ETH_USD), pendingUsd: usd(waiting.profit, ETH_USD) });
    expect(o.orderCounts).toEqual({ waiting: 1, confirming: 0, exchanging: 0, sending: 0, finished: 1, failed: 1 });
    expect(o.ordersInPeriod).toBe(3);
    expect(o.markupBps).toBe(150);
    expect(o.currencies.map((c) => [c.ticker, c.priceUsd])).toEqual([["eth", ETH_USD]]);
  });

  it("counts a balance in a currency the registry no longer lists in its own unit, not in the USD totals", async () => {
    const me = await newReseller(150);
    const done = await settle(await order(me, { from: "btc", to: "eth", amount: "0.1" }), me);
    // A ticker delisted after its profit was booked: no reference price any more.
    const zzz = {
      resellerId: me.resellerId,
      currency: "zzz",
      bucket: "available",
      kind: "order_profit_settle",
      amount: new D("4"),
    } as const;
    await db.$transaction((tx) => post(tx, [zzz]));
    const o = await getOverview(db, { resellerId: me.resellerId, days: 30 });
    expect(o.balances.map((b) => [b.currency, b.available, b.availableUsd, b.pendingUsd])).toEqual([
      ["eth", done.profit, usd(done.profit, ETH_USD), "0"],
      ["zzz", "4", null, null],
    ]);
    expect(o.totals).toEqual({ availableUsd: usd(done.profit, ETH_USD), pendingUsd: "0" });
    expect(o.currencies.map((c) => [c.ticker, c.priceUsd])).toEqual([
      ["eth", ETH_USD],
      ["zzz", null],
    ]);
  });

  it("counts only orders created in the period, each once, however many weeks apart", async () => {
    const me = await newReseller(100);
    // Orders on the first day's first millisecond and the one before, a week's edges, and a
    // later day: the channel rollup's days and the open orders' createdAt bound must agree.
    const start = (await getOverview(db, { resellerId: me.resellerId, days: 90 })).period.from;
    const day0 = Date.parse(`${start}T00:00:00.000Z`);
    for (const t of [day0 - 1, day0, day0 + 7 * DAY - 1, day0 + 7 * DAY, day0 + 40 * DAY])
      await at(new Date(t), () => order(me, { from: "btc", to: "eth", amount: "0.1" }));
    await order(me, { from: "btc", to: "eth", amount: "0.1" });
    // An order dated ahead of this clock (another instance's) is in the period too.
    await at(new Date(Date.now() + 2 * DAY), () => order(me, { from: "btc", to: "eth", amount: "0.1" }));
    expect((await getOverview(db, { resellerId: me.resellerId, days: 30 })).ordersInPeriod).toBe(2);
    const o = await getOverview(db, { resellerId: me.resellerId, days: 90 });
    expect(o.ordersInPeriod).toBe(6);
    expect(o.orderCounts).toEqual({ waiting: 6, confirming: 0, exchanging: 0, sending: 0, finished: 0, failed: 0 });
  });

  it("counts the orders by state from the channel rollup and the open orders' index, not by reading each order", async () => {
    const me = await newReseller(0);
    const statements = await tracedStatements(url, (traced) => getOverview(traced, { resellerId: me.resellerId, days: 30 }));
    const rollup = statements.filter((q) => /FROM\s+[`"]?(main[`"]?\.[`"]?)?ChannelDaily[`"]?\s/i.test(q));
    const counts = statements.filter((q) => /FROM\s+[`"]?(main[`"]?\.[`"]?)?Order[`"]?\s/i.test(q));
    expect(rollup).toHaveLength(1);
    expect(queryPlan(url, rollup[0])).toMatch(
      /SEARCH (main\.)?"?ChannelDaily"? USING INDEX sqlite_autoindex_ChannelDaily_1 \(resellerId=\? AND day>\?\)/,
    );
    // Only the open states, by the opened orders' partial (status, resellerId, createdAt, id) index.
    expect(counts).toHaveLength(1);
    expect(queryPlan(url, counts[0])).toMatch(
      /SEARCH (main\.)?"?Order"? USING (COVERING )?INDEX Order_status_resellerId_createdAt_id_idx \(status=\? AND resellerId=\? AND createdAt>\?\)/,
    );
  });
});

describe("earnings series", () => {
  it("puts each realised profit on the UTC day it was credited, per currency and in USD, with every day present", async () => {
    const me = await newReseller(200);
    // Noon UTC of yesterday as "now": settling runs the worker a few minutes ahead, which
    // must not carry a credit over midnight into the next day (it did, run at 23:58 UTC).
    const yesterday = new Date(Date.now() - DAY);
    const now = new Date(Date.UTC(yesterday.getUTCFullYear(), yesterday.getUTCMonth(), yesterday.getUTCDate(), 12));
    const today = now.toISOString().slice(0, 10);
    const twoDaysAgo = new Date(now.getTime() - 2 * DAY);
    // Two ETH profits two days ago, one BTC profit today; one order that fails earns nothing.
    const a = await at(twoDaysAgo, async () => settle(await order(me, { from: "btc", to: "eth", amount: "0.1" }), me));
    const b = await at(twoDaysAgo, async () => settle(await order(me, { from: "btc", to: "eth", amount: "0.25" }), me));
    const c = await at(now, async () => settle(await order(me, { from: "eth", to: "btc", amount: "2" }), me));
    await at(now, async () => settle(await order(me, { from: "btc", to: "eth", amount: "0.1" }), me, "0.00000001"));

    const s = await getEarningsSeries(db, { resellerId: me.resellerId, days: 7, now });
    expect(s.period).toEqual({ days: 7, from: new Date(now.getTime() - 6 * DAY).toISOString().slice(0, 10), to: today });
    expect(s.days.map((d) => d.date)).toEqual(
      Array.from({ length: 7 }, (_, i) => new Date(now.getTime() - (6 - i) * DAY).toISOString().slice(0, 10)),
    );

    const ethEarned = new D(a.profit).plus(b.profit);
    const day2 = s.days.find((d) => d.date === twoDaysAgo.toISOString().slice(0, 10))!;
    expect(day2.amounts).toEqual({ eth: ethEarned.toFixed() });
    expect(day2.usd).toEqual({ eth: usd(ethEarned.toFixed(), ETH_USD) });
    expect(day2.totalUsd).toBe(usd(ethEarned.toFixed(), ETH_USD));
    const last = s.days[6];
    expect(last.amounts).toEqual({ btc: c.profit });
    expect(last.totalUsd).toBe(usd(c.profit, BTC_USD));
    expect(s.days.filter((d) => Object.keys(d.amounts).length)).toHaveLength(2);

    // The period's total is the exact sum of the days; it is not zero.
    const total = new D(usd(ethEarned.toFixed(), ETH_USD)).plus(usd(c.profit, BTC_USD));
    expect(s.totalUsd).toBe(total.toFixed());
    expect(total.gt(0)).toBe(true);
    expect(s.earned).toEqual([
      { currency: "btc", amount: c.profit, usd: usd(c.profit, BTC_USD) },
      { currency: "eth", amount: ethEarned.toFixed(), usd: usd(ethEarned.toFixed(), ETH_USD) },
    ]);
    expect(s.currencies.map((x) => x.ticker)).toEqual(["btc", "eth"]);
  });

  it("leaves out profit credited before the period, and other resellers' profit", async () => {
    const me = await newReseller(100);
    const other = await newReseller(100);
    const old = await at(new Date(Date.now() - 10 * DAY), async () =>
      settle(await order(me, { from: "btc", to: "eth", amount: "0.1" }), me),
    );
    await settle(await order(other, { from: "btc", to: "eth", amount: "0.1" }), other);
    const week = await getEarningsSeries(db, { resellerId: me.resellerId, days: 7 });
    expect(week.totalUsd).toBe("0");
    expect(week.earned).toEqual([]);
    const month = await getEarningsSeries(db, { resellerId: me.resellerId, days: 30 });
    expect(month.earned).toEqual([{ currency: "eth", amount: old.profit, usd: usd(old.profit, ETH_USD) }]);
  });
});

describe("orders", () => {
  it("lists newest first with state and id-prefix filters and pages, only the reseller's own", async () => {
    const me = await newReseller(100);
    const other = await newReseller(100);
    const mine: Order[] = [];
    for (let i = 0; i < 5; i++)
      mine.push(await at(new Date(Date.now() - (5 - i) * 60_000), () => order(me, { from: "btc", to: "eth", amount: "0.1" })));
    const done = await settle(mine[1], me);
    const theirs = await order(other, { from: "btc", to: "eth", amount: "0.1" });
    const newestFirst = [...mine].reverse().map((o) => o.id);

    const all = await listResellerOrders(db, { resellerId: me.resellerId });
    expect(all.items.map((o) => o.id)).toEqual(newestFirst);
    expect(all).toMatchObject({ total: 5, newer: null, older: null });
    expect(all.items.find((o) => o.id === done.id)).toMatchObject({ status: "finished", profit: done.profit, markupBps: 100 });

    const page1 = await listResellerOrders(db, { resellerId: me.resellerId, pageSize: 2 });
    const paged = await listResellerOrders(db, { resellerId: me.resellerId, after: page1.older, pageSize: 2 });
    expect(paged.items.map((o) => o.id)).toEqual(newestFirst.slice(2, 4));
    expect(paged).toMatchObject({ total: 5, pageSize: 2 });
    // The oldest page: the last of the list.
    expect((await listResellerOrders(db, { resellerId: me.resellerId, oldest: true, pageSize: 2 })).items.map((o) => o.id)).toEqual(
      newestFirst.slice(3),
    );

    expect(all.totalCapped).toBe(false);
    // Past the count cap: the total says "more than", and the pages go on past it.
    const capped = await listResellerOrders(db, { resellerId: me.resellerId, after: paged.older, pageSize: 2, countCap: 3 });
    expect(capped).toMatchObject({ total: 3, totalCapped: true, older: null });
    expect(capped.items.map((o) => o.id)).toEqual(newestFirst.slice(4));
    expect(await listResellerOrders(db, { resellerId: me.resellerId, countCap: 5 })).toMatchObject({ total: 5, totalCapped: false });
    expect(await listResellerOrders(db, { resellerId: me.resellerId, countCap: 4 })).toMatchObject({ total: 4, totalCapped: true });

    // Each filter: the one order, counted as listed (the count is its own statement).
    for (const filter of [{ status: "finished" }, { search: done.id.slice(0, 12).toUpperCase() }, { search: done.id.toUpperCase() }]) {
      const r = await listResellerOrders(db, { resellerId: me.resellerId, ...filter });
      expect(
        r.items.map((o) => o.id),
        JSON.stringify(filter),
      ).toEqual([done.id]);
      expect(r.total, JSON.stringify(filter)).toBe(1);
    }
    expect((await listResellerOrders(db, { resellerId: me.resellerId, status: "waiting" })).total).toBe(4);
    expect((await listResellerOrders(db, { resellerId: me.resellerId, search: theirs.id })).total).toBe(0);
    expect((await listResellerOrders(db, { resellerId: me.resellerId, search: "x' OR 1=1 --" })).total).toBe(0);
  });

  it("a whole id is found by the primary key, not by reading every order of the reseller", async () => {
    const me = await newReseller(0);
    const o = await order(me, { from: "btc", to: "eth", amount: "0.1" });
    const statements = await tracedStatements(url, async (traced) =>
      expect((await listResellerOrders(traced, { resellerId: me.resellerId, search: o.id })).items.map((r) => r.id)).toEqual([o.id]),
    );
    const reads = statements.filter((q) => /FROM\s+[`"]?(main[`"]?\.[`"]?)?Order[`"]?\s/i.test(q));
    expect(reads).toHaveLength(3); // the count, the page's id, its row
    for (const q of reads) expect(queryPlan(url, q), q).toMatch(/SEARCH (main\.)?"?Order"? USING INDEX sqlite_autoindex_Order_1 \(id=\?\)/);
  });

  it("the detail has the timeline and where the profit stands; another reseller's order is not found", async () => {
    const me = await newReseller(150);
    const other = await newReseller(150);
    const done = await settle(await order(me, { from: "btc", to: "eth", amount: "0.1" }), me);
    const failed = await settle(await order(me, { from: "btc", to: "eth", amount: "0.1" }), me, "0.00000001");
    const waiting = await order(me, { from: "btc", to: "eth", amount: "0.1" });

    const d = (await getResellerOrder(db, { resellerId: me.resellerId, orderId: done.id }))!;
    expect(d.events.map((e) => e.status)).toEqual(["waiting", "confirming", "exchanging", "sending", "finished"]);
    expect(d).toMatchObject({
      profitState: "available",
      realisedProfit: done.profit,
      toPriceUsd: ETH_USD,
      viaKey: { id: me.apiKeyId, name: "test" },
    });
    expect((await getResellerOrder(db, { resellerId: me.resellerId, orderId: failed.id }))!).toMatchObject({
      profitState: "reversed",
      realisedProfit: null,
      failureReason: "deposit_below_minimum",
    });
    expect((await getResellerOrder(db, { resellerId: me.resellerId, orderId: waiting.id }))!.profitState).toBe("pending");
    expect(await getResellerOrder(db, { resellerId: other.resellerId, orderId: done.id })).toBeNull();
    expect(await getResellerOrder(db, { resellerId: me.resellerId, orderId: "../../etc" })).toBeNull();
  });
});
