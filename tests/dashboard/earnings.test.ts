import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEarningsSeries, MAX_KEPT_RESELLERS, SETTLED_BY_DAY_SQLITE } from "@/lib/dashboard/earnings";
import { createDb } from "@/lib/db/client";
import { withDecimalSum } from "@/lib/db/sqlite-direct";
import { D } from "@/lib/money/decimal";
import { countTurns } from "../support/event-loop";
import { rawJournal } from "../support/ledger";
import { queryPlan, type TempDb, tempDatabase } from "../support/sqlite-db";

// The earnings series sums in the database (lib/dashboard/earnings.ts): exactly, per UTC day
// and currency, only the reseller's realised profit of the period, on both databases.

const NOW = new Date("2026-11-23T12:00:00.000Z");

/** A realised profit of `resellerId`, as the ledger books it when an order finishes. */
const settled = (resellerId: string, createdAt: string | Date, amount: string, currency = "eth") => ({
  resellerId,
  currency,
  bucket: "available",
  kind: "order_profit_settle",
  amount,
  createdAt: new Date(createdAt),
});

describe.each(["sqlite", "postgres"] as const)("getEarningsSeries on %s", (kind) => {
  let t: TempDb;
  beforeAll(async () => {
    t = await tempDatabase(kind);
    for (const id of ["me", "other"])
      await t.db.reseller.create({ data: { id, walletAddress: `0x${(id === "me" ? "a1" : "b2").repeat(20)}` } });
    const entry = (
      createdAt: string,
      amount: string,
      o: { currency?: string; kind?: string; bucket?: string; resellerId?: string } = {},
    ) => ({
      resellerId: o.resellerId ?? "me",
      currency: o.currency ?? "eth",
      bucket: o.bucket ?? "available",
      kind: o.kind ?? "order_profit_settle",
      amount,
      createdAt: new Date(createdAt),
    });
    await rawJournal(t.db, [
      // Floats would make these 0.30000000000000004 and lose the last of the 18 places.
      entry("2026-11-23T00:00:00.000Z", "0.1"),
      entry("2026-11-23T11:59:59.999Z", "0.2"),
      entry("2026-11-22T23:59:59.999Z", "0.000000000000000001"),
      entry("2026-11-22T00:00:00.000Z", "1234567890.123456789012345678"),
      entry("2026-11-22T08:00:00.000Z", "0.00000001", { currency: "btc" }),
      // The first day of a 7-day period, and the moment before it.
      entry("2026-11-17T00:00:00.000Z", "5"),
      entry("2026-11-16T23:59:59.999Z", "7"),
      // Not realised profit, or not this reseller's.
      entry("2026-11-23T01:00:00.000Z", "100", { bucket: "pending", kind: "order_profit_pending" }),
      entry("2026-11-23T01:00:00.000Z", "-3", { kind: "withdrawal_settle" }),
      entry("2026-11-23T02:00:00.000Z", "50", { bucket: "pending" }),
      entry("2026-11-23T01:00:00.000Z", "1000", { resellerId: "other" }),
    ]);
  });
  afterAll(async () => t?.cleanup());

  it("sums each UTC day and currency exactly, from the period's first day on", async () => {
    const s = await getEarningsSeries(t.db, { resellerId: "me", days: 7, now: NOW });
    const byDay = Object.fromEntries(s.days.map((d) => [d.date, d.amounts]));
    expect(byDay).toEqual({
      "2026-11-17": { eth: "5" },
      "2026-11-18": {},
      "2026-11-19": {},
      "2026-11-20": {},
      "2026-11-21": {},
      "2026-11-22": { btc: "0.00000001", eth: "1234567890.123456789012345679" },
      "2026-11-23": { eth: "0.3" },
    });
    expect(s.earned.map((e) => [e.currency, e.amount])).toEqual([
      ["btc", "0.00000001"],
      ["eth", new D("1234567890.123456789012345679").plus("0.3").plus(5).toFixed()],
    ]);
    const day = await getEarningsSeries(t.db, { resellerId: "me", days: 1, now: NOW });
    expect(day.earned.map((e) => [e.currency, e.amount])).toEqual([["eth", "0.3"]]);
  });

  it("leaves out profit dated after today (a writer's clock ahead); counts an unpriced currency in its unit, not in USD", async () => {
    const r = `skew-${kind}`;
    await t.db.reseller.create({ data: { id: r, walletAddress: `0x${"d4".repeat(20)}` } });
    await rawJournal(t.db, [
      settled(r, "2026-11-23T10:00:00.000Z", "2"),
      settled(r, "2026-11-24T00:30:00.000Z", "999"), // tomorrow, by this clock
      settled(r, "2026-11-23T09:00:00.000Z", "4", "zzz"), // a ticker the registry does not list: no price
    ]);
    const s = await getEarningsSeries(t.db, { resellerId: r, days: 7, now: NOW });
    expect(s.days.map((d) => d.date).at(-1)).toBe("2026-11-23");
    const today = s.days.at(-1)!;
    expect(today.amounts).toEqual({ eth: "2", zzz: "4" });
    expect(Object.keys(today.usd)).toEqual(["eth"]);
    expect(today.totalUsd).toBe(today.usd.eth);
    expect(new D(today.usd.eth).gt(0)).toBe(true);
    expect(s.earned).toEqual([
      { currency: "eth", amount: "2", usd: today.usd.eth },
      { currency: "zzz", amount: "4", usd: null },
    ]);
    expect(s.totalUsd).toBe(today.usd.eth);
    expect(s.currencies.map((c) => [c.ticker, c.priceUsd === null])).toEqual([
      ["eth", false],
      ["zzz", true],
    ]);
  });

  it("a closed day is summed once per process; today and the last hour's days are read every time", async () => {
    const r = `cache-${kind}`;
    await t.db.reseller.create({ data: { id: r, walletAddress: `0x${"c3".repeat(20)}` } });
    const credit = (createdAt: string, amount: string, currency = "eth") => rawJournal(t.db, [settled(r, createdAt, amount, currency)]);
    const byDay = async (days: number, now: Date) =>
      Object.fromEntries(
        (await getEarningsSeries(t.db, { resellerId: r, days, now })).days
          .filter((d) => Object.keys(d.amounts).length)
          .map((d) => [d.date, Object.values(d.amounts).join(" + ")]),
      );
    // 00:30 UTC: yesterday ended half an hour ago, so it is not closed yet.
    const now = new Date("2026-11-23T00:30:00.000Z");
    await credit("2026-11-20T10:00:00.000Z", "1");
    await credit("2026-11-22T23:00:00.000Z", "2");
    expect(await byDay(7, now)).toEqual({ "2026-11-20": "1", "2026-11-22": "2" });

    // Entries dated in a closed day after it was read are not seen (none can be, but for a
    // clock an hour wrong); in the open days they are.
    await credit("2026-11-20T11:00:00.000Z", "10");
    await credit("2026-11-22T23:30:00.000Z", "20");
    await credit("2026-11-23T00:10:00.000Z", "30");
    expect(await byDay(7, now)).toEqual({ "2026-11-20": "1", "2026-11-22": "22", "2026-11-23": "30" });

    // A longer period reads only the days before the ones kept; a day that closes is read once more, whole.
    await credit("2026-11-01T12:00:00.000Z", "100", "btc");
    expect(await byDay(30, now)).toEqual({ "2026-11-01": "100", "2026-11-20": "1", "2026-11-22": "22", "2026-11-23": "30" });
    const later = new Date("2026-11-23T02:00:00.000Z");
    await credit("2026-11-22T23:45:00.000Z", "200");
    expect(await byDay(30, later)).toEqual({ "2026-11-01": "100", "2026-11-20": "1", "2026-11-22": "222", "2026-11-23": "30" });
    await credit("2026-11-22T23:50:00.000Z", "2000");
    expect((await byDay(30, later))["2026-11-22"]).toBe("222");
    // A shorter period again: only its own days and currencies, though more are kept.
    const week = await getEarningsSeries(t.db, { resellerId: r, days: 7, now: later });
    expect(week.currencies.map((c) => c.ticker)).toEqual(["eth"]);
    expect(week.earned).toEqual([expect.objectContaining({ currency: "eth", amount: "253" })]);

    // Another client of the same database (another process) reads everything afresh.
    const fresh = createDb(t.url);
    try {
      const s = await getEarningsSeries(fresh, { resellerId: r, days: 30, now: later });
      expect(
        Object.fromEntries(s.days.filter((d) => Object.keys(d.amounts).length).map((d) => [d.date, Object.values(d.amounts)[0]])),
      ).toEqual({
        "2026-11-01": "100",
        "2026-11-20": "11",
        "2026-11-22": "2222",
        "2026-11-23": "30",
      });
    } finally {
      await fresh.$disconnect();
    }
  });

  it(`keeps the closed days of the ${MAX_KEPT_RESELLERS} resellers read last, dropping the least recently read`, async () => {
    // A client of its own: the kept days are per client, and the other tests' resellers are in t.db's.
    const own = createDb(t.url);
    try {
      const ids = Array.from({ length: MAX_KEPT_RESELLERS + 1 }, (_, i) => `lru-${kind}-${i}`);
      await own.reseller.createMany({ data: ids.map((id, i) => ({ id, walletAddress: `0x${i.toString(16).padStart(40, "e")}` })) });
      const credit = (resellerId: string, amount: string) => rawJournal(own, [settled(resellerId, "2026-11-20T10:00:00.000Z", amount)]);
      const earned = async (resellerId: string) =>
        (await getEarningsSeries(own, { resellerId, days: 7, now: NOW })).earned.map((e) => e.amount).join();
      const [first, ...others] = ids;
      await credit(first, "1");
      expect(await earned(first)).toBe("1");
      // A closed day's entry written after it was kept is not seen while it stays kept.
      await credit(first, "10");
      for (const id of others.slice(0, -1)) await earned(id);
      expect(await earned(first)).toBe("1"); // still kept: the others fill the cache only to its size
      // Read again just now, it is the most recently read: one more reseller drops the next one instead.
      await credit(others[0], "5");
      await earned(others.at(-1)!);
      expect(await earned(first)).toBe("1");
      expect(await earned(others[0])).toBe("5"); // dropped, so read afresh
      // Once as many others as are kept have been read after it (others[0] just was), it is dropped.
      for (const id of others.slice(1)) await earned(id);
      expect(await earned(first)).toBe("11");
    } finally {
      await own.$disconnect();
    }
  });
});

describe("the earnings read on SQLite", () => {
  it("reads the closed days not kept yet one at a time, letting other requests run between them", async () => {
    const t = await tempDatabase("sqlite");
    try {
      await t.db.reseller.create({ data: { id: "me", walletAddress: `0x${"a1".repeat(20)}` } });
      await rawJournal(
        t.db,
        [0, 1, 2, 3, 4, 5, 6].map((d) => settled("me", new Date(NOW.getTime() - d * 86_400_000), `${d + 1}`)),
      );
      // Turns of the event loop while the series is read: better-sqlite3 reads on it, so a read
      // in one statement (1.1 s for 90 days at 1M orders) would let none happen.
      const loop = countTurns();
      const read = async () => {
        const before = loop.turns();
        const s = await getEarningsSeries(t.db, { resellerId: "me", days: 7, now: NOW });
        return { turns: loop.turns() - before, total: s.earned[0].amount };
      };
      try {
        // Six closed days (today is read apart), so five turns between them at least.
        const first = await read();
        expect(first.total).toBe("28");
        expect(first.turns).toBeGreaterThanOrEqual(5);
        // Kept now: one statement, for today.
        expect((await read()).total).toBe("28");
      } finally {
        loop.stop();
      }
    } finally {
      await t.cleanup();
    }
  });

  it("reads the period's entries of one kind by the index, not the reseller's whole ledger", async () => {
    const t = await tempDatabase("sqlite");
    try {
      const plan = queryPlan(
        t.url,
        SETTLED_BY_DAY_SQLITE,
        ["me", "2026-11-17T00:00:00.000+00:00", "2026-11-23T00:00:00.000+00:00"],
        withDecimalSum,
      );
      expect(plan).toMatch(
        /SEARCH (main\.)?"?LedgerEntry"? USING INDEX LedgerEntry_resellerId_kind_createdAt_idx \(resellerId=\? AND kind=\? AND createdAt>\? AND createdAt<\?\)/,
      );
    } finally {
      await t.cleanup();
    }
  });
});
