import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getChannelStats } from "@/lib/dashboard/channels";
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
      const stats = await getChannelStats(db, { resellerId: r, days, now: NOW });
      // The rollup's figures are those summed from the rows themselves (the read before the rollup).
      expect(stats).toEqual(await legacyChannelStats(db, { resellerId: r, days, now: NOW }));
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
