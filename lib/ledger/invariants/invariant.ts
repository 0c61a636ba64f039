import "server-only";
import { emptySql, joinSql, sql, type Tx } from "@/lib/db/client";
import { D, type Dec } from "@/lib/money/decimal";
import type { Bucket } from "../ledger";

// The shape every ledger invariant has (lib/ledger/check.ts runs them), and the paged readers
// they share. An invariant is one object with both its forms: `full` over every row, and
// `incremental` over what is new since a checkpoint (or a reason why it has none, in which case
// the incremental check runs its full form), so neither form can be renamed, added or dropped
// without the other.

export type Report = (message: string) => void;

/** Rows read, per table, by every part of the check together (a row read twice counts twice). */
export interface LedgerCheckStats {
  entries: number;
  lines: number;
  journals: number;
  orders: number;
  withdrawals: number;
  balances: number;
}

/** What a check adds up on the way, for the checkpoint it may write. */
export interface Tally {
  lastEntryId: number;
  lastLineId: number;
  /** Entries and lines read with an id up to the two above (PostgreSQL's late-commit test, check.ts). */
  entriesSeen: number;
  linesSeen: number;
  /** Per (reseller, currency): the sums of the entries per bucket. */
  balances: Map<string, Record<Bucket, Dec>>;
  /** Per (account, currency): the sums of the operator's lines. */
  accounts: Map<string, Dec>;
}

export interface CheckContext {
  stats: LedgerCheckStats;
  /** Present when a full check of every invariant may write a checkpoint: the invariants that read its rows fill it. */
  tally?: Tally;
}

/** An order as the incremental check reads it: the order invariant's columns and its channel. */
export type TouchedOrder = {
  id: string;
  resellerId: string | null;
  toCurrency: string;
  status: string;
  profit: string;
  createdAt: Date;
  channel: string | null;
};

/** What the incremental check gives each invariant's incremental form. */
export interface Since {
  tx: Tx;
  ctx: CheckContext;
  /** The checkpoint's last entry and line ids: the rows up to them were verified and are trusted. */
  upTo: { entry: number; line: number };
  /** Orders and withdrawals changed from this time (the checkpoint's, less a slack) are checked again. */
  changedSince: Date;
  /** The checkpoint's sums plus the new rows' (the next checkpoint's), complete once the new rows are read (at finish). */
  tally: Tally;
  /** The orders of the new entries and those changed since, by id: read once, by the first invariant that asks, after the scan. */
  orders(): Promise<TouchedOrder[]>;
}

/**
 * One invariant's pass over what is new since a checkpoint. The check reads every entry and then
 * every operator line after the checkpoint once, handing each to every invariant (in the list's
 * order), then finishes each: the invariant reads whatever else it needs (the rows the new ones
 * touch) and reports.
 */
export interface IncrementalPass {
  entry?(e: EntryRow): void;
  line?(l: OperatorLine): void;
  finish?(): Promise<void>;
}

/** An invariant with no incremental form: the incremental check runs its full form, and this says why. */
export interface FullOnly {
  fullOnly: string;
}

export interface LedgerInvariant {
  /** A short stable id, for code and tests; `name` is the words reported with each violation. */
  id: string;
  name: string;
  /** Over every row of one snapshot. */
  full(tx: Tx, report: Report, ctx: CheckContext): Promise<void>;
  /** Over what changed since a checkpoint (the same violations, in the same words), or why there is no such form. */
  incremental: ((since: Since, report: Report) => IncrementalPass) | FullOnly;
}

/** Marked full-only, with its reason (not merely lacking an incremental form). */
export const isFullOnly = (i: LedgerInvariant["incremental"] | undefined): i is FullOnly =>
  typeof i === "object" && i !== null && typeof i.fullOnly === "string" && i.fullOnly.trim() !== "";

export const PAGE = 2000;
/** Orders (or withdrawals) per page: their ids become one IN (...) list, and SQLite's driver takes at most 999 parameters. */
export const ORDER_PAGE = 500;
export const CANONICAL_AMOUNT = /^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;

export type EntryRow = {
  id: number;
  journalId: string | null;
  resellerId: string;
  orderId: string | null;
  withdrawalId: string | null;
  currency: string;
  bucket: string;
  kind: string;
  amount: string;
  createdAt: Date;
};

type IdFilter = { orderId?: { in: string[] }; withdrawalId?: { in: string[] }; journalId?: { in: string[] } };

/**
 * The condition of a paged read: one IN list at most, ids after `after` and up to `upTo`. The
 * pages are read with plain SQL, not Prisma's model reads: at the ledger's volume those cost
 * twice the CPU per row, and much more in a process's first check, which the CLI always is
 * (bench/README.md, "Ledger check").
 */
function pageWhere(where: IdFilter, after: number, upTo: number | undefined) {
  const [column, filter] = (Object.entries(where) as [keyof IdFilter, { in: string[] } | undefined][]).find(([, f]) => f) ?? [];
  const list = column && filter ? sql`${sql([`"${column}"`])} IN (${filter.in.length ? joinSql(filter.in) : sql`NULL`}) AND ` : emptySql;
  return sql`${list}"id" > ${after}${upTo === undefined ? emptySql : sql` AND "id" <= ${upTo}`}`;
}

/** Every ledger entry (after `after`, up to `upTo`), oldest first, a page at a time. */
export async function* entries(tx: Tx, where: IdFilter, ctx: CheckContext, after = 0, upTo?: number): AsyncGenerator<EntryRow> {
  for (;;) {
    const page = await tx.$queryRaw<EntryRow[]>(
      sql`SELECT "id", "journalId", "resellerId", "orderId", "withdrawalId", "currency", "bucket", "kind", "amount", "createdAt"
          FROM "LedgerEntry" WHERE ${pageWhere(where, after, upTo)} ORDER BY "id" LIMIT ${PAGE}`,
    );
    ctx.stats.entries += page.length;
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}

export type LineRow = { id: number; journalId: string | null; currency: string; amount: string };
export type OperatorLine = LineRow & { account: string };

/** Every operator line (after `after`, up to `upTo`), oldest first, a page at a time. */
export async function* operatorLines(
  tx: Tx,
  where: { journalId?: { in: string[] } },
  ctx: CheckContext,
  after = 0,
  upTo?: number,
): AsyncGenerator<OperatorLine> {
  for (;;) {
    const page = await tx.$queryRaw<OperatorLine[]>(
      sql`SELECT "id", "journalId", "account", "currency", "amount" FROM "JournalLine"
          WHERE ${pageWhere(where, after, upTo)} ORDER BY "id" LIMIT ${PAGE}`,
    );
    ctx.stats.lines += page.length;
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}

/** Ids, a page of at most ORDER_PAGE at a time (one IN list each). */
export function* pages(ids: Iterable<string>): Generator<string[]> {
  const all = [...ids].sort();
  for (let i = 0; i < all.length; i += ORDER_PAGE) yield all.slice(i, i + ORDER_PAGE);
}

export function addTo(m: Map<string, Dec>, key: string, amount: string | Dec): void {
  m.set(key, (m.get(key) ?? new D(0)).plus(amount));
}
