import "server-only";
import { joinSql, sql, type Tx } from "@/lib/db/client";
import { D, type Dec } from "@/lib/money/decimal";
import { dayOf } from "../daily";
import { CANONICAL_AMOUNT, type CheckContext, type LedgerInvariant, PAGE, pages, type Report } from "./invariant";

/**
 * Touched keys (JSON arrays; `pick` gives a key's reseller and UTC day) by day, oldest first:
 * each day's creation-time range and its resellers, each with its keys.
 */
export function touchedByDay(keys: Iterable<string>, pick: (key: string[]) => [resellerId: string, day: string]) {
  const byDay = new Map<string, Map<string, string[]>>();
  for (const key of keys) {
    const [resellerId, day] = pick(JSON.parse(key) as string[]);
    const resellers = byDay.get(day) ?? new Map<string, string[]>();
    resellers.set(resellerId, [...(resellers.get(resellerId) ?? []), key]);
    byDay.set(day, resellers);
  }
  return [...byDay]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([day, resellers]) => {
      const start = new Date(`${day}T00:00:00.000Z`);
      return { day, createdAt: { gte: start, lt: new Date(start.getTime() + 86_400_000) }, resellers };
    });
}

/**
 * The incremental part of "each daily rollup row equals the sum of its entries": each rollup row
 * a new entry adds to, against the sum of all its day's entries. `keys` holds each such row's key
 * with the sum of its new entries (those after the checkpoint's `upTo`, read already); its day's
 * entries up to `upTo` are read here, per day and a page of resellers at a time (one statement
 * each, by the index on resellerId, kind, createdAt), so it costs that day's entries of the
 * resellers posted to since the checkpoint, not the ledger. Rows no new entry touches are
 * trusted, as entries below the checkpoint are.
 */
async function judgeTouchedDays(tx: Tx, keys: Map<string, Dec>, upTo: number, report: Report, ctx: CheckContext): Promise<void> {
  for (const { day, createdAt, resellers } of touchedByDay(keys.keys(), (k) => [k[0], k[3]])) {
    for (const ids of pages(resellers.keys())) {
      const touched = ids.flatMap((id) => resellers.get(id) ?? []);
      const sums = new Map(touched.map((k) => [k, keys.get(k)!]));
      const kinds = [...new Set(touched.map((k) => JSON.parse(k)[1] as string))].sort();
      // The whole day at once, with no ORDER BY id and no LIMIT: paged by id, SQLite's planner
      // walks an index by (resellerId, id) through each reseller's whole ledger instead (17 s at
      // 10M lines); with the kinds too it takes (resellerId, kind, createdAt) ranges only, and
      // the id bound is a filter on them.
      const page = await tx.$queryRaw<{ resellerId: string; kind: string; bucket: string; currency: string; amount: string }[]>(
        sql`SELECT "resellerId", "kind", "bucket", "currency", "amount" FROM "LedgerEntry"
            WHERE "resellerId" IN (${joinSql(ids)}) AND "kind" IN (${joinSql(kinds)})
              AND "createdAt" >= ${createdAt.gte} AND "createdAt" < ${createdAt.lt} AND "id" <= ${upTo}`,
      );
      ctx.stats.entries += page.length;
      for (const e of page) {
        const key = JSON.stringify([e.resellerId, e.kind, e.bucket, day, e.currency]);
        const sum = sums.get(key);
        if (sum && CANONICAL_AMOUNT.test(e.amount)) sums.set(key, sum.plus(e.amount));
      }
      const rows = await tx.ledgerDaily.findMany({ where: { day, resellerId: { in: ids } } });
      const held = new Map(rows.map((r) => [JSON.stringify([r.resellerId, r.kind, r.bucket, r.day, r.currency]), r.amount]));
      for (const key of touched.sort()) {
        const [resellerId, kind, bucket, , currency] = JSON.parse(key) as string[];
        const sum = sums.get(key) ?? new D(0);
        const amount = held.get(key);
        const tag = `rollup ${resellerId}/${currency} ${day} ${kind} ${bucket}`;
        if (amount === undefined) {
          if (!sum.isZero())
            report(`entries of ${resellerId}/${kind}/${bucket}/${day}/${currency} sum to ${sum.toFixed()} but have no rollup row`);
        } else if (!CANONICAL_AMOUNT.test(amount)) report(`${tag} has amount '${amount}'`);
        else if (!new D(amount).eq(sum)) report(`${tag} is ${amount} but its entries sum to ${sum.toFixed()}`);
      }
    }
  }
}

export const dailyRollupMatchesEntries: LedgerInvariant = {
  id: "daily-rollup",
  name: "each daily rollup row equals the sum of its entries",
  async full(tx, report) {
    // The entries' sums per (reseller, kind, bucket, UTC day, currency), a page of entries at a time.
    const sums = new Map<string, Dec>();
    let after = 0;
    for (;;) {
      const page = await tx.ledgerEntry.findMany({
        where: { id: { gt: after } },
        orderBy: { id: "asc" },
        take: PAGE,
        select: { id: true, resellerId: true, kind: true, bucket: true, currency: true, amount: true, createdAt: true },
      });
      for (const e of page) {
        let amount: Dec;
        try {
          amount = new D(e.amount);
        } catch {
          continue; // not a number: "entries are well formed" names it
        }
        const key = JSON.stringify([e.resellerId, e.kind, e.bucket, dayOf(e.createdAt), e.currency]);
        sums.set(key, (sums.get(key) ?? new D(0)).plus(amount));
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1].id;
    }
    const rows = await tx.ledgerDaily.findMany({
      orderBy: [{ resellerId: "asc" }, { kind: "asc" }, { bucket: "asc" }, { day: "asc" }, { currency: "asc" }],
    });
    for (const r of rows) {
      const key = JSON.stringify([r.resellerId, r.kind, r.bucket, r.day, r.currency]);
      const s = sums.get(key) ?? new D(0);
      sums.delete(key);
      const tag = `rollup ${r.resellerId}/${r.currency} ${r.day} ${r.kind} ${r.bucket}`;
      if (!CANONICAL_AMOUNT.test(r.amount)) report(`${tag} has amount '${r.amount}'`);
      else if (!new D(r.amount).eq(s)) report(`${tag} is ${r.amount} but its entries sum to ${s.toFixed()}`);
    }
    for (const [key, s] of sums)
      if (!s.isZero()) report(`entries of ${JSON.parse(key).join("/")} sum to ${s.toFixed()} but have no rollup row`);
  },
  // The rollup rows the new entries add to, each against all of its day's entries.
  incremental: (since, report) => {
    /** Per rollup row (reseller, kind, bucket, UTC day, currency) a new entry adds to: the new entries' sum. */
    const touched = new Map<string, Dec>();
    return {
      entry(e) {
        const key = JSON.stringify([e.resellerId, e.kind, e.bucket, dayOf(e.createdAt), e.currency]);
        const sum = touched.get(key) ?? new D(0);
        touched.set(key, CANONICAL_AMOUNT.test(e.amount) ? sum.plus(e.amount) : sum);
      },
      finish: () => judgeTouchedDays(since.tx, touched, since.upTo.entry, report, since.ctx),
    };
  },
};
