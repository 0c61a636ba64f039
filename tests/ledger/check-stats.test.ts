import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, type LedgerReport } from "@/lib/ledger/check";
import { post, recordPayoutMined, recordPendingProfit } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { rebuildChannelRollup } from "../support/channel-rollup";
import { orderRow } from "../support/orders";
import { type ReusableDb, reusableDatabase } from "../support/reusable-db";
import { sentWithdrawal } from "../support/withdrawals";

// What the ledger check reports it read (LedgerReport.stats, printed by ledger:check): pinned to
// the row on a small known ledger, full and incremental, so a scan that stops counting (or counts
// twice) is seen.

const DATABASES = process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);

describe.each(DATABASES)("ledger check statistics on %s", (kind) => {
  let t: ReusableDb;
  let db: Db;
  // One database per kind, emptied back to the template before each test (a PostgreSQL clone per test cost 5-10 s under load).
  beforeAll(async () => {
    t = await reusableDatabase(kind);
  });
  afterAll(async () => t?.cleanup());
  beforeEach(async () => {
    await t.reset();
    db = t.db;
  });

  const messages = (r: LedgerReport) => r.violations.map((v) => v.message);
  const credit = (resellerId: string, amount: string) =>
    db.$transaction((tx) =>
      post(tx, [{ resellerId, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D(amount) }]),
    );
  /** A reseller with two credits, an order with its pending profit, and a withdrawal reserved and mined. */
  const smallLedger = async (mined = true) => {
    const r = "s1";
    await db.reseller.create({ data: { id: r, walletAddress: `0x${"e".repeat(40)}` } });
    await credit(r, "1");
    await credit(r, "2");
    const o = await db.order.create({
      data: orderRow(`so-${r}`, { resellerId: r, toCurrency: "xmr", profit: "0.5", expiresAt: new Date() }),
    });
    await db.$transaction((tx) => recordPendingProfit(tx, o, new D("0.5")));
    const w = await sentWithdrawal(db, { id: `sw-${r}`, resellerId: r, txHash: "0xs1", mined });
    await rebuildChannelRollup(db);
    return { r, o, w };
  };

  it("a full check reports the rows it read", async () => {
    await smallLedger();
    // 5 entries and 7 operator lines in 5 journals, 1 order with a reseller, 1 withdrawal.
    expect([await db.ledgerEntry.count(), await db.journalLine.count(), await db.journal.count()]).toEqual([5, 7, 5]);
    const report = await checkLedger(db, { mode: "full", writeCheckpoint: true });
    expect(messages(report)).toEqual([]);
    // Entries: read by several invariants (each journal's lines, balances, daily rollups, orders,
    // withdrawals, the channel rollup's credits); lines by "every journal" and the withdrawal's journals.
    expect(report.stats).toEqual({ entries: 20, lines: 9, journals: 7, orders: 2, withdrawals: 1, balances: 1 });
    // The same again: the statistics are of one check, not a running total.
    expect((await checkLedger(db)).stats).toEqual(report.stats);
  });

  it("an incremental check reports the rows after its checkpoint", async () => {
    const { r } = await smallLedger();
    const first = await checkLedger(db, { mode: "incremental", writeCheckpoint: true, changeSlackMs: 0 });
    expect(first.ok).toBe(true);
    await credit(r, "3");
    const next = await checkLedger(db, { mode: "incremental", writeCheckpoint: true, changeSlackMs: 0 });
    expect(messages(next)).toEqual([]);
    // The new entry and its journal's line, each read once; for its daily and its channel rollup rows, the day's two credits
    // before the checkpoint (each read once per rollup) and the day's order; no order or withdrawal changed.
    expect(next.stats).toEqual({ entries: 1 + 2 + 2, lines: 1, journals: 1, orders: 1, withdrawals: 0, balances: 1 });
    // With the default slack the order and withdrawal written just before are read again.
    const slack = await checkLedger(db, { mode: "incremental", writeCheckpoint: true });
    expect(messages(slack)).toEqual([]);
    expect(slack.stats).toEqual({ entries: 6, lines: 2, journals: 2, orders: 2, withdrawals: 1, balances: 1 });
  });

  it("an incremental check after a payout is mined reads its journal of operator lines and its withdrawal", async () => {
    const { w } = await smallLedger(false);
    expect((await checkLedger(db, { mode: "incremental", writeCheckpoint: true, changeSlackMs: 0 })).ok).toBe(true);
    await db.$transaction((tx) => recordPayoutMined(tx, w, { asset: "eth", amount: new D("0.000021") }));
    const next = await checkLedger(db, { mode: "incremental", writeCheckpoint: true, changeSlackMs: 0 });
    expect(messages(next)).toEqual([]);
    // The mined journal has no entry: found by its lines (each read once), its withdrawal read by the journal's row (4 journals:
    // the lines-only one by its row, then the withdrawal's journals), no order.
    expect(next.stats).toEqual({ entries: 2, lines: 6, journals: 4, orders: 0, withdrawals: 1, balances: 1 });
  });
});
