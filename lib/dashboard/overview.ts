import "server-only";
import type { Db } from "@/lib/db/client";
import { getBalances } from "@/lib/ledger/ledger";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { ORDER_STATES, type OrderState } from "@/lib/orders/state-machine";
import { currencyInfo } from "./currency-info";
import type { EarningsDay, Overview } from "./types";

const DAY_MS = 86_400_000;
export const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The Overview read model of one reseller: balances (pending vs available) with USD values
 * at reference prices, realised earnings per UTC day over the last `days` days (today
 * included), and the orders created in that period by state. Exact decimals throughout;
 * the chart converts to numbers at its edge.
 */
export async function getOverview(db: Db, opts: { resellerId: string; days: number; now?: Date }): Promise<Overview> {
  const { resellerId } = opts;
  const days = Math.min(Math.max(Math.trunc(opts.days) || 30, 1), 366);
  const now = opts.now ?? new Date();
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const start = new Date(todayStart - (days - 1) * DAY_MS);

  const [reseller, balances, settled, counts] = await Promise.all([
    db.reseller.findUnique({ where: { id: resellerId }, select: { markupBps: true } }),
    getBalances(db, resellerId),
    // Realised earnings: the profit credited to `available` when an order finished.
    db.ledgerEntry.findMany({
      where: { resellerId, kind: "order_profit_settle", bucket: "available", createdAt: { gte: start } },
      select: { currency: true, amount: true, createdAt: true },
    }),
    db.order.groupBy({ by: ["status"], where: { resellerId, createdAt: { gte: start } }, _count: { _all: true } }),
  ]);

  const tickers = new Set<string>([...balances.map((b) => b.currency), ...settled.map((e) => e.currency)]);
  const currencies = [...tickers].sort().map(currencyInfo);
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

  // Every day of the period, so the chart's axis has no gaps.
  const byDay = new Map<string, Map<string, Dec>>();
  for (let t = start.getTime(); t <= todayStart; t += DAY_MS) byDay.set(utcDay(new Date(t)), new Map());
  const earnedBy = new Map<string, Dec>();
  for (const e of settled) {
    const day = byDay.get(utcDay(e.createdAt));
    if (!day) continue;
    day.set(e.currency, (day.get(e.currency) ?? new D(0)).plus(e.amount));
    earnedBy.set(e.currency, (earnedBy.get(e.currency) ?? new D(0)).plus(e.amount));
  }
  let earnedUsd = new D(0);
  const earnings: EarningsDay[] = [...byDay.entries()].map(([date, m]) => {
    const amounts: Record<string, string> = {};
    const usd: Record<string, string> = {};
    let total = new D(0);
    for (const [cur, amt] of m) {
      amounts[cur] = formatAmount(amt);
      const u = usdValue(amt, price.get(cur) ?? null);
      if (u) {
        usd[cur] = formatAmount(u);
        total = total.plus(u);
      }
    }
    earnedUsd = earnedUsd.plus(total);
    return { date, amounts, usd, totalUsd: formatAmount(total) };
  });

  const orderCounts = Object.fromEntries(ORDER_STATES.map((s) => [s, 0])) as Record<OrderState, number>;
  let ordersInPeriod = 0;
  for (const c of counts) {
    if ((ORDER_STATES as readonly string[]).includes(c.status)) orderCounts[c.status as OrderState] = c._count._all;
    ordersInPeriod += c._count._all;
  }

  return {
    period: { days, from: utcDay(start), to: utcDay(new Date(todayStart)) },
    currencies,
    balances: balanceRows,
    totals: { pendingUsd: formatAmount(pendingUsd), availableUsd: formatAmount(availableUsd), earnedUsd: formatAmount(earnedUsd) },
    earnings,
    earned: [...earnedBy.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([currency, amount]) => {
        const u = usdValue(amount, price.get(currency) ?? null);
        return { currency, amount: formatAmount(amount), usd: u ? formatAmount(u) : null };
      }),
    orderCounts,
    ordersInPeriod,
    markupBps: reseller?.markupBps ?? 0,
  };
}
