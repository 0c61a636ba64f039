import "server-only";
import { type Db, providerOf, type Tx } from "@/lib/db/client";
import { D, type Dec } from "@/lib/money/decimal";
import { addEntry, balancesMatchEntries } from "./invariants/balances";
import { channelRollupMatches } from "./invariants/channel-rollup";
import { dailyRollupMatchesEntries } from "./invariants/daily-rollup";
import { entriesWellFormed } from "./invariants/entries";
import {
  addTo,
  CANONICAL_AMOUNT,
  type CheckContext,
  entries,
  type IncrementalPass,
  isFullOnly,
  type LedgerCheckStats,
  type LedgerInvariant,
  operatorLines,
  type Since,
  type Tally,
  type TouchedOrder,
} from "./invariants/invariant";
import { accountKey, journalsBalanced } from "./invariants/journals";
import { orderProfitPostedOnce, touchedOrders } from "./invariants/orders";
import { withdrawalsBalanced } from "./invariants/withdrawals";
import type { Bucket } from "./ledger";

// The ledger's integrity check, for the operator (`npm run cli -- ledger:check`) and for the
// test suites (after every HTTP test file). Each invariant (lib/ledger/invariants/, one file
// each) is one object with a full and an incremental form, over one consistent snapshot of the
// database; new money flows add theirs to LEDGER_INVARIANTS, and both checks loop over that one
// list. Double entry's own (every journal sums to zero) is invariants/journals.ts. Everything is
// streamed in pages, so memory grows with the number of balances, not with the length of the ledger.
//
// Two modes (docs/ledger.md, "The check"):
// - full: each invariant's full form, over every row;
// - incremental: from the latest LedgerCheckpoint (what an earlier clean check verified: the
//   entries and lines up to two ids, and their sums per balance and per account), the entries
//   and lines after those ids are read once and handed to each invariant's incremental form,
//   which then reads what those rows or a change since the checkpoint touch (every Balance row;
//   the journals, orders and withdrawals touched; the rollup rows of the days touched). Rows
//   below the checkpoint are trusted: a row changed there by hand (the triggers dropped) is found
//   by a full check only.
// A clean check of either mode can write the next checkpoint (writeCheckpoint).

export type { LedgerCheckStats, LedgerInvariant };

export interface LedgerViolation {
  invariant: string;
  message: string;
}

export interface LedgerReport {
  ok: boolean;
  /** The first violations found (at most `maxViolations`), in the order the invariants run. */
  violations: LedgerViolation[];
  /** Which check ran: incremental asked for without a checkpoint runs full. */
  mode: "full" | "incremental";
  /** The checkpoint the incremental check started from. */
  from?: { id: number; lastEntryId: number; lastLineId: number; takenAt: Date };
  stats: LedgerCheckStats;
  /** The checkpoint written (writeCheckpoint and no violation), or why none was. */
  checkpoint?: { id: number; lastEntryId: number; lastLineId: number } | { skipped: string };
}

/** The invariants `checkLedger` runs, in order, in both modes. */
export const LEDGER_INVARIANTS: LedgerInvariant[] = [
  entriesWellFormed,
  balancesMatchEntries,
  orderProfitPostedOnce,
  withdrawalsBalanced,
  journalsBalanced,
  dailyRollupMatchesEntries,
  channelRollupMatches,
];

/** The latest checkpoint, parsed: what the incremental check starts from. */
interface Checkpoint {
  id: number;
  takenAt: Date;
  lastEntryId: number;
  lastLineId: number;
  balances: Map<string, Record<Bucket, Dec>>;
  accounts: Map<string, Dec>;
}

async function latestCheckpoint(tx: Tx): Promise<Checkpoint | null> {
  const row = await tx.ledgerCheckpoint.findFirst({ orderBy: { id: "desc" } });
  if (!row) return null;
  const balances = new Map<string, Record<Bucket, Dec>>();
  for (const [r, c, pending, available, reserved] of JSON.parse(row.balances) as string[][])
    balances.set(JSON.stringify([r, c]), { pending: new D(pending), available: new D(available), reserved: new D(reserved) });
  const accounts = new Map<string, Dec>();
  for (const [a, c, sum] of JSON.parse(row.accounts) as string[][]) accounts.set(JSON.stringify([a, c]), new D(sum));
  return { id: row.id, takenAt: row.takenAt, lastEntryId: row.lastEntryId, lastLineId: row.lastLineId, balances, accounts };
}

const KEEP_CHECKPOINTS = 10;

/**
 * How long before a checkpoint's snapshot an order or withdrawal may have been changed and still
 * be re-checked by the next incremental check (their updatedAt is the writer's clock at the
 * change, not the commit's): clock skew between processes plus the longest write transaction.
 */
export const DEFAULT_CHANGE_SLACK_MS = 10 * 60_000;

/**
 * The incremental check: every invariant's incremental form, over what changed since the
 * checkpoint `cp`. The entries and then the operator lines after its ids are read once, each
 * handed to every invariant in turn (in LEDGER_INVARIANTS' order); then each invariant finishes,
 * in the same order, reading what those rows and the changes since `changedSince` touch. An
 * invariant marked full-only runs its full form instead, at its turn. The next checkpoint's sums
 * (the checkpoint's plus the new rows') are added up here, whatever the invariants' forms, and
 * returned.
 */
async function checkIncremental(
  tx: Tx,
  cp: Checkpoint,
  changedSince: Date,
  reporter: (invariant: string) => (m: string) => void,
  ctx: CheckContext,
): Promise<Tally> {
  const tally: Tally = {
    lastEntryId: cp.lastEntryId,
    lastLineId: cp.lastLineId,
    entriesSeen: 0,
    linesSeen: 0,
    balances: new Map([...cp.balances].map(([k, v]) => [k, { ...v }])),
    accounts: new Map(cp.accounts),
  };
  /** The orders of the new entries; with those changed since, read once for the invariants that ask (Since.orders). */
  const orderIds = new Set<string>();
  let orders: Promise<TouchedOrder[]> | undefined;
  const since: Since = {
    tx,
    ctx,
    upTo: { entry: cp.lastEntryId, line: cp.lastLineId },
    changedSince,
    tally,
    orders: () => {
      orders ??= touchedOrders(tx, orderIds, changedSince, ctx);
      return orders;
    },
  };
  const passes: IncrementalPass[] = LEDGER_INVARIANTS.map((inv) => {
    const report = reporter(inv.name);
    if (typeof inv.incremental === "function") return inv.incremental(since, report);
    // Its full form, with a context without the tally (the scan below adds up the next checkpoint's sums).
    if (isFullOnly(inv.incremental)) return { finish: () => inv.full(tx, report, { stats: ctx.stats }) };
    throw new Error(`ledger invariant ${inv.id} has no incremental form and is not marked full-only`);
  });
  for await (const e of entries(tx, {}, ctx, cp.lastEntryId)) {
    tally.lastEntryId = e.id;
    tally.entriesSeen++;
    addEntry(tally.balances, e);
    if (e.orderId) orderIds.add(e.orderId);
    for (const p of passes) p.entry?.(e);
  }
  for await (const l of operatorLines(tx, {}, ctx, cp.lastLineId)) {
    tally.lastLineId = l.id;
    tally.linesSeen++;
    if (CANONICAL_AMOUNT.test(l.amount)) addTo(tally.accounts, accountKey(l), l.amount);
    for (const p of passes) p.line?.(l);
  }
  for (const p of passes) await p.finish?.();
  return tally;
}

/**
 * PostgreSQL only: a checkpoint covers every row up to its ids, but autoincrement ids are drawn
 * when a row is inserted and become visible when its transaction commits, so a transaction still
 * open at the checked snapshot may hold ids below the last one the check read, and commit them
 * after it. Skipping those forever would be unsound. So before the checkpoint is written, this
 * waits for every transaction that was in progress at the snapshot (pg_snapshot_xip of it) to end,
 * then counts the rows between the previous checkpoint's ids and the new ones again: if the count
 * is what the check read, no row below the new ids can still appear (any such row's transaction
 * had drawn its id before the last row read was drawn, hence began before the snapshot, and has
 * ended). Otherwise no checkpoint is written: the next check reads those rows from the previous
 * one. Rows below the previous checkpoint were settled the same way when it was written. This
 * relies on the sequences' default CACHE 1 (ids drawn in order across sessions). It takes no lock:
 * writers never wait for the check. SQLite needs none of this: its writes are serialised, so a
 * snapshot holds every id up to the last one it sees.
 */
async function lateRowsSettled(db: Db, snapshot: string, from: { entry: number; line: number }, tally: Tally): Promise<string | null> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [{ open }] = await db.$queryRawUnsafe<{ open: bigint }[]>(
      // Not those of another database's sessions (a 32-bit xid is the 64-bit one's low half):
      // they cannot write these tables, and on a shared server one long transaction elsewhere
      // kept every checkpoint from being written.
      `SELECT count(*) AS open FROM pg_snapshot_xip($1::pg_snapshot) x WHERE pg_xact_status(x) = 'in progress'
         AND x::text::bigint % 4294967296 NOT IN (SELECT "backend_xid"::text::bigint FROM pg_stat_activity
           WHERE "datname" IS DISTINCT FROM current_database() AND "backend_xid" IS NOT NULL)`,
      snapshot,
    );
    if (Number(open) === 0) break;
    if (Date.now() > deadline) return "transactions open at the check's snapshot are still running";
    await new Promise((r) => setTimeout(r, 50));
  }
  const [{ entries: e, lines: l }] = await db.$queryRawUnsafe<{ entries: bigint; lines: bigint }[]>(
    `SELECT (SELECT count(*) FROM "LedgerEntry" WHERE "id" > $1 AND "id" <= $2) AS entries,
            (SELECT count(*) FROM "JournalLine" WHERE "id" > $3 AND "id" <= $4) AS lines`,
    from.entry,
    tally.lastEntryId,
    from.line,
    tally.lastLineId,
  );
  if (Number(e) !== tally.entriesSeen || Number(l) !== tally.linesSeen)
    return "rows below the new checkpoint's ids were committed after the check's snapshot";
  return null;
}

export interface CheckLedgerOptions {
  /** Full (the default): every invariant over every row. Incremental: from the latest checkpoint (full when there is none). */
  mode?: "full" | "incremental";
  /** Only these invariants (full mode only; no checkpoint is written). */
  invariants?: LedgerInvariant[];
  maxViolations?: number;
  /** Write a checkpoint when no violation is found (the CLI does; the test suites do not). */
  writeCheckpoint?: boolean;
  /** DEFAULT_CHANGE_SLACK_MS unless given. */
  changeSlackMs?: number;
  now?: () => Date;
}

/**
 * Runs the check over one snapshot (REPEATABLE READ on PostgreSQL; one read transaction
 * on SQLite), so a check made while orders move never sees half of a transaction.
 */
export async function checkLedger(db: Db, opts: CheckLedgerOptions = {}): Promise<LedgerReport> {
  if (opts.invariants && opts.mode === "incremental") throw new Error("an incremental check runs every invariant");
  const max = opts.maxViolations ?? 20;
  const violations: LedgerViolation[] = [];
  const reporter = (invariant: string) => (message: string) => {
    if (violations.length < max) violations.push({ invariant, message });
  };
  const isPg = providerOf(db) === "postgresql";
  const ctx: CheckContext = { stats: { entries: 0, lines: 0, journals: 0, orders: 0, withdrawals: 0, balances: 0 } };
  const wantTally = opts.writeCheckpoint && !opts.invariants;
  let mode: LedgerReport["mode"] = "full";
  let from: Checkpoint | null = null;
  let snapshot = "";
  let tally: Tally | undefined;
  const takenAt = (opts.now ?? (() => new Date()))();
  await db.$transaction(
    async (tx) => {
      // The first statement takes the snapshot (REPEATABLE READ); its in-progress list is kept for lateRowsSettled.
      if (isPg) [{ snapshot }] = await tx.$queryRawUnsafe<{ snapshot: string }[]>(`SELECT pg_current_snapshot()::text AS snapshot`);
      from = opts.mode === "incremental" ? await latestCheckpoint(tx) : null;
      if (from) {
        mode = "incremental";
        const since = new Date(from.takenAt.getTime() - (opts.changeSlackMs ?? DEFAULT_CHANGE_SLACK_MS));
        tally = await checkIncremental(tx, from, since, reporter, ctx);
        return;
      }
      if (wantTally) ctx.tally = { lastEntryId: 0, lastLineId: 0, entriesSeen: 0, linesSeen: 0, balances: new Map(), accounts: new Map() };
      for (const inv of opts.invariants ?? LEDGER_INVARIANTS) await inv.full(tx, reporter(inv.name), ctx);
      tally = ctx.tally;
    },
    // The SQLite client's types know only Serializable; PostgreSQL takes REPEATABLE READ.
    { ...(isPg ? { isolationLevel: "RepeatableRead" as "Serializable" } : {}), timeout: 600_000, maxWait: 60_000 },
  );
  const cp = from as Checkpoint | null;
  const report: LedgerReport = {
    ok: violations.length === 0,
    violations,
    mode,
    stats: ctx.stats,
    ...(cp ? { from: { id: cp.id, lastEntryId: cp.lastEntryId, lastLineId: cp.lastLineId, takenAt: cp.takenAt } } : {}),
  };
  if (!wantTally || !report.ok || !tally) return report;
  const done = tally as Tally;
  const skipped = isPg ? await lateRowsSettled(db, snapshot, { entry: cp?.lastEntryId ?? 0, line: cp?.lastLineId ?? 0 }, done) : null;
  if (skipped) return { ...report, checkpoint: { skipped } };
  // What the snapshot verified; written after it (rows up to these ids never change), in its own transaction.
  const row = await db.ledgerCheckpoint.create({
    data: {
      takenAt,
      lastEntryId: done.lastEntryId,
      lastLineId: done.lastLineId,
      balances: JSON.stringify(
        [...done.balances]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, v]) => [...(JSON.parse(k) as string[]), v.pending.toFixed(), v.available.toFixed(), v.reserved.toFixed()]),
      ),
      accounts: JSON.stringify(
        [...done.accounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [...(JSON.parse(k) as string[]), v.toFixed()]),
      ),
      full: mode === "full",
    },
  });
  // Only the latest is read; a few are kept for the operator to compare.
  const keep = await db.ledgerCheckpoint.findMany({ orderBy: { id: "desc" }, skip: KEEP_CHECKPOINTS - 1, take: 1, select: { id: true } });
  if (keep.length) await db.ledgerCheckpoint.deleteMany({ where: { id: { lt: keep[0].id } } });
  return { ...report, checkpoint: { id: row.id, lastEntryId: row.lastEntryId, lastLineId: row.lastLineId } };
}
