import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getChannelStats } from "@/lib/dashboard/channels";
import type { Db, Order } from "@/lib/db/client";
import type { EngineStep } from "@/lib/engine";
import { checkLedger } from "@/lib/ledger/check";
import { D } from "@/lib/money/decimal";
import { applyStep } from "@/lib/orders/advance-order";
import { createOrder } from "@/lib/orders/create-order";
import { createEndpoint } from "@/lib/webhooks/endpoints";
import { newCaller } from "../support/callers";
import { legacyChannelStats } from "../support/legacy-channel-stats";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// The channel rollup (lib/ledger/channel-daily.ts) is kept by the write paths themselves: orders
// opened by the one-step openers and by the general path (a reseller with a webhook endpoint),
// finished and failed by applyStep at other times and days. The Overview's figures read from it
// must equal those summed from the orders and entries (the read before the rollup), on random
// traffic; the ledger check finds it clean, and names a row changed by hand, in both modes.

const ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7";
const DAY = 86_400_000;
const NOW = new Date(Date.UTC(2026, 10, 23, 12));

let seed = 7;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];

const HAPPY: EngineStep[] = [{ to: "confirming" }, { to: "exchanging" }, { to: "sending" }, { to: "finished" }];

/**
 * A transaction that could not even start in Prisma's 2 s (P2028: every pool connection busy,
 * 20 walks sharing 10 on a loaded machine) wrote nothing: as the worker does, the step is
 * asked again. Any other error fails the test.
 */
const neverStarted = (e: unknown) =>
  (e as { code?: string }).code === "P2028" && /Unable to start a transaction in the given time/.test(String((e as Error).message));

/** Moves an order through `steps`, each at `at` plus a few hours. */
async function walk(db: Db, order: Order, steps: EngineStep[], at: Date): Promise<Order> {
  let o = order;
  let t = at.getTime();
  for (const step of steps) {
    t += Math.floor(rnd() * 10 * 3_600_000);
    const when = new Date(Math.min(t, NOW.getTime()));
    for (;;) {
      const next = await applyStep(db, o, step, when).catch((e) => {
        if (neverStarted(e)) return "again" as const;
        throw e;
      });
      if (next === "again") continue;
      o = next!;
      break;
    }
  }
  return o;
}

describe.each(["sqlite", "postgres"] as const)("the channel rollup on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  const resellers: string[] = [];

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(async () => t?.cleanup());

  it("gives the figures summed from the orders and entries, on random traffic of both opening paths", async () => {
    const plain = await newCaller(db, 150);
    const hooked = await newCaller(db, 90);
    await createEndpoint(db, { resellerId: hooked.resellerId, url: "https://hooks.example.com/h", events: ["order.created"] });
    resellers.push(plain.resellerId, hooked.resellerId);
    const channels = [undefined, "page", "widget:w1", "key:gone"];
    for (let i = 0; i < 60; i++) {
      const caller = i % 3 === 0 ? hooked : plain;
      const channel = pick(channels);
      const createdAt = new Date(NOW.getTime() - Math.floor(rnd() * 100 * DAY));
      const [from, to] = pick<["btc" | "eth" | "ltc", string]>([
        ["btc", "eth"],
        ["eth", "btc"],
        ["ltc", "eth"],
      ]);
      const [lo, hi] = { btc: [0.05, 0.6], eth: [1, 5], ltc: [0.5, 3] }[from]!;
      const amount = new D(lo + rnd() * (hi - lo)).toDecimalPlaces(6).toFixed();
      const { order } = await createOrder(db, {
        input: { from, to, amount, address: to === "btc" ? "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq" : ADDRESS },
        caller: { ...caller, ...(channel ? { channel } : {}) },
        ctx: { scope: "t" },
        now: createdAt,
      });
      const end = rnd();
      if (end < 0.6) await walk(db, order, HAPPY, createdAt);
      else if (end < 0.8) await walk(db, order, [{ to: "failed", reason: "expired", refund: null }], createdAt);
    }
    for (const resellerId of resellers)
      for (const days of [1, 7, 30, 90, 366]) {
        const stats = await getChannelStats(db, { resellerId, days, now: NOW });
        expect(stats, `${resellerId} ${days}`).toEqual({
          channels: await legacyChannelStats(db, { resellerId, days, now: NOW }),
          others: null,
        });
      }
    expect(await db.channelDaily.count()).toBeGreaterThan(10);
    expect((await checkLedger(db)).violations).toEqual([]);
  }, 600_000);

  it("loses nothing to 20 concurrent openings and 20 concurrent finishes of one channel's day", async () => {
    const caller = await newCaller(db, 120);
    const at = new Date();
    const opened = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        createOrder(db, {
          input: { from: "btc", to: "eth", amount: `0.0${i + 1}`, address: ADDRESS },
          caller,
          ctx: { scope: "t" },
          now: at,
        }),
      ),
    );
    const finished = await Promise.all(opened.map(({ order }) => walk(db, order, HAPPY, at)));
    const credits = await db.ledgerEntry.findMany({ where: { resellerId: caller.resellerId, kind: "order_profit_settle" } });
    expect(credits).toHaveLength(20);
    const rows = await db.channelDaily.findMany({ where: { resellerId: caller.resellerId } });
    const sum = (xs: string[]) => xs.reduce((s, x) => s.plus(x), new D(0));
    const total = <K extends "orders" | "finished">(k: K) => rows.reduce((s, r) => s + r[k], 0);
    expect([total("orders"), total("finished")]).toEqual([20, 20]);
    expect(sum(rows.map((r) => r.volume)).toFixed()).toBe(sum(finished.map((o) => o.fromAmount)).toFixed());
    expect(sum(rows.map((r) => r.profit)).toFixed()).toBe(sum(credits.map((e) => e.amount)).toFixed());
    expect((await checkLedger(db)).violations).toEqual([]);
  }, 300_000);

  it("the check names a rollup row changed by hand, in full and incremental mode", async () => {
    const [row] = await db.channelDaily.findMany({ where: { resellerId: resellers[0], orders: { gt: 0 } }, take: 1 });
    const key = { resellerId: row.resellerId, day: row.day, channel: row.channel, currency: row.currency };
    const where = { resellerId_day_channel_currency: key };
    await db.channelDaily.update({ where, data: { orders: row.orders + 1 } });
    const tag = `channel rollup ${row.resellerId}/${row.channel || "none"}/${row.day}/${row.currency}`;
    const named = (r: Awaited<ReturnType<typeof checkLedger>>) => r.violations.filter((v) => v.message.startsWith(tag));
    expect(named(await checkLedger(db)).map((v) => v.message)).toEqual([
      `${tag} counts ${row.orders + 1} orders, ${row.finished} finished, but its orders give ${row.orders}, ${row.finished}`,
    ]);
    await db.channelDaily.update({ where, data: { orders: row.orders } });
    // Incremental: a clean checkpoint, then an order opened today and today's row changed by hand.
    expect((await checkLedger(db, { mode: "incremental", writeCheckpoint: true })).ok).toBe(true);
    const caller = await newCaller(db, 100);
    const { order } = await createOrder(db, {
      input: { from: "btc", to: "eth", amount: "0.5", address: ADDRESS },
      caller,
      ctx: { scope: "t" },
    });
    const today = {
      resellerId: caller.resellerId,
      day: order.createdAt.toISOString().slice(0, 10),
      channel: order.channel ?? "",
      currency: "btc",
    };
    await db.channelDaily.update({ where: { resellerId_day_channel_currency: today }, data: { volume: "7" } });
    const inc = await checkLedger(db, { mode: "incremental" });
    expect(inc.mode).toBe("incremental");
    expect(inc.violations.map((v) => v.message)).toEqual([
      `channel rollup ${caller.resellerId}/${order.channel}/${today.day}/btc has volume 7 but its finished orders sum to 0`,
    ]);
  }, 300_000);
});
