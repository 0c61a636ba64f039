import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, type LedgerReport } from "@/lib/ledger/check";
import { getBalances, InsufficientBalanceError, post, recordTreasuryDeposit } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { PG_ADMIN_URL } from "../support/server";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { sentWithdrawal } from "../support/withdrawals";

// The PostgreSQL-only code of lib/ledger, on PostgreSQL also under mutation testing
// (vitest.mutation.config.ts), where the other ledger tests run on SQLite alone, so that those
// runs reach it: the balance, daily and channel rollup writes in SQL (NUMERIC, no read first), and
// the incremental check's wait for late commits (lib/ledger/check.ts, lateRowsSettled): ids
// are drawn at insert and seen at commit, so before a checkpoint is written the check waits for
// the transactions open at its snapshot and counts the rows below the new ids again.

describe("lib/ledger on postgres", () => {
  let t: TempDb;
  let db: Db;
  let n = 0;
  const reseller = async () => {
    const id = `p${++n}`;
    await db.reseller.create({ data: { id, walletAddress: `0x${n.toString(16).padStart(40, "e")}` } });
    return id;
  };
  const credit = (resellerId: string, amount: string) =>
    db.$transaction((tx) =>
      post(tx, [{ resellerId, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D(amount) }]),
    );
  const incremental = () => checkLedger(db, { mode: "incremental", writeCheckpoint: true });
  const written = (r: LedgerReport) => {
    if (!r.checkpoint || "skipped" in r.checkpoint) throw new Error(`no checkpoint: ${JSON.stringify(r.checkpoint)}`);
    return r.checkpoint;
  };
  /**
   * Opens a transaction that runs `work` and then stays open until `release()`; resolves once
   * `work` is done (its ids drawn, nothing committed).
   */
  const heldOpen = async (work: (tx: Parameters<Parameters<Db["$transaction"]>[0]>[0]) => Promise<unknown>) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let done!: () => void;
    const started = new Promise<void>((resolve) => {
      done = resolve;
    });
    const committed = db.$transaction(
      async (tx) => {
        await work(tx);
        done();
        await gate;
      },
      { timeout: 60_000 },
    );
    await started;
    return { release, committed };
  };
  /** The database's clock now: a check started after it is told by its statements' start times. */
  const dbNow = async () => (await db.$queryRawUnsafe<{ now: Date }[]>(`SELECT clock_timestamp() AS now`))[0].now;
  /**
   * Until a session has started the check's wait statement since `since` (or 20 s went by). An
   * idle connection keeps showing its last statement, so an earlier check's would not do: the
   * transaction held open must be released only after this check has taken its snapshot.
   */
  const checkIsWaiting = async (since: Date) => {
    for (let i = 0; i < 400; i++) {
      const [{ n: seen }] = await db.$queryRawUnsafe<{ n: bigint }[]>(
        `SELECT count(*) AS n FROM pg_stat_activity
         WHERE pid <> pg_backend_pid() AND query LIKE '%pg_snapshot_xip(%' AND query_start > $1`,
        since,
      );
      if (Number(seen) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    t = await tempDatabase("postgres");
    db = t.db;
  });
  afterAll(async () => t.cleanup());

  it("balances and the daily rollup move by exact NUMERIC sums; a posting that would overdraw is refused whole", async () => {
    const r = await reseller();
    await credit(r, "0.000000000000000001");
    await credit(r, "12345678901234567.5");
    // A withdrawal of 1 XMR, reserved (not yet mined).
    await sentWithdrawal(db, { id: `w-${r}`, resellerId: r, txHash: `0x${r}`, mined: false });
    const after = [{ currency: "xmr", pending: "0", available: "12345678901234566.500000000000000001", reserved: "1" }];
    expect(await getBalances(db, r)).toEqual(after);
    const refused = db.$transaction((tx) =>
      post(tx, [
        { resellerId: r, currency: "btc", bucket: "available", kind: "order_profit_settle", amount: new D("1") },
        { resellerId: r, currency: "xmr", bucket: "reserved", kind: "withdrawal_settle", amount: new D("-1.000000000000000001") },
      ]),
    );
    await expect(refused).rejects.toBeInstanceOf(InsufficientBalanceError);
    expect(await getBalances(db, r)).toEqual(after);
    const day = new Date().toISOString().slice(0, 10);
    expect(
      (await db.ledgerDaily.findMany({ where: { resellerId: r, day }, orderBy: [{ kind: "asc" }, { bucket: "asc" }] })).map((d) => [
        d.kind,
        d.bucket,
        d.amount.toString(),
      ]),
    ).toEqual([
      ["order_profit_settle", "available", "12345678901234567.500000000000000001"],
      ["withdrawal_reserve", "available", "-1"],
      ["withdrawal_reserve", "reserved", "1"],
    ]);
    const [channel] = await db.channelDaily.findMany({ where: { resellerId: r, day } });
    expect(channel.profit.toString()).toBe("12345678901234567.500000000000000001");
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  it("with nothing open, the checkpoint holds the last ids read", async () => {
    const r = await reseller();
    await credit(r, "1");
    await db.$transaction((tx) => recordTreasuryDeposit(tx, { chainId: 1, asset: "eth", amount: new D("2") }));
    const cp = written(await incremental());
    const [{ entry, line }] = await db.$queryRawUnsafe<{ entry: number; line: number }[]>(
      `SELECT (SELECT max("id") FROM "LedgerEntry")::int AS entry, (SELECT max("id") FROM "JournalLine")::int AS line`,
    );
    expect(cp).toMatchObject({ lastEntryId: entry, lastLineId: line });
  });

  it("a reseller entry that commits below the new checkpoint after the check's snapshot stops the checkpoint", async () => {
    const r = await reseller();
    await credit(r, "1");
    const base = written(await incremental());
    // A transaction draws its entry's and line's ids and stays open...
    const slow = await heldOpen((tx) =>
      post(tx, [{ resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("1") }]),
    );
    // ...while another commits ids above it; the check's snapshot sees the second only.
    await credit(await reseller(), "1");
    const since = await dbNow();
    const check = incremental();
    await checkIsWaiting(since);
    slow.release();
    await slow.committed;
    const report = await check;
    expect(report.ok).toBe(true);
    expect(report.checkpoint).toEqual({ skipped: "rows below the new checkpoint's ids were committed after the check's snapshot" });
    // The next check starts from the checkpoint before, so it reads the late row too.
    const next = await incremental();
    expect(next).toMatchObject({ ok: true, from: { id: base.id } });
    expect(next.stats.entries).toBeGreaterThanOrEqual(2);
    written(next);
  });

  it("an operator line alone (no reseller entry) committed late stops the checkpoint too", async () => {
    const r = await reseller();
    await credit(r, "1");
    const base = written(await incremental());
    const slow = await heldOpen((tx) => recordTreasuryDeposit(tx, { chainId: 1, asset: "eth", amount: new D("3") }));
    await db.$transaction((tx) => recordTreasuryDeposit(tx, { chainId: 1, asset: "eth", amount: new D("4") }));
    const since = await dbNow();
    const check = incremental();
    await checkIsWaiting(since);
    slow.release();
    await slow.committed;
    expect((await check).checkpoint).toEqual({ skipped: "rows below the new checkpoint's ids were committed after the check's snapshot" });
    const next = await incremental();
    expect(next).toMatchObject({ ok: true, from: { id: base.id } });
    // Both deposits' 4 lines, each read once (by the scan after the checkpoint; their journals have none below it).
    expect(next.stats.lines).toBe(4);
    written(next);
  });

  it("does not wait for a transaction of another database on the same server", async () => {
    const r = await reseller();
    await credit(r, "1");
    written(await incremental());
    // A transaction with an id of its own, open on the server's admin database throughout the check.
    const other = new pg.Client({ connectionString: PG_ADMIN_URL });
    await other.connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT txid_current()");
      await credit(r, "2");
      const report = await incremental();
      expect(report.ok).toBe(true);
      const [{ entry }] = await db.$queryRawUnsafe<{ entry: number }[]>(`SELECT max("id")::int AS entry FROM "LedgerEntry"`);
      expect(written(report).lastEntryId).toBe(entry);
    } finally {
      await other.end();
    }
  });

  it("waits for a transaction open at its snapshot to end before it writes the checkpoint", async () => {
    const r = await reseller();
    await credit(r, "1");
    written(await incremental());
    // Open at the snapshot, with an id of its own (it wrote), but no ledger row.
    const slow = await heldOpen((tx) => tx.reseller.create({ data: { id: `open-${r}`, walletAddress: `0x${"f".repeat(40)}` } }));
    await credit(r, "2");
    let released = false;
    let endedBeforeRelease: boolean | null = null;
    const since = await dbNow();
    const check = incremental().then((report) => {
      endedBeforeRelease = !released;
      return report;
    });
    await checkIsWaiting(since);
    await new Promise((resolve) => setTimeout(resolve, 300));
    released = true;
    slow.release();
    await slow.committed;
    const report = await check;
    expect(endedBeforeRelease).toBe(false);
    // Nothing of the ledger came late: the checkpoint is written, past the new credit.
    const cp = written(report);
    const [{ entry }] = await db.$queryRawUnsafe<{ entry: number }[]>(`SELECT max("id")::int AS entry FROM "LedgerEntry"`);
    expect(cp.lastEntryId).toBe(entry);
  });
});
