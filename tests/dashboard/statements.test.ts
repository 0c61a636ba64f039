import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATEMENT_CSV_COLUMNS, statementsCsv } from "@/lib/dashboard/export";
import { getStatements, monthsBetween } from "@/lib/dashboard/statements";
import type { Db } from "@/lib/db/client";
import {
  getBalances,
  recordPendingProfit,
  reserveWithdrawal,
  restoreWithdrawal,
  reverseProfit,
  settleProfit,
  settleWithdrawal,
} from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// Statements over three months of traffic, the clock moved through the ledger's own posting
// functions (each takes the time it books at): orders created, finished and failed, withdrawals
// confirmed, failed and still reserved, in two currencies, with entries on both sides of a month
// boundary. Each month's closing is the next month's opening and equals the ledger's own sum of
// the entries before the month's end; the last closing is the Balance row.

const DATABASES = process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);
const at = (iso: string) => new Date(iso);

describe.each(DATABASES)("statements on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  const r = "st1";
  const other = "st2";

  const order = async (id: string, resellerId: string, toCurrency: string, profit: string, createdAt: Date) => {
    const o = { id, resellerId, toCurrency, provider: null, rawToAmount: "2", platformFeeBps: 0 };
    await db.order.create({
      data: {
        id,
        resellerId,
        fromCurrency: "usdt",
        toCurrency,
        fromAmount: "100",
        rate: "0.02",
        rawToAmount: "2",
        toAmount: "1.97",
        platformFeeBps: 0,
        markupBps: 150,
        profit,
        payinAddress: "x",
        payoutAddress: "y",
        status: "waiting",
        expiresAt: createdAt,
        createdAt,
      },
    });
    await db.$transaction((tx) => recordPendingProfit(tx, o, new D(profit), createdAt));
    return o;
  };
  const withdrawal = async (id: string, amount: string, queuedAt: Date) => {
    await db.withdrawal.create({
      data: {
        id,
        resellerId: r,
        status: "queued",
        asset: "eth",
        decimals: 18,
        chainId: 31337,
        destination: "0x01",
        amount,
        usdValue: "1",
        feePolicy: "p",
        fee: "0",
        confirmationNonce: `n-${id}`,
        legs: { create: [{ currency: "eth", amount, rate: "1", priceUsd: "3000", assetPriceUsd: "3000" }] },
      },
    });
    const w = { id, resellerId: r, asset: "eth", chainId: 31337, amount, legs: [{ currency: "eth", amount }] };
    await db.$transaction((tx) => reserveWithdrawal(tx, w, queuedAt));
    return w;
  };

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
    for (const [id, n] of [
      [r, 1],
      [other, 2],
    ] as const)
      await db.reseller.create({ data: { id, walletAddress: `0x${n.toString(16).padStart(40, "e")}` } });
    // August: two orders; A finishes on the month's last millisecond, on a smaller deposit.
    const a = await order("st-a", r, "eth", "0.03", at("2026-08-10T12:00:00Z"));
    const b = await order("st-b", r, "eth", "0.02", at("2026-08-12T12:00:00Z"));
    await db.$transaction((tx) => settleProfit(tx, a, new D("0.025"), at("2026-08-31T23:59:59.999Z")));
    // Another reseller's traffic never shows.
    const x = await order("st-x", other, "eth", "5", at("2026-08-15T00:00:00Z"));
    await db.$transaction((tx) => settleProfit(tx, x, new D("5"), at("2026-08-16T00:00:00Z")));
    // September: B fails at the month's first instant; a withdrawal is confirmed; another is queued.
    await db.$transaction((tx) => reverseProfit(tx, b, at("2026-09-01T00:00:00Z")));
    const w1 = await withdrawal("st-w1", "0.01", at("2026-09-05T00:00:00Z"));
    await db.$transaction((tx) => settleWithdrawal(tx, w1, at("2026-09-06T00:00:00Z")));
    const w2 = await withdrawal("st-w2", "0.005", at("2026-09-20T00:00:00Z"));
    // October: the queued withdrawal fails; a BTC order finishes; a third withdrawal stays reserved.
    await db.$transaction((tx) => restoreWithdrawal(tx, w2, at("2026-10-02T00:00:00Z")));
    const c = await order("st-c", r, "btc", "0.001", at("2026-10-03T00:00:00Z"));
    await db.$transaction((tx) => settleProfit(tx, c, new D("0.0012"), at("2026-10-04T00:00:00Z")));
    await withdrawal("st-w3", "0.004", at("2026-10-10T00:00:00Z"));
  });
  afterAll(async () => t.cleanup());

  it("shows each month's opening, credited, reversed, withdrawn and closing; each closing is the next opening", async () => {
    const s = await getStatements(db, { resellerId: r, now: at("2026-10-20T00:00:00Z") });
    expect(s.asOf).toBe("2026-10-20T00:00:00.000Z");
    const row = (
      currency: string,
      month: string,
      opening: string,
      credited: string,
      reversed: string,
      withdrawn: string,
      closing: string,
    ) => ({
      month,
      currency,
      opening,
      credited,
      reversed,
      withdrawn,
      closing,
    });
    expect(s.months).toEqual([
      row("btc", "2026-10", "0", "0.0012", "0", "0", "0.0012"),
      // 0.03 + 0.02 booked pending, A's 0.03 released and 0.025 credited: 0.045.
      row("eth", "2026-08", "0", "0.045", "0", "0", "0.045"),
      row("eth", "2026-09", "0.045", "0", "0.02", "0.01", "0.015"),
      // The failed withdrawal's restore and the queued one's reserve move nothing out of the balance.
      row("eth", "2026-10", "0.015", "0", "0", "0", "0.015"),
    ]);
  });

  it("every closing equals the ledger's sum of the entries before the month's end, and the last one the Balance row", async () => {
    const now = at("2026-10-20T00:00:00Z");
    const s = await getStatements(db, { resellerId: r, now });
    const entries = await db.ledgerEntry.findMany({ where: { resellerId: r } });
    for (const [i, m] of s.months.entries()) {
      const [y, mo] = m.month.split("-").map(Number);
      const end = new Date(Date.UTC(y, mo, 1));
      const sum = entries.filter((e) => e.currency === m.currency && e.createdAt < end).reduce((acc, e) => acc.plus(e.amount), new D(0));
      expect(new D(m.closing).eq(sum), `${m.currency} ${m.month}`).toBe(true);
      expect(new D(m.closing).eq(new D(m.opening).plus(m.credited).minus(m.reversed).minus(m.withdrawn))).toBe(true);
      const next = s.months[i + 1];
      if (next?.currency === m.currency) expect(next.opening).toBe(m.closing);
    }
    for (const b of await getBalances(db, r)) {
      const last = s.months.filter((m) => m.currency === b.currency).at(-1)!;
      expect(last.closing).toBe(new D(b.pending).plus(b.available).plus(b.reserved).toFixed());
    }
  });

  it("read at a past time, shows the books as they were then, up to that month", async () => {
    const s = await getStatements(db, { resellerId: r, now: at("2026-08-31T23:59:59.999Z") });
    expect(s.months).toEqual([
      { month: "2026-08", currency: "eth", opening: "0", credited: "0.045", reversed: "0", withdrawn: "0", closing: "0.045" },
    ]);
    // Months without entries still appear, carrying the balance.
    const later = await getStatements(db, { resellerId: r, now: at("2027-01-05T00:00:00Z") });
    expect(later.months.filter((m) => m.currency === "eth").map((m) => [m.month, m.opening, m.closing])).toEqual([
      ["2026-08", "0", "0.045"],
      ["2026-09", "0.045", "0.015"],
      ["2026-10", "0.015", "0.015"],
      ["2026-11", "0.015", "0.015"],
      ["2026-12", "0.015", "0.015"],
      ["2027-01", "0.015", "0.015"],
    ]);
    expect(await getStatements(db, { resellerId: "nobody", now: at("2026-10-20T00:00:00Z") })).toEqual({
      asOf: "2026-10-20T00:00:00.000Z",
      months: [],
    });
  });

  it("read in the middle of a day, leaves out that day's later postings (and a currency not there yet)", async () => {
    const day = "2026-11-10";
    await order("sd1", other, "eth", "0.5", at(`${day}T10:00:00Z`));
    await order("sd2", other, "eth", "0.25", at(`${day}T14:00:00Z`));
    await order("sd3", other, "xmr", "7", at(`${day}T15:00:00Z`));
    const noon = await getStatements(db, { resellerId: other, now: at(`${day}T12:00:00Z`) });
    expect(noon.months.filter((m) => m.month === "2026-11").map((m) => [m.currency, m.credited])).toEqual([["eth", "0.5"]]);
    const evening = await getStatements(db, { resellerId: other, now: at(`${day}T20:00:00Z`) });
    expect(evening.months.filter((m) => m.month === "2026-11").map((m) => [m.currency, m.credited])).toEqual([
      ["eth", "0.75"],
      ["xmr", "7"],
    ]);
  });

  it("the CSV has the documented columns, one row per month and currency", async () => {
    expect([...STATEMENT_CSV_COLUMNS]).toEqual([
      "month",
      "currency",
      "opening_balance",
      "profit_credited",
      "profit_reversed",
      "withdrawn",
      "closing_balance",
    ]);
    const csv = await new Response(statementsCsv(db, { resellerId: r, now: at("2026-10-20T00:00:00Z") })).text();
    expect(csv.split("\r\n")).toEqual([
      "month,currency,opening_balance,profit_credited,profit_reversed,withdrawn,closing_balance",
      "2026-10,btc,0,0.0012,0,0,0.0012",
      "2026-08,eth,0,0.045,0,0,0.045",
      "2026-09,eth,0.045,0,0.02,0.01,0.015",
      "2026-10,eth,0.015,0,0,0,0.015",
      "",
    ]);
  });
});

describe("monthsBetween", () => {
  it("walks calendar months across a year's end, both ends included", () => {
    expect(monthsBetween("2026-11", "2027-02")).toEqual(["2026-11", "2026-12", "2027-01", "2027-02"]);
    expect(monthsBetween("2026-05", "2026-05")).toEqual(["2026-05"]);
    expect(monthsBetween("2026-06", "2026-05")).toEqual([]);
  });
});
