import "server-only";
import { type Db, driverOf, queryOnPool, sql } from "@/lib/db/client";
import { statementOf } from "@/lib/db/sqlite-direct";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { daysOf, describePeriod, periodOf, utcDay } from "./period";
import { pricedCurrencies } from "./prices";
import type { EarningsDay, EarningsSeries } from "./types";

/**
 * Realised earnings of one reseller per UTC day over the last `days` days (today included):
 * the profit credited to `available` when an order finished, per currency and in USD at
 * today's live prices (each currency says its price's source and time). Every day of the period is present, so the chart's axis has no gaps.
 */
export async function getEarningsSeries(db: Db, opts: { resellerId: string; days: number; now?: Date }): Promise<EarningsSeries> {
  const now = opts.now ?? new Date();
  const period = periodOf(opts.days, now);
  const settled = await settledByDay(db, opts.resellerId, period.start, now);

  const currencies = await pricedCurrencies(
    settled.map((e) => e.currency),
    opts.resellerId,
  );
  const price = new Map(currencies.map((c) => [c.ticker, c.priceUsd]));
  const byDay = new Map<string, Map<string, Dec>>(daysOf(period).map((d) => [d, new Map()]));
  const earnedBy = new Map<string, Dec>();
  for (const e of settled) {
    const day = byDay.get(e.day);
    if (!day) continue; // after today (clock skew between writers): not in this period
    day.set(e.currency, (day.get(e.currency) ?? new D(0)).plus(e.amount));
    earnedBy.set(e.currency, (earnedBy.get(e.currency) ?? new D(0)).plus(e.amount));
  }

  let totalUsd = new D(0);
  const days: EarningsDay[] = [...byDay.entries()].map(([date, m]) => {
    const amounts: Record<string, string> = {};
    const usd: Record<string, string> = {};
    let total = new D(0);
    for (const [cur, amt] of [...m.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      amounts[cur] = formatAmount(amt);
      const u = usdValue(amt, price.get(cur) ?? null);
      if (u) {
        usd[cur] = formatAmount(u);
        total = total.plus(u);
      }
    }
    totalUsd = totalUsd.plus(total);
    return { date, amounts, usd, totalUsd: formatAmount(total) };
  });

  return {
    period: describePeriod(period),
    currencies,
    days,
    earned: [...earnedBy.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, amount]) => {
        const u = usdValue(amount, price.get(currency) ?? null);
        return { currency, amount: formatAmount(amount), usd: u ? formatAmount(u) : null };
      }),
    totalUsd: formatAmount(totalUsd),
  };
}

type DaySum = { day: string; currency: string; amount: string };

/**
 * A reseller's realised profit per UTC day and currency from the day of `start` to today's,
 * read from the ledger's daily rollup (lib/ledger/daily.ts), which the postings keep in their
 * own transaction: a few rows per day, by its primary key (resellerId, kind, bucket, day, ...),
 * whatever the length of the ledger. Until 2026-11-25 it summed the entries themselves (90 days
 * at 1M orders: 590 ms for the first read after a start, then kept per process).
 */
async function settledByDay(db: Db, resellerId: string, start: Date, now: Date): Promise<DaySum[]> {
  const [from, to] = [utcDay(start), utcDay(now)];
  const driver = driverOf(db);
  if (driver.kind === "postgresql")
    return queryOnPool(
      db,
      "earnings-by-day",
      sql`SELECT "day", "currency", "amount"::text AS "amount" FROM "LedgerDaily"
          WHERE "resellerId" = ${resellerId} AND "kind" = 'order_profit_settle' AND "bucket" = 'available'
            AND "day" >= ${from} AND "day" <= ${to}`,
    );
  return statementOf(driver.reader(), SETTLED_BY_DAY_SQLITE).all(resellerId, from, to) as DaySum[];
}

/** SQLite's statement (parameters: reseller id, first day, last day), on the rollup's primary key. */
export const SETTLED_BY_DAY_SQLITE = `SELECT "day", "currency", "amount" FROM "LedgerDaily"
  WHERE "resellerId" = ? AND "kind" = 'order_profit_settle' AND "bucket" = 'available' AND "day" >= ? AND "day" <= ?`;
