import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEarningsSeries, SETTLED_BY_DAY_SQLITE } from "@/lib/dashboard/earnings";
import { createDb } from "@/lib/db/client";
import { post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { rawJournal } from "../support/ledger";
import { queryPlan, type TempDb, tempDatabase } from "../support/sqlite-db";

// The earnings series (lib/dashboard/earnings.ts), read from the ledger's daily rollup: exactly,
// per UTC day and currency, only the reseller's realised profit of the period, on both databases.

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

  it("an entry is seen by the next read whatever its day: the rollup changes with the posting", async () => {
    const r = `fresh-${kind}`;
    await t.db.reseller.create({ data: { id: r, walletAddress: `0x${"c3".repeat(20)}` } });
    const credit = (createdAt: string, amount: string, currency = "eth") => rawJournal(t.db, [settled(r, createdAt, amount, currency)]);
    const byDay = async (days: number, now: Date) =>
      Object.fromEntries(
        (await getEarningsSeries(t.db, { resellerId: r, days, now })).days
          .filter((d) => Object.keys(d.amounts).length)
          .map((d) => [d.date, Object.values(d.amounts).join(" + ")]),
      );
    const now = new Date("2026-11-23T02:00:00.000Z");
    await credit("2026-11-20T10:00:00.000Z", "1");
    await credit("2026-11-22T23:00:00.000Z", "2");
    expect(await byDay(7, now)).toEqual({ "2026-11-20": "1", "2026-11-22": "2" });
    // Days long closed and today alike (until 2026-11-25 a process kept closed days' sums and missed these).
    await credit("2026-11-20T11:00:00.000Z", "10");
    await credit("2026-11-23T00:10:00.000Z", "30");
    await credit("2026-11-01T12:00:00.000Z", "100", "btc");
    expect(await byDay(7, now)).toEqual({ "2026-11-20": "11", "2026-11-22": "2", "2026-11-23": "30" });
    expect(await byDay(30, now)).toEqual({ "2026-11-01": "100", "2026-11-20": "11", "2026-11-22": "2", "2026-11-23": "30" });
    // Another client of the same database (another process) reads the same.
    const fresh = createDb(t.url);
    try {
      const s = await getEarningsSeries(fresh, { resellerId: r, days: 30, now });
      expect(s.earned.map((e) => [e.currency, e.amount])).toEqual([
        ["btc", "100"],
        ["eth", "43"],
      ]);
    } finally {
      await fresh.$disconnect();
    }
  });

  it("the series read from the rollup equals the one summed from the entries, for every reseller and period", async () => {
    // Traffic through lib/ledger at moved times: random profits over 40 days, three currencies.
    const r = `equal-${kind}`;
    await t.db.reseller.create({ data: { id: r, walletAddress: `0x${"e5".repeat(20)}` } });
    let seed = 11;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const start = Date.parse("2026-10-15T00:00:00.000Z");
    for (let i = 0; i < 120; i++) {
      const at = new Date(start + Math.floor(rnd() * 40 * 86_400_000));
      const amount = new D(Math.floor(rnd() * 1e9)).div(10 ** Math.floor(rnd() * 19)).plus("0.000000000000000001");
      const currency = ["eth", "btc", "xmr"][Math.floor(rnd() * 3)];
      await t.db.$transaction((tx) =>
        post(tx, [{ resellerId: r, currency, bucket: "available", kind: "order_profit_settle", amount }], at),
      );
    }
    for (const days of [1, 7, 30, 90]) {
      const now = new Date("2026-11-23T12:00:00.000Z");
      const s = await getEarningsSeries(t.db, { resellerId: r, days, now });
      const from = s.days[0].date;
      const expected = new Map<string, Map<string, InstanceType<typeof D>>>();
      for (const e of await t.db.ledgerEntry.findMany({ where: { resellerId: r, kind: "order_profit_settle", bucket: "available" } })) {
        const day = e.createdAt.toISOString().slice(0, 10);
        if (day < from || day > "2026-11-23") continue;
        const m = expected.get(day) ?? new Map();
        m.set(e.currency, (m.get(e.currency) ?? new D(0)).plus(e.amount));
        expected.set(day, m);
      }
      for (const d of s.days)
        expect(d.amounts).toEqual(
          Object.fromEntries(
            [...(expected.get(d.date) ?? new Map())].sort(([a], [b]) => a.localeCompare(b)).map(([c, v]) => [c, v.toFixed()]),
          ),
        );
      expect(s.days.some((d) => Object.keys(d.amounts).length)).toBe(days > 1 || expected.has("2026-11-23"));
    }
  });
});

describe("the earnings read on SQLite", () => {
  it("reads the period's rows of the rollup by its primary key, not the reseller's ledger", async () => {
    const t = await tempDatabase("sqlite");
    try {
      const plan = queryPlan(t.url, SETTLED_BY_DAY_SQLITE, ["me", "2026-11-17", "2026-11-23"]);
      expect(plan).toMatch(
        /SEARCH (main\.)?"?LedgerDaily"? USING (PRIMARY KEY|INDEX sqlite_autoindex_LedgerDaily_1) \(resellerId=\? AND kind=\? AND bucket=\? AND day>\? AND day<\?\)/,
      );
    } finally {
      await t.cleanup();
    }
  });
});
