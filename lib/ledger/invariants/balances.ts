import "server-only";
import type { Tx } from "@/lib/db/client";
import { D, type Dec } from "@/lib/money/decimal";
import { BUCKETS, type Bucket } from "../ledger";
import { CANONICAL_AMOUNT, type CheckContext, type EntryRow, entries, type LedgerInvariant, type Report } from "./invariant";

const zeroBuckets = (): Record<Bucket, Dec> => ({ pending: new D(0), available: new D(0), reserved: new D(0) });

/** Adds an entry to its balance's sums, unless malformed ("entries are well formed" names it). */
export function addEntry(sums: Map<string, Record<Bucket, Dec>>, e: EntryRow): void {
  if (!CANONICAL_AMOUNT.test(e.amount) || !(BUCKETS as readonly string[]).includes(e.bucket)) return;
  const key = JSON.stringify([e.resellerId, e.currency]);
  const s = sums.get(key) ?? zeroBuckets();
  s[e.bucket as Bucket] = s[e.bucket as Bucket].plus(e.amount);
  sums.set(key, s);
}

/** Every Balance row against the sums its entries should give; `sums` is emptied of the keys that have a row. */
async function judgeBalances(tx: Tx, sums: Map<string, Record<Bucket, Dec>>, report: Report, ctx: CheckContext) {
  const rows = await tx.balance.findMany({ orderBy: [{ resellerId: "asc" }, { currency: "asc" }] });
  ctx.stats.balances += rows.length;
  for (const b of rows) {
    const key = JSON.stringify([b.resellerId, b.currency]);
    const s = sums.get(key) ?? zeroBuckets();
    sums.delete(key);
    for (const bucket of BUCKETS) {
      const held = new D(b[bucket]);
      if (held.isNeg()) report(`balance ${b.resellerId}/${b.currency} ${bucket} is negative: ${b[bucket]}`);
      if (!held.eq(s[bucket]))
        report(`balance ${b.resellerId}/${b.currency} ${bucket} is ${b[bucket]} but its entries sum to ${s[bucket].toFixed()}`);
    }
  }
  for (const key of sums.keys()) report(`entries of ${JSON.parse(key).join("/")} have no balance row`);
}

const copy = (sums: Map<string, Record<Bucket, Dec>>) => new Map([...sums].map(([k, v]) => [k, { ...v }]));

export const balancesMatchEntries: LedgerInvariant = {
  id: "balances",
  name: "each balance equals the sum of its entries and is not negative",
  async full(tx, report, ctx) {
    const sums = new Map<string, Record<Bucket, Dec>>();
    for await (const e of entries(tx, {}, ctx)) addEntry(sums, e);
    // For the checkpoint: the sums themselves (judgeBalances empties the map).
    if (ctx.tally) ctx.tally.balances = copy(sums);
    await judgeBalances(tx, sums, report, ctx);
  },
  // Every Balance row (one per reseller and currency: as many as the checkpoint's sums, so all are
  // checked again, changed or not) against the checkpoint's sums plus the new entries'.
  incremental: (since, report) => ({ finish: () => judgeBalances(since.tx, copy(since.tally.balances), report, since.ctx) }),
};
