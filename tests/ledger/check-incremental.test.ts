import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, type LedgerReport } from "@/lib/ledger/check";
import { post, recordPayoutMined, recordPendingProfit, settleProfit } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { rebuildChannelRollup } from "../support/channel-rollup";
import { rawJournal, withoutTrigger } from "../support/ledger";
import { orderRow } from "../support/orders";
import { type ReusableDb, reusableDatabase } from "../support/reusable-db";
import { queryPlan, tracedStatements } from "../support/sqlite-db";
import { sentWithdrawal } from "../support/withdrawals";

// The incremental ledger check (lib/ledger/check.ts, docs/ledger.md "The check"): from the
// latest checkpoint it reads only the rows after it, finds what breaks after it, and, the
// trade-off, trusts what lies below it: a row changed there by hand is found by a full check only.

const DATABASES = process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);

describe.each(DATABASES)("incremental ledger check on %s", (kind) => {
  let t: ReusableDb;
  let db: Db;
  let n = 0;
  const reseller = async () => {
    const id = `i${++n}`;
    await db.reseller.create({ data: { id, walletAddress: `0x${n.toString(16).padStart(40, "d")}` } });
    return id;
  };
  const credit = (resellerId: string, amount: string, currency = "xmr") =>
    db.$transaction((tx) => post(tx, [{ resellerId, currency, bucket: "available", kind: "order_profit_settle", amount: new D(amount) }]));
  const incremental = () => checkLedger(db, { mode: "incremental", writeCheckpoint: true });
  const full = () => checkLedger(db, { mode: "full", writeCheckpoint: true });
  const messages = (r: LedgerReport) => r.violations.map((v) => v.message);
  const written = (r: LedgerReport) => {
    if (!r.checkpoint || "skipped" in r.checkpoint) throw new Error(`no checkpoint: ${JSON.stringify(r.checkpoint)}`);
    return r.checkpoint;
  };
  /** Runs `fn` with the append-only trigger of JournalLine off. */
  const withoutLineGuard = (fn: () => Promise<unknown>) =>
    withoutTrigger(db, kind, { table: "JournalLine", postgres: "JournalLine_append_only", sqlite: "JournalLine_no_update" }, fn);

  beforeAll(async () => {
    t = await reusableDatabase(kind);
    db = t.db;
  });
  afterAll(async () => t.cleanup());

  it("without a checkpoint it runs full; a clean check writes one, which the next check starts from", async () => {
    const r = await reseller();
    await rawJournal(
      db,
      Array.from({ length: 3_000 }, () => ({
        resellerId: r,
        currency: "eth",
        bucket: "available",
        kind: "order_profit_settle",
        amount: "0.001",
      })),
    );
    await db.balance.create({ data: { resellerId: r, currency: "eth", available: "3" } });
    const first = await incremental();
    expect(first).toMatchObject({ ok: true, mode: "full" });
    const cp = written(first);
    const top = await db.ledgerEntry.aggregate({ _max: { id: true } });
    expect(cp.lastEntryId).toBe(top._max.id);
    // Nothing new: nothing read but the balances; the checkpoint moves on (a later time, the same ids).
    const again = await incremental();
    expect(again).toMatchObject({ ok: true, mode: "incremental", from: { id: cp.id } });
    expect(again.stats).toEqual({ entries: 0, lines: 0, journals: 0, orders: 0, withdrawals: 0, balances: 1 });
    expect(written(again)).toMatchObject({ lastEntryId: cp.lastEntryId, lastLineId: cp.lastLineId });
  });

  it("after new postings it passes, reading only the new rows (and the journals and orders they name)", async () => {
    const r = await reseller();
    for (let i = 0; i < 5; i++) await credit(r, "1");
    const o = await db.order.create({
      data: orderRow(`io-${r}`, { resellerId: r, toCurrency: "xmr", profit: "0.5", expiresAt: new Date() }),
    });
    await db.$transaction((tx) => recordPendingProfit(tx, o, new D("0.5")));
    await rebuildChannelRollup(db); // the order was written around lib/orders
    const report = await incremental();
    expect(messages(report)).toEqual([]);
    expect(report.mode).toBe("incremental");
    // 6 new entries and 6 operator lines (one per journal), each read once, by the scan after the checkpoint: their journals
    // have no rows below it, nor have the two daily rollup rows they add to (today's settled and pending profit of this
    // reseller), nor the channel rollup's day. The order's entry is read again with the order; the order again for that day.
    expect(report.stats).toMatchObject({ entries: 6 + 1, lines: 6, journals: 6, orders: 1 + 1, withdrawals: 0 });
    // The full check reads the 3,000 entries of the first test, several times over.
    const all = await full();
    expect(all.ok).toBe(true);
    expect(all.stats.entries).toBeGreaterThan(3 * 3_000);
  });

  it("finds a daily rollup row that a new entry adds to and that no longer equals its day's entries", async () => {
    const r = await reseller();
    await credit(r, "1");
    written(await incremental());
    await credit(r, "2");
    const day = new Date().toISOString().slice(0, 10);
    const where = {
      resellerId_kind_bucket_day_currency: { resellerId: r, kind: "order_profit_settle", bucket: "available", day, currency: "xmr" },
    };
    // Right after the posting, the row holds both entries; then it is edited behind the ledger's back.
    expect((await db.ledgerDaily.findUniqueOrThrow({ where })).amount).toBe("3");
    await db.ledgerDaily.update({ where, data: { amount: "2" } });
    const report = await incremental();
    expect(messages(report)).toEqual([`rollup ${r}/xmr ${day} order_profit_settle available is 2 but its entries sum to 3`]);
    // Put back, for the tests after this one.
    await db.ledgerDaily.update({ where, data: { amount: "3" } });
    expect((await incremental()).ok).toBe(true);
  });

  it.runIf(kind === "sqlite")(
    "SQLite reads the touched days of the rollups by their (resellerId, kind, createdAt) ranges, never a reseller's whole ledger",
    async () => {
      const r = await reseller();
      await credit(r, "1");
      written(await incremental());
      await credit(r, "2");
      const statements = await tracedStatements(t.url, (traced) => checkLedger(traced, { mode: "incremental" }));
      // The day reads: entries and orders by creation time (paged by id, the planner walked the
      // reseller's whole ledger by its (resellerId, id) index: 17 s at 10M lines).
      // Prisma's statements quote with backticks, the check's own with double quotes.
      const dayReads = statements.filter((q) => /FROM (`main`\.)?[`"](LedgerEntry|Order)[`"]/.test(q) && /[`"]createdAt[`"] >= /.test(q));
      expect(dayReads.length).toBeGreaterThanOrEqual(2);
      for (const q of dayReads) {
        const plan = queryPlan(t.url, q);
        expect(plan, q).toMatch(
          /USING INDEX (LedgerEntry_resellerId_kind_createdAt_idx|Order_resellerId_createdAt_id_idx) \(resellerId=\?.*createdAt>\?/,
        );
        expect(plan, q).not.toMatch(/TEMP B-TREE/);
      }
    },
  );

  it("counts a credit posted after the checkpoint under its order's channel", async () => {
    const r = await reseller();
    const o = await db.order.create({
      data: orderRow(`ic-${r}`, { resellerId: r, channel: "hosted", toCurrency: "xmr", profit: "0.5", expiresAt: new Date() }),
    });
    await db.$transaction((tx) => recordPendingProfit(tx, o, new D("0.5")));
    await rebuildChannelRollup(db); // the order was written around lib/orders
    written(await incremental());
    // Finished after the checkpoint: its credit is a new entry, read by the scan, not with the day's older credits.
    const finished = await db.order.update({ where: { id: o.id }, data: { status: "finished" } });
    await db.$transaction((tx) => settleProfit(tx, finished, new D("0.5")));
    const report = await incremental();
    expect(messages(report)).toEqual([]);
    expect(report.mode).toBe("incremental");
    const day = o.createdAt.toISOString().slice(0, 10);
    await db.channelDaily.update({
      // The credit's row: its currency is the credit's (the order's row, in the order's fromCurrency, counts the order).
      where: { resellerId_day_channel_currency: { resellerId: r, day, channel: "hosted", currency: "xmr" } },
      data: { profit: "0.4" },
    });
    await credit(r, "1"); // a new credit of the day again (no channel), so that the day is read again
    expect(messages(await incremental())).toEqual([`channel rollup ${r}/hosted/${day}/xmr has profit 0.4 but its credits sum to 0.5`]);
  });

  it("finds a balance edited by hand, an unfinished journal and an order finished without its credit, after the checkpoint", async () => {
    const r = await reseller();
    const o = await db.order.create({
      data: orderRow(`if-${r}`, { resellerId: r, toCurrency: "xmr", profit: "0.5", expiresAt: new Date() }),
    });
    await db.$transaction((tx) => recordPendingProfit(tx, o, new D("0.5")));
    await rebuildChannelRollup(db); // the order was written around lib/orders
    written(await incremental());
    await credit(r, "2");
    // A balance edited behind the ledger's back (every Balance row is compared, changed or not).
    await db.balance.update({ where: { resellerId_currency: { resellerId: r, currency: "xmr" } }, data: { available: "3" } });
    // Lines whose journal row was never written.
    await db.journalLine.create({ data: { journalId: `open-${r}`, account: "world", currency: "xmr", amount: "1" } });
    // An order that finishes without its profit posted: it adds no entry, its updatedAt tells.
    await db.order.update({ where: { id: o.id }, data: { status: "finished" } });

    const report = await incremental();
    expect(report.mode).toBe("incremental");
    expect(messages(report).sort()).toEqual(
      [
        `balance ${r}/xmr available is 3 but its entries sum to 2`,
        `lines of journal open-${r} have no journal row`,
        `order ${o.id} is finished but 0.5 of its profit is still pending`,
        `finished order ${o.id} has 0 profit credits, expected 1`,
        // Finished around lib/orders, so the channel rollup did not count it either (its day is re-read: its updatedAt).
        `channel rollup ${r}/none/${o.createdAt.toISOString().slice(0, 10)}/btc counts 1 orders, 0 finished, but its orders give 1, 1`,
        `channel rollup ${r}/none/${o.createdAt.toISOString().slice(0, 10)}/btc has volume 0 but its finished orders sum to 0.1`,
      ].sort(),
    );
    expect(report.checkpoint).toBeUndefined();
    // The full check finds the same.
    expect(messages(await full()).sort()).toEqual(messages(report).sort());
  });

  it("finds a payout booked mined twice after the checkpoint: a journal of operator lines only names its withdrawal, whose row did not change", async () => {
    // A clean slate, as below: the database emptied back to its template (cheaper than a new one).
    await t.reset();
    const r = await reseller();
    await credit(r, "1");
    const w = await sentWithdrawal(db, { id: `iw-${r}`, resellerId: r, txHash: "0xi1" });
    // No slack: the withdrawal's row, written before the checkpoint, is not re-read for its updatedAt.
    const check = () => checkLedger(db, { mode: "incremental", writeCheckpoint: true, changeSlackMs: 0 });
    written(await check());
    // Booked mined a second time (a bug): only operator lines, and no change to the withdrawal's row.
    await db.$transaction((tx) => recordPayoutMined(tx, w, null));
    const report = await check();
    expect(report.mode).toBe("incremental");
    expect(messages(report)).toEqual([`withdrawal ${w.id} (sent) books 1 of its payout of 0.5 eth as on chain`]);
    expect(messages(await full())).toEqual(messages(report));
  });

  it("trusts the rows below its checkpoint: an old line changed by hand is found by --full only", async () => {
    // A clean slate: the database emptied back to its template, so that the violations above are not in the way.
    await t.reset();
    const r = await reseller();
    await credit(r, "1");
    written(await incremental());
    const oldLine = await db.journalLine.findFirstOrThrow({ orderBy: { id: "asc" } });
    await withoutLineGuard(() => db.journalLine.update({ where: { id: oldLine.id }, data: { amount: "-2" } }));
    await credit(r, "1");
    // Below the checkpoint: not read again.
    const inc = await incremental();
    expect(inc).toMatchObject({ ok: true, mode: "incremental" });
    const all = await checkLedger(db, { mode: "full" });
    expect(messages(all)).toEqual([`journal ${oldLine.journalId} (adjustment) does not balance in xmr: its lines sum to -1`]);
  });
});
