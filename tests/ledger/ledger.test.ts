import { execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, LEDGER_INVARIANTS } from "@/lib/ledger/check";
import {
  getBalances,
  InsufficientBalanceError,
  type Posting,
  post,
  recordPendingProfit,
  reverseProfit,
  settleProfit,
} from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { bundledScript } from "../support/bundle";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// The ledger on both real databases: the database itself refuses to rewrite history or to
// let a balance go negative, and the balance rows always equal the sum of their entries.

// Under mutation testing (vitest.mutation.config.ts sets MUTATION_RUN) the multi-process test
// is left out: its child processes load the unmutated sources, so it could not kill a mutant.
const mutationRun = process.env.MUTATION_RUN === "1";
// Under mutation testing SQLite only: PostgreSQL doubles every mutant's time (its own code path
// is listed as not covered in the note of issue 9).
const DATABASES = mutationRun ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);

describe.each(DATABASES)("ledger on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let n = 0;
  const reseller = async () => {
    const id = `r${++n}`;
    await db.reseller.create({ data: { id, walletAddress: `0x${n.toString(16).padStart(40, "0")}` } });
    return id;
  };
  const makeOrder = (id: string, resellerId: string, profit = "0.75") =>
    db.order.create({
      data: {
        id,
        resellerId,
        fromCurrency: "btc",
        toCurrency: "xmr",
        fromAmount: "1",
        rate: "1",
        rawToAmount: "50",
        toAmount: new D(50).minus(profit).toFixed(),
        platformFeeBps: 25,
        markupBps: 150,
        profit,
        payinAddress: "x",
        payoutAddress: "y",
        status: "waiting",
        expiresAt: new Date(),
      },
    });
  const credit = (resellerId: string, currency: string, amount: string) =>
    db.$transaction((tx) => post(tx, [{ resellerId, currency, bucket: "available", kind: "order_profit_settle", amount: new D(amount) }]));

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(async () => t.cleanup());

  it("refuses UPDATE, DELETE (and TRUNCATE) on ledger entries, whoever sends the SQL", async () => {
    const r = await reseller();
    await credit(r, "eth", "1.5");
    const before = await db.ledgerEntry.findMany({ where: { resellerId: r } });
    expect(before).toHaveLength(1);
    await expect(db.$executeRawUnsafe(`UPDATE "LedgerEntry" SET "amount" = '999' WHERE "resellerId" = '${r}'`)).rejects.toThrow(
      /append-only: UPDATE refused/,
    );
    await expect(db.$executeRawUnsafe(`UPDATE "LedgerEntry" SET "kind" = 'x'`)).rejects.toThrow(/append-only/);
    await expect(db.$executeRawUnsafe(`DELETE FROM "LedgerEntry" WHERE "resellerId" = '${r}'`)).rejects.toThrow(
      /append-only: DELETE refused/,
    );
    await expect(db.ledgerEntry.deleteMany({})).rejects.toThrow();
    if (kind === "postgres") await expect(db.$executeRawUnsafe(`TRUNCATE "LedgerEntry" CASCADE`)).rejects.toThrow(/append-only/);
    expect(await db.ledgerEntry.findMany({ where: { resellerId: r } })).toEqual(before);
  });

  it("refuses a negative balance in the database itself", async () => {
    const r = await reseller();
    await credit(r, "eth", "1");
    const neg = kind === "postgres" ? "-1" : "'-1'";
    await expect(db.$executeRawUnsafe(`UPDATE "Balance" SET "available" = ${neg} WHERE "resellerId" = '${r}'`)).rejects.toThrow(/negative/);
    await expect(
      db.$executeRawUnsafe(`INSERT INTO "Balance" ("resellerId", "currency", "reserved") VALUES ('${r}', 'btc', ${neg})`),
    ).rejects.toThrow(/negative/);
  });

  it("deleting a reseller never takes its money along: refused while it has orders or entries", async () => {
    const r = await reseller();
    await credit(r, "eth", "2");
    await expect(db.reseller.delete({ where: { id: r } })).rejects.toThrow();
    expect(await getBalances(db, r)).toEqual([{ currency: "eth", pending: "0", available: "2", reserved: "0" }]);
    const r2 = await reseller();
    // No profit: an open order's profit must be pending (the integrity check below), and this one posts none.
    await makeOrder(`o-${r2}`, r2, "0");
    await expect(db.reseller.delete({ where: { id: r2 } })).rejects.toThrow();
    expect(await db.order.count({ where: { resellerId: r2 } })).toBe(1);
  });

  it("an order's profit: pending at creation, available on finish, reversed on failure, each once", async () => {
    const r = await reseller();
    const a = await makeOrder(`a-${r}`, r);
    const b = await makeOrder(`b-${r}`, r);
    await db.$transaction((tx) => recordPendingProfit(tx, a, new D("0.75")));
    await db.$transaction((tx) => recordPendingProfit(tx, b, new D("0.75")));
    expect(await getBalances(db, r)).toEqual([{ currency: "xmr", pending: "1.5", available: "0", reserved: "0" }]);

    // a finishes, re-priced on a smaller deposit (profit 0.6); b fails.
    await db.order.update({ where: { id: a.id }, data: { status: "finished", profit: "0.6" } });
    await db.$transaction((tx) => settleProfit(tx, a, new D("0.6")));
    expect(await getBalances(db, r)).toEqual([{ currency: "xmr", pending: "0.75", available: "0.6", reserved: "0" }]);
    // Settling twice cannot double-credit: the unique (orderId, kind) refuses it and the transaction rolls back.
    await expect(db.$transaction((tx) => settleProfit(tx, a, new D("0.6")))).rejects.toThrow();
    expect(await getBalances(db, r)).toEqual([{ currency: "xmr", pending: "0.75", available: "0.6", reserved: "0" }]);
    await db.order.update({ where: { id: b.id }, data: { status: "failed" } });
    await db.$transaction((tx) => reverseProfit(tx, b));
    expect(await getBalances(db, r)).toEqual([{ currency: "xmr", pending: "0", available: "0.6", reserved: "0" }]);
    expect(await db.ledgerEntry.count({ where: { resellerId: r } })).toBe(5);
    const kinds = await db.ledgerEntry.findMany({
      where: { resellerId: r },
      orderBy: { id: "asc" },
      select: { orderId: true, kind: true },
    });
    expect(kinds).toEqual([
      { orderId: a.id, kind: "order_profit_pending" },
      { orderId: b.id, kind: "order_profit_pending" },
      { orderId: a.id, kind: "order_profit_release" },
      { orderId: a.id, kind: "order_profit_settle" },
      { orderId: b.id, kind: "order_profit_reverse" },
    ]);
  });

  it("a zero posting writes no entry, an unknown bucket is refused, balances are listed by currency", async () => {
    const r = await reseller();
    const one = (currency: string, amount: string, bucket = "available"): Posting =>
      ({ resellerId: r, currency, bucket, kind: "order_profit_settle", amount: new D(amount) }) as Posting;
    await db.$transaction((tx) => post(tx, [one("xmr", "0"), one("xmr", "1")]));
    expect(await db.ledgerEntry.findMany({ where: { resellerId: r }, select: { currency: true, amount: true } })).toEqual([
      { currency: "xmr", amount: "1" },
    ]);
    await expect(db.$transaction((tx) => post(tx, [one("xmr", "1", "bogus")]))).rejects.toThrow("unknown bucket bogus");
    await db.$transaction((tx) => post(tx, [one("eth", "2")]));
    await db.$transaction((tx) => post(tx, [one("btc", "3")]));
    expect((await getBalances(db, r)).map((b) => [b.currency, b.available])).toEqual([
      ["btc", "3"],
      ["eth", "2"],
      ["xmr", "1"],
    ]);
  });

  it("a change that would take a bucket below zero is refused and leaves nothing behind", async () => {
    const r = await reseller();
    await credit(r, "btc", "0.3");
    const entries = await db.ledgerEntry.count();
    const overdraw = db.$transaction((tx) =>
      post(tx, [{ resellerId: r, currency: "btc", bucket: "available", kind: "order_profit_reverse", amount: new D("-0.30000001") }]),
    );
    await expect(overdraw).rejects.toBeInstanceOf(InsufficientBalanceError);
    expect(await db.ledgerEntry.count()).toBe(entries);
    expect(await getBalances(db, r)).toEqual([{ currency: "btc", pending: "0", available: "0.3", reserved: "0" }]);
    // Exactly what is there can go.
    await db.$transaction((tx) =>
      post(tx, [{ resellerId: r, currency: "btc", bucket: "available", kind: "order_profit_reverse", amount: new D("-0.3") }]),
    );
    expect((await getBalances(db, r))[0].available).toBe("0");
  });

  it("balances are exact: ten times 0.1 is 1, and 30 decimal places survive", async () => {
    const r = await reseller();
    for (let i = 0; i < 10; i++) await credit(r, "eth", "0.1");
    await credit(r, "xmr", "123456789.123456789012345678901234567891");
    expect(await getBalances(db, r)).toEqual([
      { currency: "eth", pending: "0", available: "1", reserved: "0" },
      { currency: "xmr", pending: "0", available: "123456789.123456789012345678901234567891", reserved: "0" },
    ]);
  });

  it.skipIf(mutationRun)(
    "20 concurrent reservations from 4 processes never reserve more than is available",
    async () => {
      const r = await reseller();
      await credit(r, "eth", "5");
      // Separate processes, so the database's locking arbitrates (one process's client would queue them).
      // The child script bundled once (tests/support/bundle.ts): plain node starts it, no tsx loader.
      const script = await bundledScript("tests/ledger/reserve-child.ts");
      const child = () =>
        new Promise<{ reserved: number; refused: number }>((resolve, reject) => {
          execFile(
            process.execPath,
            [script],
            { env: { ...process.env, DATABASE_URL: t.url, RESELLER_ID: r, RESERVE_COUNT: "5" } },
            (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
          );
        });
      const results = await Promise.all([child(), child(), child(), child()]);
      expect(results.reduce((s, x) => s + x.reserved, 0)).toBe(5);
      expect(results.reduce((s, x) => s + x.refused, 0)).toBe(15);
      expect(await getBalances(db, r)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: "5" }]);
      const sum = (await db.ledgerEntry.findMany({ where: { resellerId: r, bucket: "reserved" } })).reduce(
        (s, e) => s.plus(e.amount),
        new D(0),
      );
      expect(sum.toFixed()).toBe("5");
    },
    120_000,
  );

  it("the integrity check passes on a consistent ledger and names the first broken invariant", async () => {
    // (The reservation test above used kinds only withdrawals will define.)
    const invariants = LEDGER_INVARIANTS.filter(
      (i) => i.name === "each balance equals the sum of its entries and is not negative" || i.name.startsWith("every order"),
    );
    expect(await checkLedger(db, { invariants })).toMatchObject({ ok: true, violations: [] });

    const r = await reseller();
    const o = await makeOrder(`c-${r}`, r, "0.5");
    await db.$transaction((tx) => recordPendingProfit(tx, o, new D("0.5")));
    expect((await checkLedger(db, { invariants })).ok).toBe(true);

    // A finished order whose profit was never credited.
    await db.order.update({ where: { id: o.id }, data: { status: "finished" } });
    const missing = await checkLedger(db, { invariants });
    expect(missing.ok).toBe(false);
    expect(missing.violations.map((v) => v.message)).toEqual([
      `order ${o.id} is finished but 0.5 of its profit is still pending`,
      `finished order ${o.id} has 0 profit credits, expected 1`,
    ]);
    await db.$transaction((tx) => settleProfit(tx, o, new D("0.5")));
    expect((await checkLedger(db, { invariants })).ok).toBe(true);

    // A balance row changed behind the ledger's back (balances are not append-only, entries are).
    await db.balance.update({ where: { resellerId_currency: { resellerId: r, currency: "xmr" } }, data: { available: "0.6" } });
    const tampered = await checkLedger(db, { invariants });
    expect(tampered.violations).toEqual([
      {
        invariant: "each balance equals the sum of its entries and is not negative",
        message: `balance ${r}/xmr available is 0.6 but its entries sum to 0.5`,
      },
    ]);
    await db.balance.update({ where: { resellerId_currency: { resellerId: r, currency: "xmr" } }, data: { available: "0.5" } });
    expect((await checkLedger(db, { invariants })).ok).toBe(true);
  });
});
