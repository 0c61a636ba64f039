import crypto from "node:crypto";
import { afterAll } from "vitest";
import type { Db, Prisma } from "@/lib/db/client";
import { applyChannelDaily, channelDeltas } from "@/lib/ledger/channel-daily";
import { checkLedger } from "@/lib/ledger/check";
import { applyDaily, dailyDeltas, dayOf } from "@/lib/ledger/daily";
import { D } from "@/lib/money/decimal";

/**
 * Hang guards for a test's large write in one interactive transaction, instead of Prisma's 2 s to
 * start and 5 s to finish: thousands of rows ran past those on PostgreSQL on a loaded machine.
 */
export const LARGE_WRITE_TRANSACTION = { timeout: 300_000, maxWait: 300_000 } as const;

/**
 * Throws with the first broken ledger invariant (and how many were found), if any. `incremental`:
 * only what is new since the last clean check's checkpoint (and a checkpoint written when clean),
 * as the routine `ledger:check` does; else the whole ledger, writing nothing.
 */
export async function assertLedgerConsistent(db: Db, opts: { incremental?: boolean } = {}): Promise<void> {
  const report = await checkLedger(db, opts.incremental ? { mode: "incremental", writeCheckpoint: true } : {});
  if (report.ok) return;
  const [first] = report.violations;
  throw new Error(`ledger invariant broken: ${first.invariant}: ${first.message} (${report.violations.length} violations found)`);
}

/**
 * Registers a check of the ledger after the current test file (the HTTP suites' setup file does
 * this for every file on the suite's shared database): incremental, so its cost is what the file
 * (and the files beside it) wrote, not everything the run wrote before (issue 49: full checks
 * after every file grew with the square of the file count). The run's end checks the whole
 * ledger once (tests/support/global-server.ts).
 */
export function checkLedgerAfterFile(db: () => Db): void {
  afterAll(async () => assertLedgerConsistent(db(), { incremental: true }), 120_000);
}

/**
 * Writes reseller entries around lib/ledger (no Balance rows are moved), as one journal the
 * database accepts: whatever they do not balance per currency is booked against the outside
 * world. For tests that need a ledger broken on purpose, or history dated at will. The daily
 * rollup and the channel rollup's credits are kept, as lib/ledger keeps them (the dashboard reads them).
 */
export async function rawJournal(
  db: Db,
  entries: Omit<Prisma.LedgerEntryCreateManyInput, "journalId">[],
): Promise<{ journalId: string; ids: number[] }> {
  const journalId = `raw-${crypto.randomUUID()}`;
  const sums = new Map<string, InstanceType<typeof D>>();
  for (const e of entries) sums.set(e.currency, (sums.get(e.currency) ?? new D(0)).plus(String(e.amount)));
  const lines = [...sums]
    .filter(([, s]) => !s.isZero())
    .map(([currency, s]) => ({ journalId, account: "world", currency, amount: s.neg().toFixed() }));
  // A journal has two lines at least: an entry that balances alone (a zero, on purpose) gets a pair that cancels out.
  if (entries.length + lines.length < 2)
    lines.push(
      { journalId, account: "world", currency: entries[0].currency, amount: "1" },
      { journalId, account: "world", currency: entries[0].currency, amount: "-1" },
    );
  const now = new Date();
  const dated = entries.map((e) => ({ ...e, journalId, createdAt: e.createdAt === undefined ? now : new Date(e.createdAt) }));
  const ids: number[] = [];
  await db.$transaction(async (tx) => {
    await tx.ledgerEntry.createMany({ data: dated });
    await applyDaily(tx, dailyDeltas(dated.map((e) => ({ ...e, amount: String(e.amount) }))));
    const credits = dated.filter((e) => e.kind === "order_profit_settle");
    const channelOf = new Map(
      (await tx.order.findMany({ where: { id: { in: credits.map((e) => e.orderId ?? "") } }, select: { id: true, channel: true } })).map(
        (o) => [o.id, o.channel],
      ),
    );
    await applyChannelDaily(
      tx,
      channelDeltas(
        credits.map((e) => ({
          resellerId: e.resellerId,
          day: dayOf(e.createdAt),
          channel: (e.orderId && channelOf.get(e.orderId)) ?? "",
          currency: e.currency,
          orders: 0,
          finished: 0,
          volume: new D(0),
          profit: new D(String(e.amount)),
        })),
      ),
    );
    for (const e of await tx.ledgerEntry.findMany({ where: { journalId }, orderBy: { id: "asc" }, select: { id: true } })) ids.push(e.id);
    if (lines.length) await tx.journalLine.createMany({ data: lines });
    await tx.journal.create({ data: { id: journalId, kind: "adjustment", lines: entries.length + lines.length } });
  }, LARGE_WRITE_TRANSACTION);
  return { journalId, ids };
}

/**
 * Runs `fn` with one of the ledger's guard triggers off (PostgreSQL: disabled; SQLite: dropped and
 * made again): tampering with the books, as an intruder with the database's keys could.
 */
export async function withoutTrigger(
  db: Db,
  kind: "sqlite" | "postgres",
  trigger: { table: string; postgres: string; sqlite: string },
  fn: () => Promise<unknown>,
): Promise<void> {
  if (kind === "postgres") {
    await db.$executeRawUnsafe(`ALTER TABLE "${trigger.table}" DISABLE TRIGGER "${trigger.postgres}"`);
    try {
      await fn();
    } finally {
      await db.$executeRawUnsafe(`ALTER TABLE "${trigger.table}" ENABLE TRIGGER "${trigger.postgres}"`);
    }
    return;
  }
  const [{ sql }] = await db.$queryRawUnsafe<{ sql: string }[]>(`SELECT sql FROM sqlite_master WHERE name = ?`, trigger.sqlite);
  await db.$executeRawUnsafe(`DROP TRIGGER "${trigger.sqlite}"`);
  try {
    await fn();
  } finally {
    await db.$executeRawUnsafe(sql);
  }
}
