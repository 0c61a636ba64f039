import "server-only";
import { providerOf, type Tx } from "@/lib/db/client";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";

// The daily rollup of the resellers' entries (docs/ledger.md, The daily rollup): one
// LedgerDaily row per (reseller, entry kind, bucket, UTC day, currency) holding the exact sum of
// those entries' amounts, changed in the same transaction as the entries (postJournal, and the
// order-opening hot paths in lib/orders, which write the same plan, planJournal, in their own statements).
// The dashboard's earnings series and statements read these rows, a few per day, instead of the
// entries: at 1M orders the first 90-day earnings read scanned the ledger for 590 ms.

/** The UTC day ("YYYY-MM-DD") an entry created at `at` is summed in. */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** What a posting adds to one rollup row. */
export interface DailyDelta {
  resellerId: string;
  kind: string;
  bucket: string;
  day: string;
  currency: string;
  amount: Dec;
}

/** Canonical text of a sum ("0", never "-0"). */
const text = (x: Dec) => (x.isZero() ? "0" : formatAmount(x));

const keyOf = (d: Omit<DailyDelta, "amount">) => JSON.stringify([d.resellerId, d.kind, d.bucket, d.day, d.currency]);

/** Entries summed per rollup row, in the rows' key order (the order rows are locked in); zero sums left out. `at`: every row's createdAt, when they share one. */
export function dailyDeltas(
  rows: { resellerId: string; kind: string; bucket: string; currency: string; amount: Dec | string; createdAt?: Date }[],
  at?: Date,
) {
  const sums = new Map<string, DailyDelta>();
  const day = at && dayOf(at);
  for (const r of rows) {
    const d = { resellerId: r.resellerId, kind: r.kind, bucket: r.bucket, day: day ?? dayOf(r.createdAt!), currency: r.currency };
    const k = keyOf(d);
    sums.set(k, { ...d, amount: (sums.get(k)?.amount ?? new D(0)).plus(r.amount) });
  }
  return [...sums.keys()]
    .sort()
    .map((k) => sums.get(k)!)
    .filter((d) => !d.amount.isZero());
}

/**
 * Adds each delta to its rollup row, inside the caller's transaction, creating the row when
 * missing. PostgreSQL: one upsert per row, NUMERIC arithmetic in the database (exact; the row
 * is locked by the update, so concurrent postings to the same day queue on it and none is
 * lost). SQLite: decimal.js under the write lock, as the Balance rows are changed (ledger.ts):
 * the INSERT takes the lock and returns the row, the UPDATE is conditional on the value read.
 * Call with the deltas in key order (dailyDeltas gives them so), so that two transactions lock
 * the same rows in the same order.
 */
export async function applyDaily(tx: Tx, deltas: DailyDelta[]): Promise<void> {
  const pg = providerOf(tx) === "postgresql";
  for (const d of deltas) {
    if (pg) {
      await tx.$executeRaw`INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency", "amount")
        VALUES (${d.resellerId}, ${d.kind}, ${d.bucket}, ${d.day}, ${d.currency}, ${text(d.amount)}::numeric)
        ON CONFLICT ("resellerId", "kind", "bucket", "day", "currency")
        DO UPDATE SET "amount" = "LedgerDaily"."amount" + EXCLUDED."amount"`;
      continue;
    }
    const [row] = await tx.$queryRaw<{ amount: string }[]>`
      INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency") VALUES (${d.resellerId}, ${d.kind}, ${d.bucket}, ${d.day}, ${d.currency})
      ON CONFLICT ("resellerId", "kind", "bucket", "day", "currency") DO UPDATE SET "amount" = "amount"
      RETURNING "amount"`;
    const n = await tx.$executeRaw`UPDATE "LedgerDaily" SET "amount" = ${text(new D(row.amount).plus(d.amount))}
      WHERE "resellerId" = ${d.resellerId} AND "kind" = ${d.kind} AND "bucket" = ${d.bucket} AND "day" = ${d.day}
        AND "currency" = ${d.currency} AND "amount" = ${row.amount}`;
    if (n !== 1) throw new Error(`rollup ${keyOf(d)} changed under a write lock`);
  }
}
