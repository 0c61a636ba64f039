import "server-only";
import { type Db, providerOf, sql } from "@/lib/db/client";
import { exactSum, type Parts, sqliteParts } from "@/lib/db/exact-sum";
import { dayOf } from "@/lib/ledger/daily";
import type { EntryKind } from "@/lib/ledger/ledger";
import { D, type Dec } from "@/lib/money/decimal";
import type { StatementMonth, Statements } from "./types";

// A reseller's statements (docs/ledger.md, Statements): per calendar month (UTC) and currency,
// the opening balance, the profit credited, the profit reversed, what was withdrawn, and the
// closing balance, read from the reseller's own ledger entries and nothing else (their daily
// rollup up to today, less today's entries after the statement's time).
//
// The balance is the reseller's whole balance in the currency: pending + available + reserved
// (profit booked on an open order counts from its creation, as accrual accounting books it).
// Every entry kind lands in exactly one column, so for every month
//   closing = opening + credited - reversed - withdrawn
// holds exactly, each closing is the next month's opening, and the last closing is the sum of
// all the entries (the Balance row's pending + available + reserved):
//   - credited  = order_profit_pending + order_profit_release + order_profit_settle: the profit
//                 expected when an order is created, corrected to the profit earned on what was
//                 actually received when it finishes (release voids the pending, settle credits
//                 available);
//   - reversed  = -(order_profit_reverse): the pending profit of orders that failed, as a
//                 positive figure;
//   - withdrawn = -(withdrawal_reserve + withdrawal_settle + withdrawal_restore): what was paid
//                 out, as a positive figure. Reserve and restore move a balance between
//                 available and reserved (they sum to zero per withdrawal), so only a confirmed
//                 withdrawal's settle counts, in the month it was confirmed.

export const STATEMENT_COLUMNS = ["credited", "reversed", "withdrawn"] as const;
type Column = (typeof STATEMENT_COLUMNS)[number];

/** The column of each entry kind, and the sign that makes the column's figure positive in normal traffic. */
export const KIND_COLUMN: Record<EntryKind, [Column, 1 | -1]> = {
  order_profit_pending: ["credited", 1],
  order_profit_release: ["credited", 1],
  order_profit_settle: ["credited", 1],
  order_profit_reverse: ["reversed", -1],
  withdrawal_reserve: ["withdrawn", -1],
  withdrawal_settle: ["withdrawn", -1],
  withdrawal_restore: ["withdrawn", -1],
};

const monthOf = (d: Date) => d.toISOString().slice(0, 7);

/** The months from `first` to `last` ("YYYY-MM"), both included. */
export function monthsBetween(first: string, last: string): string[] {
  const out: string[] = [];
  let [y, m] = first.split("-").map(Number);
  for (;;) {
    const key = `${y}-${String(m).padStart(2, "0")}`;
    if (key > last) return out;
    out.push(key);
    if (++m > 12) [y, m] = [y + 1, 1];
  }
}

/** Canonical amount text ("0", never "-0"). */
const text = (x: Dec) => (x.isZero() ? "0" : x.toFixed());

/**
 * A reseller's statements up to `now` (UTC months). Entries after `now` are left out, so a
 * statement read at a past time shows the books as they were then.
 */
export async function getStatements(db: Db, opts: { resellerId: string; now?: Date }): Promise<Statements> {
  const now = opts.now ?? new Date();
  // Every day up to today's from the daily rollup (lib/ledger/daily.ts), summed per month in
  // SQL: a row per month, kind and currency, not an entry per order nor a row per day (a year of
  // days read into the process held SQLite's event loop 25 ms, bench/README.md). Today's row also
  // counts what was posted after `now` (a statement read at a past time, or a clock ahead of
  // ours): those entries, today's after `now` (none when `now` is the present), are read and
  // taken off. Until 2026-11-25 all of today's entries were read and summed: 170 ms at 3,000
  // orders a day.
  const today = dayOf(now);
  const sqlite = providerOf(db) === "sqlite";
  const [months, later] = await Promise.all([
    db.$queryRaw<(Parts & { currency: string; kind: string; month: string; amount?: string })[]>(sql`
      SELECT "currency", "kind", substr("day", 1, 7) AS "month",
        ${sqlite ? sqliteParts(sql`"amount"`, "a") : sql`SUM("amount")::text AS "amount"`}
      FROM "LedgerDaily"
      WHERE "resellerId" = ${opts.resellerId} AND "day" <= ${today}
      GROUP BY "currency", "kind", substr("day", 1, 7)`),
    db.ledgerEntry.findMany({
      where: {
        resellerId: opts.resellerId,
        // Every kind named: the (resellerId, kind, createdAt) index then reads only the entries after `now`.
        kind: { in: Object.keys(KIND_COLUMN) },
        createdAt: { gt: now, lt: new Date(Date.parse(`${today}T00:00:00.000Z`) + 86_400_000) },
      },
      select: { currency: true, kind: true, amount: true },
    }),
  ]);
  // A currency whose every entry came after `now` was not there yet: its rollup rows cancel out, and it is left out.
  const notYet = new Set<string>();
  for (const currency of new Set(later.map((e) => e.currency)))
    if (
      !(await db.ledgerEntry.findFirst({ where: { resellerId: opts.resellerId, currency, createdAt: { lte: now } }, select: { id: true } }))
    )
      notYet.add(currency);
  const rows = [
    ...months.map((m) => ({
      currency: m.currency,
      kind: m.kind,
      month: m.month,
      amount: sqlite ? exactSum(m, "a") : new D(m.amount ?? 0),
    })),
    ...later.map((e) => ({ ...e, amount: new D(e.amount).neg(), month: today.slice(0, 7) })),
  ];
  type Sums = Record<Column, Dec>;
  const byCurrency = new Map<string, Map<string, Sums>>();
  for (const r of rows) {
    if (notYet.has(r.currency)) continue;
    const col = KIND_COLUMN[r.kind as EntryKind];
    if (!col) throw new Error(`statement: unknown ledger entry kind ${r.kind}`);
    const months = byCurrency.get(r.currency) ?? new Map<string, Sums>();
    byCurrency.set(r.currency, months);
    const key = r.month;
    const s = months.get(key) ?? { credited: new D(0), reversed: new D(0), withdrawn: new D(0) };
    months.set(key, s);
    s[col[0]] = s[col[0]].plus(col[1] < 0 ? r.amount.neg() : r.amount);
  }
  const last = monthOf(now);
  const out: StatementMonth[] = [];
  for (const currency of [...byCurrency.keys()].sort()) {
    const months = byCurrency.get(currency)!;
    const first = [...months.keys()].sort()[0];
    let balance = new D(0);
    for (const month of monthsBetween(first, last)) {
      const s = months.get(month) ?? { credited: new D(0), reversed: new D(0), withdrawn: new D(0) };
      const opening = balance;
      balance = opening.plus(s.credited).minus(s.reversed).minus(s.withdrawn);
      out.push({
        month,
        currency,
        opening: text(opening),
        credited: text(s.credited),
        reversed: text(s.reversed),
        withdrawn: text(s.withdrawn),
        closing: text(balance),
      });
    }
  }
  return { asOf: now.toISOString(), months: out };
}
