import "server-only";
import type { Db, Order, Tx } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { isFinal, orderStateOf } from "@/lib/domain/order-states";
import type { EngineStep } from "@/lib/engine";
import { releaseLease } from "@/lib/jobs/lease";
import { type Actor, recordAudit } from "@/lib/operators/audit";
import { applyStep } from "@/lib/orders/advance-order";
import { claimOrder, invalidState, loadOrder, orderView, snapshotOf } from "./shared";

// An order resolved by hand (issue 52, point 4; docs/operator.md has the ledger's side). An open
// order goes through applyStep like any other move, so the ledger does what it does for any
// failure or finish: a failure reverses the order's pending profit, a finish settles it into
// the reseller's available balance. A failed order whose refund was owed (no address, or not
// sent yet) is closed with the refund's hash, which touches no book. The audit row is written
// in the move's transaction.

export type Resolution = { outcome: "failed"; refundHash?: string | null } | { outcome: "finished"; payoutHash: string };

export interface ResolveOptions {
  db: Db;
  orderId: string;
  resolution: Resolution;
  reason: string;
  by: Actor;
}

export async function resolveConsoleOrder(opts: ResolveOptions) {
  const { db, by, resolution } = opts;
  const order = await loadOrder(db, opts.orderId);
  const status = orderStateOf(order.status);
  const hash = resolution.outcome === "failed" ? resolution.refundHash?.trim() || null : resolution.payoutHash.trim();
  const audit = (tx: Tx, before: Order, after: Order) =>
    recordAudit(tx, by, {
      action: "order.resolve",
      targetType: "order",
      targetId: order.id,
      before: snapshotOf(before),
      after: { ...snapshotOf(after), outcome: resolution.outcome },
      reason: opts.reason,
    });
  const unchanged = () => ({ order: orderView(order), unchanged: true });

  if (isFinal(status)) {
    if (status !== resolution.outcome) throw invalidState(`The order is already ${status}.`);
    if (resolution.outcome === "finished") {
      if (order.payoutHash === hash) return unchanged();
      throw invalidState("The order is already finished.");
    }
    if (!hash || order.refundHash === hash) return unchanged();
    if (order.refundState !== "awaiting_address" && order.refundState !== "pending")
      throw invalidState(order.refundState ? "The order's refund is already sent." : "The order failed with nothing to refund.");
    // The refund owed was sent by hand: closed with its hash.
    const now = new Date();
    const updated = await writeTransaction(db, async (tx) => {
      const patch: Partial<Order> = { refundState: "sent", refundHash: hash, updatedAt: now };
      const r = await tx.order.updateMany({
        where: { id: order.id, status: "failed", refundState: order.refundState, refundHash: order.refundHash },
        data: patch,
      });
      if (r.count !== 1) throw invalidState("The order changed meanwhile; read it and try again.");
      const after = { ...order, ...patch } as Order;
      await tx.orderEvent.create({ data: { orderId: order.id, status: "failed", note: "refund_sent_by_hand", at: now } });
      await audit(tx, order, after);
      return after;
    });
    return { order: orderView(updated), unchanged: false };
  }

  const stepFor = (o: Order): EngineStep =>
    resolution.outcome === "finished"
      ? { to: "finished", payoutHash: hash as string }
      : {
          to: "failed",
          reason: hash ? "refunded" : "provider_failed",
          refund: hash || o.amountReceived ? { amount: o.amountReceived ?? o.fromAmount, hash } : null,
        };
  // Under the order's claim: no worker's step of the provider's reading lands on the resolved order.
  const token = await claimOrder(db, order.id);
  try {
    const claimed = await loadOrder(db, order.id);
    if (claimed.status !== order.status) throw invalidState("The order changed meanwhile; read it and try again.");
    const moved = await applyStep(db, claimed, stepFor(claimed), new Date(), {
      byHand: true,
      leaseToken: token,
      inTransaction: async (tx, updated) => {
        await audit(tx, claimed, updated);
      },
    });
    if (!moved) throw invalidState("The order changed meanwhile; read it and try again.");
    return { order: orderView(moved), unchanged: false };
  } finally {
    await releaseLease(db, "order", order.id, token);
  }
}
