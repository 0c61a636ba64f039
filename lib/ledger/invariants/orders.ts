import "server-only";
import type { Tx } from "@/lib/db/client";
import { isFinal, type OrderState, UNPRICED_STATES } from "@/lib/domain/order-states";
import { D } from "@/lib/money/decimal";
import {
  type CheckContext,
  type EntryRow,
  entries,
  type LedgerInvariant,
  ORDER_PAGE,
  pages,
  type Report,
  type TouchedOrder,
} from "./invariant";

type OrderRow = Omit<TouchedOrder, "channel">;

const ORDER_SELECT = { id: true, resellerId: true, toCurrency: true, status: true, profit: true, createdAt: true } as const;

/** The order invariant over one page of orders with a reseller (all their entries read). */
async function judgeOrders(tx: Tx, orders: OrderRow[], report: Report, ctx: CheckContext): Promise<void> {
  const byOrder = new Map<string, EntryRow[]>();
  for await (const e of entries(tx, { orderId: { in: orders.map((o) => o.id) } }, ctx))
    byOrder.set(e.orderId!, [...(byOrder.get(e.orderId!) ?? []), e]);
  for (const o of orders) {
    const es = byOrder.get(o.id) ?? [];
    for (const e of es)
      if (e.resellerId !== o.resellerId || e.currency !== o.toCurrency)
        report(`entry ${e.id} of order ${o.id} is booked to ${e.resellerId}/${e.currency}, not ${o.resellerId}/${o.toCurrency}`);
    const pending = es.filter((e) => e.bucket === "pending").reduce((s, e) => s.plus(e.amount), new D(0));
    const credits = es.filter((e) => e.kind === "order_profit_settle");
    const closing = es.filter((e) => e.kind === "order_profit_release" || e.kind === "order_profit_reverse");
    // A status that is no state (a corrupt row) is judged as an open one.
    const status = o.status as OrderState;
    const final = isFinal(status);
    if (pending.isNeg()) report(`order ${o.id} has a negative pending profit ${pending.toFixed()}`);
    // Before its deposit is priced (lib/orders/advance-order.ts: on to PRICED_AT) an order's
    // profit is the one its opening posted pending: a posting off by any amount shows here, and
    // nowhere later (the release voids whatever was pending, and the credit is the repriced profit).
    else if (UNPRICED_STATES.includes(status) && !pending.eq(o.profit))
      report(`order ${o.id} is ${o.status} with a profit of ${o.profit} but ${pending.toFixed()} pending`);
    if (final && !pending.isZero()) report(`order ${o.id} is ${o.status} but ${pending.toFixed()} of its profit is still pending`);
    if (!final && (credits.length || closing.length)) report(`order ${o.id} is ${o.status} but its profit was already closed`);
    if (o.status === "failed" && credits.length) report(`order ${o.id} failed but its profit was credited`);
    if (o.status === "finished") {
      const expected = new D(o.profit).isZero() ? 0 : 1;
      if (credits.length !== expected) report(`finished order ${o.id} has ${credits.length} profit credits, expected ${expected}`);
      else if (expected && !new D(credits[0].amount).eq(o.profit))
        report(`finished order ${o.id} was credited ${credits[0].amount}, its profit is ${o.profit}`);
    }
  }
}

export const orderProfitPostedOnce: LedgerInvariant = {
  id: "orders",
  name: "every order's profit is pending while open, credited once when finished, reversed when failed",
  async full(tx, report, ctx) {
    const orphans = await tx.ledgerEntry.count({ where: { orderId: { not: null }, order: { resellerId: null } } });
    if (orphans) report(`${orphans} entries belong to orders without a reseller`);
    let after = "";
    for (;;) {
      const orders = await tx.order.findMany({
        where: { resellerId: { not: null }, id: { gt: after } },
        orderBy: { id: "asc" },
        take: ORDER_PAGE,
        select: ORDER_SELECT,
      });
      if (!orders.length) return;
      ctx.stats.orders += orders.length;
      after = orders[orders.length - 1].id;
      await judgeOrders(tx, orders, report, ctx);
    }
  },
  // The orders of the new entries and those changed since the checkpoint (updatedAt): an order
  // finished without its credit posts nothing, so the new entries alone would miss it.
  incremental: (since, report) => {
    const entriesByOrder = new Map<string, number>();
    return {
      entry(e) {
        if (e.orderId) entriesByOrder.set(e.orderId, (entriesByOrder.get(e.orderId) ?? 0) + 1);
      },
      async finish() {
        const touched = await since.orders();
        let orphans = 0;
        for (const o of touched) if (o.resellerId === null) orphans += entriesByOrder.get(o.id) ?? 0;
        const withReseller = touched.filter((o) => o.resellerId !== null);
        for (let i = 0; i < withReseller.length; i += ORDER_PAGE)
          await judgeOrders(since.tx, withReseller.slice(i, i + ORDER_PAGE), report, since.ctx);
        if (orphans) report(`${orphans} entries belong to orders without a reseller`);
      },
    };
  },
};

/**
 * For the incremental check (Since.orders): the orders `ids` (those of the new entries) and those
 * changed from `changedSince`, with their channel, in id order.
 */
export async function touchedOrders(tx: Tx, ids: Set<string>, changedSince: Date, ctx: CheckContext): Promise<TouchedOrder[]> {
  const all = new Set(ids);
  for (const o of await tx.order.findMany({ where: { updatedAt: { gte: changedSince } }, select: { id: true } })) all.add(o.id);
  const out: TouchedOrder[] = [];
  for (const page of pages(all)) {
    const rows = await tx.order.findMany({
      where: { id: { in: page } },
      orderBy: { id: "asc" },
      select: { ...ORDER_SELECT, channel: true },
    });
    ctx.stats.orders += rows.length;
    out.push(...rows);
  }
  return out;
}
