import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, LEDGER_INVARIANTS } from "@/lib/ledger/check";
import { dayOf } from "@/lib/ledger/daily";
import {
  post,
  recordPendingProfit,
  reserveWithdrawal,
  restoreWithdrawal,
  reverseProfit,
  settleProfit,
  settleWithdrawal,
} from "@/lib/ledger/ledger";
import { D, type Dec } from "@/lib/money/decimal";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { withdrawalRow } from "../support/withdrawals";

// The daily rollup (lib/ledger/daily.ts): after postings through lib/ledger at moved times, each
// LedgerDaily row is the exact sum of its entries, per (reseller, kind, bucket, UTC day of the
// entry, currency); concurrent postings to one row lose nothing; and ledger:check names a rollup
// row that does not match.

const rollupInvariant = LEDGER_INVARIANTS.filter((i) => i.name.startsWith("each daily rollup row"));

/** The rollup as the entries themselves sum it, keyed like its rows; zero sums left out. */
async function sumsOfEntries(db: Db): Promise<Record<string, string>> {
  const sums = new Map<string, Dec>();
  for (const e of await db.ledgerEntry.findMany()) {
    const key = [e.resellerId, e.kind, e.bucket, dayOf(e.createdAt), e.currency].join(" ");
    sums.set(key, (sums.get(key) ?? new D(0)).plus(e.amount));
  }
  return Object.fromEntries([...sums].filter(([, s]) => !s.isZero()).map(([k, s]) => [k, s.toFixed()]));
}

async function rollup(db: Db): Promise<Record<string, string>> {
  const rows = await db.ledgerDaily.findMany();
  return Object.fromEntries(
    rows.filter((r) => !new D(r.amount).isZero()).map((r) => [[r.resellerId, r.kind, r.bucket, r.day, r.currency].join(" "), r.amount]),
  );
}

describe.each(["sqlite", "postgres"] as const)("the daily rollup on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let n = 0;
  const reseller = async () => {
    const id = `d${++n}`;
    await db.reseller.create({ data: { id, walletAddress: `0x${n.toString(16).padStart(40, "d")}` } });
    return id;
  };
  const order = (id: string, resellerId: string, profit: string) =>
    db.order.create({
      data: {
        id,
        resellerId,
        fromCurrency: "btc",
        toCurrency: "eth",
        fromAmount: "1",
        rate: "1",
        rawToAmount: "50",
        toAmount: "49",
        platformFeeBps: 25,
        markupBps: 100,
        profit,
        payinAddress: "x",
        payoutAddress: "y",
        status: "waiting",
        expiresAt: new Date(),
      },
    });
  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(async () => t?.cleanup());

  it("after orders and withdrawals booked at moved times, each row is the exact sum of its entries", async () => {
    const r = await reseller();
    // Either side of a UTC midnight, and 18 decimal places that floats would lose.
    const times = ["2026-11-20T23:59:59.999Z", "2026-11-21T00:00:00.000Z", "2026-11-21T13:00:00.000Z", "2026-11-22T00:00:00.001Z"].map(
      (s) => new Date(s),
    );
    for (let i = 0; i < 8; i++) {
      const profit = new D("0.100000000000000001").mul(i + 1).toFixed();
      const o = { id: `o-${r}-${i}`, resellerId: r, toCurrency: "eth", provider: null, rawToAmount: "50", platformFeeBps: 25 };
      await order(o.id, r, profit);
      await db.$transaction((tx) => recordPendingProfit(tx, o, new D(profit), times[i % 4]));
      if (i % 3 === 2) await db.$transaction((tx) => reverseProfit(tx, o, times[(i + 1) % 4]));
      else await db.$transaction((tx) => settleProfit(tx, o, new D(profit).minus("0.000000000000000001"), times[(i + 2) % 4]));
    }
    await db.$transaction((tx) =>
      post(tx, [{ resellerId: r, currency: "btc", bucket: "available", kind: "order_profit_settle", amount: new D("0.3") }], times[0]),
    );
    for (const [id, end] of [
      ["w1", "confirmed"],
      ["w2", "failed"],
    ] as const) {
      const wid = `${id}-${r}`;
      const w = { id: wid, resellerId: r, asset: "eth", chainId: 1, amount: "0.1", legs: [{ currency: "btc", amount: "0.1" }] };
      await db.withdrawal.create({ data: withdrawalRow(w) });
      await db.$transaction((tx) => reserveWithdrawal(tx, w, times[1]));
      if (end === "confirmed") await db.$transaction((tx) => settleWithdrawal(tx, w, times[2]));
      else await db.$transaction((tx) => restoreWithdrawal(tx, w, times[3]));
    }
    const expected = await sumsOfEntries(db);
    expect(Object.keys(expected).length).toBeGreaterThan(10);
    expect(await rollup(db)).toEqual(expected);
    // Every row is canonical text, and the check agrees (its order invariants would name these
    // orders, left "waiting": only the rollup's is run).
    for (const row of await db.ledgerDaily.findMany()) expect(row.amount).toMatch(/^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/);
    expect((await checkLedger(db, { invariants: rollupInvariant })).violations).toEqual([]);
  });

  it("a tampered, missing or non-canonical rollup row is named by ledger:check", async () => {
    const r = await reseller();
    const at = new Date("2026-11-10T10:00:00.000Z");
    await db.$transaction((tx) =>
      post(
        tx,
        [
          { resellerId: r, currency: "eth", bucket: "available", kind: "order_profit_settle", amount: new D("1.5") },
          { resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("2") },
        ],
        at,
      ),
    );
    expect((await checkLedger(db, { invariants: rollupInvariant })).violations).toEqual([]);
    const key = (currency: string) => ({
      resellerId_kind_bucket_day_currency: { resellerId: r, kind: "order_profit_settle", bucket: "available", day: "2026-11-10", currency },
    });
    await db.ledgerDaily.update({ where: key("eth"), data: { amount: "1.6" } });
    await db.ledgerDaily.delete({ where: key("xmr") });
    await db.ledgerDaily.create({
      data: { resellerId: r, kind: "order_profit_settle", bucket: "available", day: "2026-11-11", currency: "eth", amount: "7" },
    });
    const messages = (await checkLedger(db, { invariants: rollupInvariant })).violations.map((v) => v.message);
    expect(messages.sort()).toEqual(
      [
        `rollup ${r}/eth 2026-11-10 order_profit_settle available is 1.6 but its entries sum to 1.5`,
        `rollup ${r}/eth 2026-11-11 order_profit_settle available is 7 but its entries sum to 0`,
        `entries of ${r}/order_profit_settle/available/2026-11-10/xmr sum to 2 but have no rollup row`,
      ].sort(),
    );
    // The whole check runs it too.
    expect((await checkLedger(db)).violations.map((v) => v.invariant)).toContain("each daily rollup row equals the sum of its entries");
    // Put right: the check is clean again.
    await db.ledgerDaily.update({ where: key("eth"), data: { amount: "1.5" } });
    await db.ledgerDaily.create({
      data: { resellerId: r, kind: "order_profit_settle", bucket: "available", day: "2026-11-10", currency: "xmr", amount: "2" },
    });
    await db.ledgerDaily.update({
      where: { resellerId_kind_bucket_day_currency: { ...key("eth").resellerId_kind_bucket_day_currency, day: "2026-11-11" } },
      data: { amount: "0" },
    });
    expect((await checkLedger(db, { invariants: rollupInvariant })).violations).toEqual([]);
    if (kind === "sqlite") {
      // Stored as text on SQLite: a non-canonical one is named (PostgreSQL's NUMERIC has no such text).
      await db.ledgerDaily.update({ where: key("xmr"), data: { amount: "2.0" } });
      expect((await checkLedger(db, { invariants: rollupInvariant })).violations.map((v) => v.message)).toEqual([
        `rollup ${r}/xmr 2026-11-10 order_profit_settle available has amount '2.0'`,
      ]);
      await db.ledgerDaily.update({ where: key("xmr"), data: { amount: "2" } });
    }
  });

  it("20 concurrent postings to the same day's row lose no update", async () => {
    const r = await reseller();
    const at = new Date("2026-11-12T08:00:00.000Z");
    const amounts = Array.from({ length: 20 }, (_, i) => new D("0.000000000000000001").plus(i).plus("0.1"));
    await Promise.all(
      amounts.map((amount) =>
        db.$transaction(
          (tx) => post(tx, [{ resellerId: r, currency: "eth", bucket: "available", kind: "order_profit_settle", amount }], at),
          {
            timeout: 120_000,
            maxWait: 120_000,
          },
        ),
      ),
    );
    const total = amounts.reduce((s, a) => s.plus(a), new D(0)).toFixed();
    expect(total).toBe("192.00000000000000002");
    expect(await db.ledgerDaily.findMany({ where: { resellerId: r } })).toEqual([
      { resellerId: r, kind: "order_profit_settle", bucket: "available", day: "2026-11-12", currency: "eth", amount: total },
    ]);
    expect((await checkLedger(db, { invariants: rollupInvariant })).violations).toEqual([]);
  });
});
