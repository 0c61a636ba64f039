import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, LEDGER_INVARIANTS, type LedgerReport } from "@/lib/ledger/check";
import { post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { rawJournal, withoutTrigger } from "../support/ledger";
import { orderRow } from "../support/orders";
import { type ReusableDb, reusableDatabase } from "../support/reusable-db";

// The incremental check names what breaks after its checkpoint with the same invariant and the
// same words as the full check: pinned here, text and invariant, for rows written by hand.

const DATABASES = process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);
const invariant = (prefix: string) => LEDGER_INVARIANTS.find((i) => i.name.startsWith(prefix))!.name;

describe.each(DATABASES)("incremental check's messages on %s", (kind) => {
  let t: ReusableDb;
  let db: Db;
  const r = "m1";
  // One database per kind, emptied back to the template before each test (a PostgreSQL clone per test cost 5-10 s under load).
  beforeAll(async () => {
    t = await reusableDatabase(kind);
  });
  afterAll(async () => t?.cleanup());
  beforeEach(async () => {
    await t.reset();
    db = t.db;
    await db.reseller.create({ data: { id: r, walletAddress: `0x${"f".repeat(40)}` } });
    await db.$transaction((tx) =>
      post(tx, [{ resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("1") }]),
    );
    const base = await checkLedger(db, { mode: "incremental", writeCheckpoint: true, changeSlackMs: 0 });
    expect(base.ok).toBe(true);
  });
  const incremental = () => checkLedger(db, { mode: "incremental", changeSlackMs: 0 });
  const pairs = (rep: LedgerReport) => rep.violations.map((v) => [v.invariant, v.message]);

  it("an entry of a withdrawal kind without a withdrawal", async () => {
    await rawJournal(db, [{ resellerId: r, currency: "xmr", bucket: "available", kind: "withdrawal_reserve", amount: "-0.5" }]);
    const rep = await incremental();
    expect(rep.mode).toBe("incremental");
    expect(pairs(rep)).toEqual([
      [invariant("each balance"), `balance ${r}/xmr available is 1 but its entries sum to 0.5`],
      [invariant("every withdrawal's"), "1 entries mix withdrawal kinds and withdrawal ids"],
    ]);
  });

  it("a line added by hand to a journal written before the checkpoint", async () => {
    const j = await db.journal.findFirstOrThrow();
    // Refused by the database (a line goes into an open journal only): its guard is off, as an intruder could turn it off.
    const guard = { table: "JournalLine", postgres: "JournalLine_in_open_journal", sqlite: "JournalLine_in_open_journal" };
    await withoutTrigger(db, kind, guard, () =>
      db.journalLine.create({ data: { journalId: j.id, account: "world", currency: "xmr", amount: "1" } }),
    );
    const rep = await incremental();
    expect(rep.mode).toBe("incremental");
    // The journal's rows below the checkpoint count too: its entry and its first line.
    const named = [
      [invariant("every journal"), `journal ${j.id} (${j.kind}) has 3 lines, it says 2`],
      [invariant("every journal"), `journal ${j.id} (${j.kind}) does not balance in xmr: its lines sum to 1`],
    ];
    expect(pairs(rep)).toEqual(named);
    expect(pairs(await checkLedger(db))).toEqual(named);
  });

  it("an entry of an order without a reseller", async () => {
    const o = await db.order.create({
      data: orderRow("m-keyless", { resellerId: null, toCurrency: "xmr", profit: "0.5", expiresAt: new Date() }),
    });
    await rawJournal(db, [
      { resellerId: r, currency: "xmr", bucket: "pending", kind: "order_profit_pending", amount: "0.5", orderId: o.id },
    ]);
    const rep = await incremental();
    expect(rep.mode).toBe("incremental");
    expect(pairs(rep)).toEqual([
      [invariant("each balance"), `balance ${r}/xmr pending is 0 but its entries sum to 0.5`],
      [invariant("every order's profit"), "1 entries belong to orders without a reseller"],
    ]);
    // The full check words it the same.
    expect(pairs(await checkLedger(db))).toContainEqual([
      invariant("every order's profit"),
      "1 entries belong to orders without a reseller",
    ]);
  });
  it("new entries whose daily rollup rows are gone, on two days: named day by day, oldest first", async () => {
    // Two new credits, one dated two days back, one today; then both days' rows are deleted by hand.
    const old = new Date(Date.now() - 2 * 86_400_000);
    await rawJournal(db, [
      { resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: "2", createdAt: old },
    ]);
    await rawJournal(db, [{ resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: "3" }]);
    await db.balance.update({ where: { resellerId_currency: { resellerId: r, currency: "xmr" } }, data: { available: "6" } });
    const [d1, d2] = [old, new Date()].map((d) => d.toISOString().slice(0, 10));
    await db.ledgerDaily.deleteMany({ where: { resellerId: r, day: { in: [d1, d2] } } });
    const rep = await incremental();
    expect(rep.mode).toBe("incremental");
    const rollup = rep.violations.filter((v) => v.message.startsWith("entries of")).map((v) => [v.invariant, v.message]);
    // Today's row also held the first credit (1, before the checkpoint): the day's entries are read whole.
    expect(rollup).toEqual([
      [invariant("each daily rollup"), `entries of ${r}/order_profit_settle/available/${d1}/xmr sum to 2 but have no rollup row`],
      [invariant("each daily rollup"), `entries of ${r}/order_profit_settle/available/${d2}/xmr sum to 4 but have no rollup row`],
    ]);
  });
  // One corruption per invariant (LEDGER_INVARIANTS' ids), written after the checkpoint: the
  // incremental check names it under that invariant, with the same words as the full check.
  const today = () => new Date().toISOString().slice(0, 10);
  const CORRUPTIONS: Record<string, () => Promise<unknown>> = {
    entries: () => rawJournal(db, [{ resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_bonus", amount: "0.5" }]),
    balances: () => db.balance.update({ where: { resellerId_currency: { resellerId: r, currency: "xmr" } }, data: { available: "7" } }),
    // Finished, with a profit, and never credited.
    orders: () =>
      db.order.create({
        data: orderRow("m-finished", { resellerId: r, toCurrency: "xmr", profit: "0.5", status: "finished", expiresAt: new Date() }),
      }),
    withdrawals: () =>
      rawJournal(db, [{ resellerId: r, currency: "xmr", bucket: "available", kind: "withdrawal_reserve", amount: "-0.5" }]),
    // A line added to the journal written before the checkpoint (its guard off, as an intruder could turn it off).
    journals: async () => {
      const j = await db.journal.findFirstOrThrow();
      const guard = { table: "JournalLine", postgres: "JournalLine_in_open_journal", sqlite: "JournalLine_in_open_journal" };
      await withoutTrigger(db, kind, guard, () =>
        db.journalLine.create({ data: { journalId: j.id, account: "world", currency: "xmr", amount: "1" } }),
      );
    },
    // A new credit, then its day's rollup row changed by hand.
    "daily-rollup": async () => {
      await post1();
      await db.ledgerDaily.updateMany({ where: { resellerId: r, day: today() }, data: { amount: "9" } });
    },
    "channel-rollup": async () => {
      await post1();
      await db.channelDaily.updateMany({ where: { resellerId: r, day: today() }, data: { profit: "9" } });
    },
  };
  const post1 = () =>
    db.$transaction((tx) =>
      post(tx, [{ resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("1") }]),
    );

  it("every invariant has a corruption below", () => {
    expect(Object.keys(CORRUPTIONS).sort()).toEqual(LEDGER_INVARIANTS.map((i) => i.id).sort());
  });

  it.each(LEDGER_INVARIANTS.map((i) => [i.id, i] as const))(
    "%s: a row corrupted after the checkpoint is found by both checks",
    async (id, inv) => {
      await CORRUPTIONS[id]();
      const of = (rep: LedgerReport) => rep.violations.filter((v) => v.invariant === inv.name).map((v) => v.message);
      const rep = await incremental();
      expect(rep.mode).toBe("incremental");
      const found = of(rep);
      expect(found.length).toBeGreaterThan(0);
      expect(of(await checkLedger(db, { maxViolations: 1000 }))).toEqual(found);
    },
  );
});
