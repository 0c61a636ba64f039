import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getChannelStats, TOP_CHANNELS } from "@/lib/dashboard/channels";
import type { Db } from "@/lib/db/client";
import { recordPendingProfit, settleProfit } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { rebuildChannelRollup } from "../support/channel-rollup";
import { legacyChannelStats } from "../support/legacy-channel-stats";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// The Overview's per-channel figures are summed in SQL (a week per statement on SQLite, exact
// decimal sums in integer parts there): the counts and the profit per channel and currency must
// equal what the rows themselves add up to, over periods that span several weekly slices, with
// amounts of up to 18 decimal places and large whole parts. The orders are written as wanted
// (around lib/orders), so the channel rollup the Overview reads is made from them afterwards.

const DATABASES = process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);
const NOW = new Date("2026-11-23T12:00:00.000Z");
const PROFITS = ["0.000000000000000001", "123456789.123456789123456789", "0.5", "7", "0.999999999999999999", "0.03"];

describe.each(DATABASES)("channel figures on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  const r = "ch1";
  const orders: { channel: string | null; createdAt: Date; status: string; toCurrency: string; profit: string; settledAt: Date | null }[] =
    [];

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
    await db.reseller.create({ data: { id: r, walletAddress: `0x${"c".repeat(40)}` } });
    await db.reseller.create({ data: { id: "ch2", walletAddress: `0x${"d".repeat(40)}` } });
    await db.apiKey.create({ data: { id: "k1", resellerId: r, name: "one", prefix: "rk_one", hash: "h1" } });
    for (let i = 0; i < 60; i++) {
      const createdAt = new Date(NOW.getTime() - i * 37 * 3_600_000); // every 37 hours: 92 days back
      const status = i % 5 === 0 ? "failed" : i % 7 === 0 ? "waiting" : "finished";
      const o = {
        id: `ch-${i}`,
        resellerId: i % 11 === 0 ? "ch2" : r,
        channel: [null, "key:k1", "page"][i % 3],
        toCurrency: i % 2 ? "eth" : "btc",
        profit: PROFITS[i % PROFITS.length],
        provider: null,
        rawToAmount: "2",
        platformFeeBps: 0,
      };
      await db.order.create({
        data: {
          id: o.id,
          resellerId: o.resellerId,
          channel: o.channel,
          fromCurrency: "usdt",
          toCurrency: o.toCurrency,
          fromAmount: PROFITS[(i + 1) % PROFITS.length],
          rate: "1",
          rawToAmount: "2",
          toAmount: "1",
          platformFeeBps: 0,
          markupBps: 100,
          profit: o.profit,
          payinAddress: "x",
          payoutAddress: "y",
          status,
          expiresAt: createdAt,
          createdAt,
        },
      });
      await db.$transaction((tx) => recordPendingProfit(tx, o, new D(o.profit), createdAt));
      const settledAt = status === "finished" ? new Date(createdAt.getTime() + 20 * 3_600_000) : null;
      if (settledAt && settledAt <= NOW) await db.$transaction((tx) => settleProfit(tx, o, new D(o.profit), settledAt));
      if (o.resellerId === r)
        orders.push({
          channel: o.channel,
          createdAt,
          status,
          toCurrency: o.toCurrency,
          profit: o.profit,
          settledAt: settledAt && settledAt <= NOW ? settledAt : null,
        });
    }
    await rebuildChannelRollup(db);
  }, 600_000);
  afterAll(async () => t?.cleanup());

  it.each([7, 30, 90])(
    "over %i days, each channel's orders, finished orders and profit per currency equal its rows' sums",
    async (days) => {
      const start = new Date(Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth(), NOW.getUTCDate() - days + 1));
      const { channels: stats, others } = await getChannelStats(db, { resellerId: r, days, now: NOW });
      // The rollup's figures are those summed from the rows themselves (the read before the rollup).
      expect(stats).toEqual(await legacyChannelStats(db, { resellerId: r, days, now: NOW }));
      expect(others).toBeNull();
      for (const channel of ["none", "key:k1", "page"]) {
        const mine = orders.filter((o) => (o.channel ?? "none") === channel);
        const created = mine.filter((o) => o.createdAt >= start);
        const profit = new Map<string, InstanceType<typeof D>>();
        for (const o of mine.filter((x) => x.settledAt && x.settledAt >= start))
          profit.set(o.toCurrency, (profit.get(o.toCurrency) ?? new D(0)).plus(o.profit));
        const s = stats.find((x) => x.channel === channel);
        if (!created.length && !profit.size && channel !== "key:k1") {
          expect(s).toBeUndefined();
          continue;
        }
        expect(s, channel).toBeDefined();
        expect([s?.orders, s?.finished]).toEqual([created.length, created.filter((o) => o.status === "finished").length]);
        expect(s?.profit).toEqual(
          [...profit.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, amount]) => ({ currency, amount: amount.toFixed() })),
        );
      }
    },
  );
});

// Issue 48: a reseller with thousands of keys. The card lists the TOP_CHANNELS busiest channels
// (chosen in SQL) and sums the rest into one row in SQL: together they hold every figure of the
// period exactly, and nothing of the rest is read one channel at a time. The rollup rows are
// written as they are (this reads nothing else of the orders).
describe.each(DATABASES)("past %s's first channels", (kind) => {
  let t: TempDb;
  let db: Db;
  const r = "many";
  const IN = "2026-11-20";
  interface Row {
    channel: string;
    day: string;
    currency: string;
    orders: number;
    finished: number;
    volume: string;
    profit: string;
  }
  const rows: Row[] = [];
  const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
  const row = (channel: string, currency: string, figures: Partial<Row>, day = IN) =>
    rows.push({ channel, day, currency, orders: 0, finished: 0, volume: "0", profit: "0", ...figures });

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
    await db.reseller.create({ data: { id: r, walletAddress: `0x${"e".repeat(40)}`, markupBps: 50 } });
    const key = (id: string, revoked: boolean) => ({
      id,
      resellerId: r,
      name: `key ${id}`,
      prefix: `rsk_live_${id}`,
      hash: `hash-${id}`,
      revokedAt: revoked ? new Date("2026-11-01T00:00:00Z") : null,
    });
    // Ids as the app makes them (base58): a channel names its key or widget by one.
    const active = Array.from({ length: 40 }, (_, i) => `ka${B58[i]}`);
    await db.apiKey.createMany({ data: [...active.map((id) => key(id, false)), ...["rA", "rB", "rC"].map((id) => key(id, true))] });
    for (const [id, disabled] of [
      ["wA", false],
      ["wB", false],
      ["wC", true],
    ] as const)
      await db.widget.create({ data: { id, resellerId: r, name: `widget ${id}`, disabledAt: disabled ? new Date() : null } });
    // 30 of the active keys have orders (1 to 30), some finished, some profit in ETH, exact to 18 places.
    for (let i = 0; i < 30; i++) {
      row(`key:${active[i]}`, "btc", { orders: i + 1, finished: Math.floor((i + 1) / 2), volume: `${i}.000000000000000001` });
      if (i % 3 === 0) row(`key:${active[i]}`, "eth", { profit: `0.${String(i + 1).padStart(18, "0")}` });
    }
    row("key:rA", "btc", { orders: 100, finished: 90, volume: "12.5" }); // revoked, the busiest
    row("key:rB", "eth", { profit: "3.25" }); // revoked: profit credited in the period, no orders opened
    row("key:rC", "btc", { orders: 7 }, "2026-10-01"); // revoked, figures only before the period: not shown
    row(`key:${active[39]}`, "btc", { orders: 1000 }, "2026-10-01"); // before the period: not counted
    row("page", "btc", { orders: 3, finished: 3, volume: "0.3" });
    row("widget:wC", "xmr", { orders: 2, finished: 1, volume: "1.5", profit: "0.1" }); // disabled, with figures
    row("", "btc", { orders: 1 }); // no channel
    for (const x of rows) await db.channelDaily.create({ data: { resellerId: r, ...x } });
  });
  afterAll(async () => t?.cleanup());

  it(`lists the ${TOP_CHANNELS} busiest channels, and the rest in one row that sums them exactly`, async () => {
    const { channels, others } = await getChannelStats(db, { resellerId: r, days: 30, now: NOW });
    // Shown: 40 active keys, 2 enabled widgets, rA, rB, the disabled widget with figures, the page, no channel.
    expect(channels).toHaveLength(TOP_CHANNELS);
    expect(others).not.toBeNull();
    expect(others?.channels).toBe(47 - TOP_CHANNELS);
    // Busiest first: rA (100), then the keys with 30 down to 12 orders.
    expect(channels.map((c) => c.channel)).toEqual(["key:rA", ...Array.from({ length: 19 }, (_, i) => `key:ka${B58[29 - i]}`)]);
    expect(channels[0]).toMatchObject({ type: "key", label: "key rA (rsk_live_rA…)", markupBps: 50, orders: 100, finished: 90 });

    // Every figure of the period is in exactly one place: the shown rows or the rest.
    const inPeriod = rows.filter((x) => x.day >= "2026-10-25");
    const sum = (f: (x: Row) => number) => inPeriod.reduce((n, x) => n + f(x), 0);
    expect(channels.reduce((n, c) => n + c.orders, 0) + others!.orders).toBe(sum((x) => x.orders));
    expect(channels.reduce((n, c) => n + c.finished, 0) + others!.finished).toBe(sum((x) => x.finished));
    const profit = new Map<string, InstanceType<typeof D>>();
    for (const p of [...channels.flatMap((c) => c.profit), ...others!.profit])
      profit.set(p.currency, (profit.get(p.currency) ?? new D(0)).plus(p.amount));
    const expected = new Map<string, InstanceType<typeof D>>();
    for (const x of inPeriod.filter((y) => y.profit !== "0"))
      expected.set(x.currency, (expected.get(x.currency) ?? new D(0)).plus(x.profit));
    expect([...profit.entries()].map(([c, a]) => [c, a.toFixed()]).sort()).toEqual(
      [...expected.entries()].map(([c, a]) => [c, a.toFixed()]).sort(),
    );
    expect(others!.profit.map((p) => p.currency).sort()).toEqual(["eth", "xmr"]);
  });

  it("with no more channels than it lists, there is no rest", async () => {
    const { channels, others } = await getChannelStats(db, { resellerId: "nobody", days: 30, now: NOW });
    expect([channels, others]).toEqual([[], null]);
  });
});
