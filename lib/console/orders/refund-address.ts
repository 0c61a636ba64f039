import "server-only";
import type { Db, Order } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { releaseLease } from "@/lib/jobs/lease";
import { type Actor, recordAudit } from "@/lib/operators/audit";
import { announceRequiredAction } from "@/lib/orders/announce";
import { refundAddressUsable } from "@/lib/orders/required-action";
import { REFUND_ADDRESS_NOTE, setRefundAddress } from "@/lib/orders/set-refund-address";
import { allowedActions, checkRefundAddress, claimOrder, invalidState, loadOrder, orderView, snapshotOf } from "./shared";

// A refund address given by an operator (issue 52, point 4). Where the order's holder takes
// one now (SideShift's set-refund-address, or our own engine), it goes through the one door
// every refund address uses (lib/orders/set-refund-address.ts): the provider is told, then the
// order is written. Otherwise the address is recorded on the order, and the answer says what
// remains to do by hand. Either way the audit row is written in the order's transaction.

export interface ConsoleRefundAddressOptions {
  db: Db;
  orderId: string;
  address: string;
  extraId?: string | null;
  reason?: string | null;
  by: Actor;
}

const blankToNull = (s: string | null | undefined) => (s?.trim() ? s.trim() : null);

/** What remains to do by hand once the address is only recorded here. */
function remainingFor(o: Order, address: string): string {
  if (o.provider)
    return `${o.provider} takes no refund address through its API: give ${address} to ${o.provider}'s support for exchange ${o.upstreamId ?? "?"}, then resolve the order with the refund's hash.`;
  return `The refund is owed to ${address}: send it, then resolve the order with the refund's hash.`;
}

export async function setConsoleRefundAddress(opts: ConsoleRefundAddressOptions) {
  const { db, by } = opts;
  const address = opts.address.trim();
  const extraId = blankToNull(opts.extraId);
  const order = await loadOrder(db, opts.orderId);
  // The same address again: the answer of the first time (a retry).
  if (order.refundAddress === address && (order.refundExtraId ?? null) === extraId)
    return { order: orderView(order), sentUpstream: null, remaining: null, unchanged: true };
  if (order.refundAddress) throw invalidState("The order already has another refund address; it cannot be changed.");
  if (!allowedActions(order).includes("refund_address"))
    throw invalidState(`The order (${order.status}${order.stateReason ? `, ${order.stateReason}` : ""}) takes no refund address now.`);
  const audit = (tx: Parameters<typeof recordAudit>[0], before: Order, after: Order, remaining: string | null) =>
    recordAudit(tx, by, {
      action: "order.refund_address",
      targetType: "order",
      targetId: order.id,
      before: snapshotOf(before),
      after: { ...snapshotOf(after), sentUpstream: remaining === null && !!after.provider, remaining },
      reason: opts.reason ?? null,
    });

  if (order.resellerId && refundAddressUsable(order)) {
    try {
      const done = await setRefundAddress(db, {
        orderId: order.id,
        auth: { resellerId: order.resellerId },
        refundAddress: address,
        refundExtraId: extraId,
        inTransaction: (tx, before, after) => audit(tx, before, after, null).then(() => {}),
      });
      return { order: orderView(done), sentUpstream: !!done.provider, remaining: null, unchanged: false };
    } catch (e) {
      if (e instanceof AppError && (e.code === "REFUND_ADDRESS_LOCKED" || e.code === "REFUND_ADDRESS_UNSUPPORTED"))
        throw invalidState(e.message);
      throw e;
    }
  }

  checkRefundAddress(order, address, extraId);
  const remaining = remainingFor(order, address);
  // An open order is written under its claim: no worker step lands between the read and the write.
  const token = order.status === "failed" ? null : await claimOrder(db, order.id);
  try {
    const now = new Date();
    const updated = await writeTransaction(db, async (tx) => {
      const fresh = await tx.order.findUnique({ where: { id: order.id } });
      if (!fresh || fresh.refundAddress || !allowedActions(fresh).includes("refund_address"))
        throw invalidState("The order changed meanwhile; read it and try again.");
      const patch: Partial<Order> = { refundAddress: address, refundExtraId: extraId, updatedAt: now };
      // A failed order's refund is owed to this address now (sent by hand, then resolved with its hash).
      if (fresh.status === "failed") patch.refundState = "pending";
      const r = await tx.order.updateMany({
        where: { id: fresh.id, status: fresh.status, refundAddress: null, ...(token ? { leaseToken: token } : {}) },
        data: { ...patch, ...(token ? { leaseToken: null, leaseUntil: null } : {}) },
      });
      if (r.count !== 1) throw invalidState("The order changed meanwhile; read it and try again.");
      const after = { ...fresh, ...patch } as Order;
      await tx.orderEvent.create({ data: { orderId: fresh.id, status: fresh.status, note: REFUND_ADDRESS_NOTE, at: now } });
      await announceRequiredAction(tx, fresh, after, { now });
      await audit(tx, fresh, after, remaining);
      return after;
    });
    return { order: orderView(updated), sentUpstream: false, remaining, unchanged: false };
  } finally {
    if (token) await releaseLease(db, "order", order.id, token);
  }
}
