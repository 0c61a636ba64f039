import "server-only";
import { parseChannel } from "@/lib/channels/channels";
import type { Order, OrderEvent, Tx } from "@/lib/db/client";
import { orderStateOf } from "@/lib/domain/order-states";
import { enqueueEvent } from "@/lib/webhooks/outbox";
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
