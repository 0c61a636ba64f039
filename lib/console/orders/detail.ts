import "server-only";
import type { Db } from "@/lib/db/client";
import { toAuditView } from "@/lib/operators/audit";
import { orderRequiredAction } from "@/lib/orders/required-action";
import { loadOrder, orderView } from "./shared";

// One order as the console shows it (issue 52, point 3): the order, our history, the
// provider's raw statuses as received, its journals with their lines and ledger entries,
// every note and action taken on it, and the actions its state allows now.

export async function getConsoleOrder(opts: { db: Db; orderId: string }) {
  const { db } = opts;
  const order = await loadOrder(db, opts.orderId);
  const [events, upstreamStatuses, journals, audit, reseller] = await Promise.all([
    db.orderEvent.findMany({ where: { orderId: order.id }, orderBy: { id: "asc" } }),
    db.upstreamStatusEvent.findMany({ where: { orderId: order.id }, orderBy: { id: "asc" } }),
    db.journal.findMany({ where: { orderId: order.id }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    db.auditEvent.findMany({ where: { targetType: "order", targetId: order.id }, orderBy: { id: "asc" } }),
    order.resellerId ? db.reseller.findUnique({ where: { id: order.resellerId }, select: { id: true, walletAddress: true } }) : null,
  ]);
  const ids = journals.map((j) => j.id);
  const [lines, entries] = ids.length
    ? await Promise.all([
        db.journalLine.findMany({ where: { journalId: { in: ids } }, orderBy: { id: "asc" } }),
        db.ledgerEntry.findMany({ where: { journalId: { in: ids } }, orderBy: { id: "asc" } }),
      ])
    : [[], []];
  return {
    order: { ...orderView(order), requiredAction: orderRequiredAction(order) },
    reseller: reseller ? { id: reseller.id, wallet: reseller.walletAddress } : null,
    events: events.map((e) => ({ status: e.status, note: e.note, at: e.at.toISOString() })),
    upstreamStatuses: upstreamStatuses.map((e) => ({ provider: e.provider, status: e.status, reason: e.reason, at: e.at.toISOString() })),
    journals: journals.map((j) => ({
      id: j.id,
      kind: j.kind,
      createdAt: j.createdAt.toISOString(),
      lines: lines.filter((l) => l.journalId === j.id).map((l) => ({ account: l.account, currency: l.currency, amount: l.amount })),
      entries: entries
        .filter((e) => e.journalId === j.id)
        .map((e) => ({ resellerId: e.resellerId, currency: e.currency, bucket: e.bucket, kind: e.kind, amount: e.amount })),
    })),
    audit: audit.map(toAuditView),
  };
}
