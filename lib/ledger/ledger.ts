import "server-only";
import type { Tx } from "@/lib/db/client";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";

// The reseller profit ledger: append-only rows, never updated or deleted. A balance is the
// sum of entries for one (reseller, currency, bucket). Each order posts each kind at most
// once (unique orderId+kind), so a retried or duplicated worker step cannot double-credit.

export type Bucket = "pending" | "available";
export type EntryKind = "order_profit_pending" | "order_profit_release" | "order_profit_settle" | "order_profit_reverse";

export interface Balance {
  currency: string;
  pending: string;
  available: string;
}

interface OrderForLedger {
  id: string;
  resellerId: string | null;
  toCurrency: string;
}

async function post(tx: Tx, order: OrderForLedger, bucket: Bucket, kind: EntryKind, amount: Dec) {
  if (!order.resellerId || amount.isZero()) return;
  await tx.ledgerEntry.create({
    data: { resellerId: order.resellerId, orderId: order.id, currency: order.toCurrency, bucket, kind, amount: formatAmount(amount) },
  });
}

async function pendingOfOrder(tx: Tx, orderId: string): Promise<Dec> {
  const rows = await tx.ledgerEntry.findMany({ where: { orderId, bucket: "pending" }, select: { amount: true } });
  return rows.reduce((s, r) => s.plus(r.amount), new D(0));
}

/** At creation: the expected profit, pending until the order finishes. */
export function recordPendingProfit(tx: Tx, order: OrderForLedger, profit: Dec) {
  return post(tx, order, "pending", "order_profit_pending", profit);
}

/** On finished: release what was pending and credit the profit earned on the amount actually received. */
export async function settleProfit(tx: Tx, order: OrderForLedger, earned: Dec) {
  await post(tx, order, "pending", "order_profit_release", (await pendingOfOrder(tx, order.id)).neg());
  await post(tx, order, "available", "order_profit_settle", earned);
}

/** On failed: the pending profit is reversed; nothing becomes available. */
export async function reverseProfit(tx: Tx, order: OrderForLedger) {
  await post(tx, order, "pending", "order_profit_reverse", (await pendingOfOrder(tx, order.id)).neg());
}

/** Sums entries per currency and bucket with exact decimals (SQL SUM would go through floats on SQLite). */
export function sumBalances(entries: { currency: string; bucket: string; amount: string }[]): Balance[] {
  const by = new Map<string, { pending: Dec; available: Dec }>();
  for (const e of entries) {
    const b = by.get(e.currency) ?? { pending: new D(0), available: new D(0) };
    if (e.bucket === "pending") b.pending = b.pending.plus(e.amount);
    else if (e.bucket === "available") b.available = b.available.plus(e.amount);
    by.set(e.currency, b);
  }
  return [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, b]) => ({ currency, pending: formatAmount(b.pending), available: formatAmount(b.available) }));
}

export async function getBalances(tx: Tx, resellerId: string): Promise<Balance[]> {
  const entries = await tx.ledgerEntry.findMany({ where: { resellerId }, select: { currency: true, bucket: true, amount: true } });
  return sumBalances(entries);
}
