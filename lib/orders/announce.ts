import "server-only";
import { parseChannel } from "@/lib/channels/channels";
import type { Order, OrderEvent, Tx } from "@/lib/db/client";
import { orderStateOf } from "@/lib/domain/order-states";
import { enqueueEvent } from "@/lib/webhooks/outbox";
import { orderRequiredAction } from "./required-action";
import { serializeOrderStatus } from "./serialize-order";

/**
 * The webhook event of an order's change, in the transaction that makes the change: the new
 * state and the full status body (as GET /exchange/{id} answers it). Keyless orders have no
 * reseller, hence no endpoints. `events` is the order's whole timeline when the caller has it
 * (a new order's one event); otherwise it is read.
 */
export async function announceOrder(
  tx: Tx,
  order: Order,
  change: { previousStatus: string | null; now: Date; events?: OrderEvent[] },
): Promise<void> {
  if (!order.resellerId) return;
  const events = change.events ?? (await tx.orderEvent.findMany({ where: { orderId: order.id }, orderBy: { id: "asc" } }));
  const status = orderStateOf(order.status);
  await enqueueEvent(tx, {
    resellerId: order.resellerId,
    type: change.previousStatus === null ? "order.created" : "order.status_changed",
    subject: order.id,
    data: {
      orderId: order.id,
      status,
      // The channel the order came through: { type: key | widget | page, id }.
      channel: parseChannel(order.channel),
      ...(change.previousStatus === null ? {} : { previousStatus: orderStateOf(change.previousStatus) }),
      order: serializeOrderStatus(order, events),
    },
    now: change.now,
  });
}

/**
 * The `order.action_required` event, in the transaction of the change that may cause it: sent
 * when the order's requiredAction (lib/domain/required-action.ts) is non-null after the change
 * and was something else before (null or another action). Derived from the row before and
 * after, so nothing is stored for it. Returns whether the change calls for one (even for an
 * order no endpoint hears).
 */
export async function announceRequiredAction(
  tx: Tx,
  before: Order,
  after: Order,
  change: { now: Date; events?: OrderEvent[] },
): Promise<boolean> {
  const previous = orderRequiredAction(before);
  const action = orderRequiredAction(after);
  if (action === null || action === previous) return false;
  if (!after.resellerId) return true;
  const events = change.events ?? (await tx.orderEvent.findMany({ where: { orderId: after.id }, orderBy: { id: "asc" } }));
  await enqueueEvent(tx, {
    resellerId: after.resellerId,
    type: "order.action_required",
    subject: after.id,
    data: {
      orderId: after.id,
      status: orderStateOf(after.status),
      requiredAction: action,
      previousRequiredAction: previous,
      channel: parseChannel(after.channel),
      order: serializeOrderStatus(after, events),
    },
    now: change.now,
  });
  return true;
}

/** Whether a change of the row calls for `order.action_required` (no transaction needed when not). */
export const requiredActionAppears = (before: Order, after: Order): boolean => {
  const action = orderRequiredAction(after);
  return action !== null && action !== orderRequiredAction(before);
};
