import "server-only";
import { type Db, providerOf } from "@/lib/db/client";
import { OPEN_STATES, ORDER_STATES, type OrderState } from "@/lib/domain/order-states";
import { getBalances } from "@/lib/ledger/ledger";
import { D, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { describePeriod, type Period, periodOf, utcDay } from "./period";
import { pricedCurrencies } from "./prices";
import type { Overview } from "./types";

/**
 * The Overview read model of one reseller: balances (pending vs available) with USD values
 * at live prices (each currency says its price's source and time), and the orders created in the last `days` UTC days by state. Exact
 * decimals throughout. The earnings by day are their own read (earnings.ts).
 */
export async function getOverview(db: Db, opts: { resellerId: string; days: number; now?: Date }): Promise<Overview> {
  const { resellerId } = opts;
  const period = periodOf(opts.days, opts.now ?? new Date());

  const [reseller, balances, counts] = await Promise.all([
    db.reseller.findUnique({ where: { id: resellerId }, select: { markupBps: true } }),
    getBalances(db, resellerId),
    countOrders(db, resellerId, period),
  ]);

  const currencies = await pricedCurrencies(
    balances.map((b) => b.currency),
    resellerId,
  );
  const price = new Map(currencies.map((c) => [c.ticker, c.priceUsd]));
  let pendingUsd = new D(0);
  let availableUsd = new D(0);
  const balanceRows = balances.map((b) => {
    const p = usdValue(b.pending, price.get(b.currency) ?? null);
    const a = usdValue(b.available, price.get(b.currency) ?? null);
    if (p) pendingUsd = pendingUsd.plus(p);
    if (a) availableUsd = availableUsd.plus(a);
    return { ...b, pendingUsd: p ? formatAmount(p) : null, availableUsd: a ? formatAmount(a) : null };
  });

  return {
    period: describePeriod(period),
    currencies,
    balances: balanceRows,
    totals: { pendingUsd: formatAmount(pendingUsd), availableUsd: formatAmount(availableUsd) },
    unpriced: currencies.filter((c) => c.priceUsd === null).map((c) => c.ticker),
    orderCounts: counts.byState,
    ordersInPeriod: counts.total,
    markupBps: reseller?.markupBps ?? 0,
  };
}

/**
 * The reseller's opened orders created in the period (from its first UTC day on, so also any
 * dated ahead by a skewed clock), by state. The channel rollup (lib/ledger/channel-daily.ts,
 * verified by ledger:check) holds each day's opened and finished orders; only the open states
 * are counted from the orders, a few rows of the (status, resellerId, createdAt, id) index; the
 * failed ones are the rest. Counting every order of the period took 200 ms at 1M orders on
 * SQLite (bench/README.md). Both reads are one snapshot, so that an order finishing between
 * them is not counted twice (REPEATABLE READ on PostgreSQL; a SQLite transaction is one).
 */
async function countOrders(db: Db, resellerId: string, period: Period): Promise<{ byState: Record<OrderState, number>; total: number }> {
  const [rollup, open] = await db.$transaction(
    [
      db.channelDaily.aggregate({ where: { resellerId, day: { gte: utcDay(period.start) } }, _sum: { orders: true, finished: true } }),
      db.order.groupBy({
        by: ["status"],
        where: { status: { in: OPEN_STATES }, resellerId, payinAddress: { not: null }, createdAt: { gte: period.start } },
        _count: { _all: true },
        orderBy: { status: "asc" },
      }),
    ],
    // The SQLite client's types know only Serializable; PostgreSQL takes REPEATABLE READ.
    providerOf(db) === "postgresql" ? { isolationLevel: "RepeatableRead" as "Serializable" } : undefined,
  );
  const byState = Object.fromEntries(ORDER_STATES.map((s) => [s, 0])) as Record<OrderState, number>;
  // (groupBy's result type, inside a batch, loses what _count selected)
  for (const c of open) byState[c.status as OrderState] = (c._count as { _all: number })._all;
  const total = rollup._sum.orders ?? 0;
  byState.finished = rollup._sum.finished ?? 0;
  byState.failed = total - byState.finished - OPEN_STATES.reduce((n, s) => n + byState[s], 0);
  return { byState, total };
}
