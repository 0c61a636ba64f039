import "server-only";
import type { Db, Prisma } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

// Redelivery, from the reseller's dashboard: one delivery again, or every failed delivery of
// an endpoint in a time range (docs/webhooks.md, Resending).
//
// A redelivery makes the delivery's own row pending again, due now; it never adds a row.
//  - The attempt history stays whole and in one place: the message's attempts to this
//    endpoint, before and after the resend, are the one row's log (WebhookAttempt), so the
//    dashboard shows one line per event and endpoint with every attempt under it, and nothing
//    reads as "failed" that was delivered later. `attempts` starts again at 0: it is the
//    delivery's place on the retry schedule (the sender reads it so), so a resent delivery
//    gets the whole schedule again, as a new one would; the log still counts every attempt.
//  - The per-subject order stays oldest first: the sender sends an endpoint one delivery per
//    subject at a time, the lowest id first (lib/webhooks/sender.ts). The resent row keeps its
//    id, so it goes out before any later delivery about the same order that is still waiting,
//    as it did the first time; a new row would have jumped behind them. A resent row can be
//    older than one already in flight, which the sender also treats as "wait" (it checks for
//    a leased delivery of the subject, not only an earlier pending one).
//  - The body and the webhook-id are the message's (WebhookMessage), unchanged: the receiver
//    sees the same event again and dedupes it by webhook-id.
//  - Double clicks queue nothing twice: each change is one conditional UPDATE of rows that
//    are not pending (single) or still failed (bulk); a delivery pending already, or being
//    sent right now (pending, leased), is left as it is.
//  - Only the reseller's own: every statement is scoped by the endpoint's resellerId; another
//    reseller's delivery or endpoint is NOT_FOUND, as one that does not exist.
//  - A disabled endpoint is refused (WEBHOOK_ENDPOINT_DISABLED) rather than enabled on the
//    way: it was disabled on purpose (by the reseller) or by its failures (by the sender), and
//    enabling it also releases everything else waiting for it, which is the Enable button's
//    decision to make. A pending delivery of a disabled endpoint would only wait, unseen.

/** At most this many deliveries are queued by one bulk resend; the answer says whether more are left. */
export const MAX_REDELIVER = 1000;

/** The change that queues a delivery again: due now, at the start of the retry schedule. */
const requeue = (now: Date) => ({ status: "pending", attempts: 0, nextAttemptAt: now });

function disabled(): AppError {
  return new AppError("WEBHOOK_ENDPOINT_DISABLED", "The endpoint is disabled: enable it first, then resend.");
}

/** The reseller's own endpoint, enabled; else NOT_FOUND or WEBHOOK_ENDPOINT_DISABLED. */
async function enabledEndpoint(db: Db, resellerId: string, endpointId: string) {
  const e = await db.webhookEndpoint.findFirst({ where: { id: String(endpointId), resellerId }, select: { id: true, enabled: true } });
  if (!e) throw new AppError("NOT_FOUND", "No webhook endpoint with this id.");
  if (!e.enabled) throw disabled();
  return e;
}

/**
 * Sends one of the reseller's deliveries again (failed or succeeded: a receiver that lost
 * it). `queued` is false when it was pending already (a double click, or still retrying).
 */
export async function redeliverOne(
  db: Db,
  opts: { resellerId: string; deliveryId: number; now?: Date },
): Promise<{ deliveryId: number; queued: boolean }> {
  const id = opts.deliveryId;
  const own: Prisma.WebhookDeliveryWhereInput = { id, endpoint: { resellerId: opts.resellerId } };
  const notFound = () => new AppError("NOT_FOUND", "No webhook delivery with this id.");
  if (!Number.isSafeInteger(id) || id < 1) throw notFound();
  const r = await db.webhookDelivery.updateMany({
    where: { ...own, status: { not: "pending" }, endpoint: { resellerId: opts.resellerId, enabled: true } },
    data: requeue(opts.now ?? new Date()),
  });
  if (r.count === 1) return { deliveryId: id, queued: true };
  // Nothing changed: say why.
  const d = await db.webhookDelivery.findFirst({ where: own, select: { status: true, endpoint: { select: { enabled: true } } } });
  if (!d) throw notFound();
  if (d.status === "pending") return { deliveryId: id, queued: false };
  if (!d.endpoint.enabled) throw disabled();
  throw new Error(`delivery ${id} neither requeued nor pending`);
}

/**
 * Sends again the failed deliveries of one of the reseller's endpoints created in
 * [from, to), oldest first, at most MAX_REDELIVER of them. `queued`: how many; `more`: failed
 * ones of the range are left (resend again for the next ones).
 */
export async function redeliverFailed(
  db: Db,
  opts: { resellerId: string; endpointId: string; from: Date; to: Date; now?: Date },
): Promise<{ queued: number; more: boolean }> {
  const { from, to } = opts;
  if (!(from instanceof Date) || !(to instanceof Date) || Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()))
    throw new AppError("INVALID_REQUEST", "Give the range's start and end.", { field: "from" });
  if (from >= to) throw new AppError("INVALID_REQUEST", "The range's start must be before its end.", { field: "from" });
  const e = await enabledEndpoint(db, opts.resellerId, opts.endpointId);
  // A range of the (endpointId, createdAt) index, the failed ones among it.
  const rows = await db.webhookDelivery.findMany({
    where: { endpointId: e.id, status: "failed", createdAt: { gte: from, lt: to } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_REDELIVER + 1,
    select: { id: true },
  });
  const ids = rows.slice(0, MAX_REDELIVER).map((r) => r.id);
  if (!ids.length) return { queued: 0, more: false };
  // Still failed and the endpoint still enabled, else left alone (a click at the same time queued it).
  const r = await db.webhookDelivery.updateMany({
    where: { id: { in: ids }, endpointId: e.id, status: "failed", endpoint: { resellerId: opts.resellerId, enabled: true } },
    data: requeue(opts.now ?? new Date()),
  });
  return { queued: r.count, more: rows.length > MAX_REDELIVER };
}
