import "server-only";
import type { Db } from "@/lib/db/client";
import { type Actor, recordAudit, toAuditView } from "@/lib/operators/audit";
import { loadOrder } from "./shared";

// A note on an order (issue 52, point 4): an audit row (order.note), shown in the order's
// detail with every action taken. The same text sent again by the same operator, with nothing
// noted since, is the same note (a retried request).

export async function addOrderNote(opts: { db: Db; orderId: string; text: string; by: Actor }) {
  const { db, by } = opts;
  const order = await loadOrder(db, opts.orderId);
  const last = await db.auditEvent.findFirst({
    where: { targetType: "order", targetId: order.id, action: "order.note" },
    orderBy: { id: "desc" },
  });
  if (last && last.actor === by.actor && last.after === JSON.stringify({ text: opts.text }))
    return { note: toAuditView(last), unchanged: true };
  const row = await recordAudit(db, by, { action: "order.note", targetType: "order", targetId: order.id, after: { text: opts.text } });
  return { note: toAuditView(row), unchanged: false };
}
