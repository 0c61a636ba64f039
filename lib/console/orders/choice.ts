import "server-only";
import type { Db, Order } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { getEngine } from "@/lib/engine";
import { callEngine } from "@/lib/engine/call";
import { AppError } from "@/lib/errors";
import { releaseLease } from "@/lib/jobs/lease";
import { type Actor, recordAudit } from "@/lib/operators/audit";
import { engineDeadlineMs, swapSnapshot } from "@/lib/orders/swap";
import { awaitsChoice, checkRefundAddress, claimOrder, invalidState, loadOrder, orderView, snapshotOf } from "./shared";

// FixedFloat's emergency answered by an operator (issue 52, point 4): exchange at the new rate,
// or refund to an address. The provider is told under the order's claim (no worker reads it
// meanwhile), then the order is marked to be read at once, with a timeline note and the audit
// row in one transaction. The provider's next reading shows the outcome.

export interface ConsoleChoiceOptions {
  db: Db;
  orderId: string;
  choice: "exchange" | "refund";
  /** Where a refund goes; by default the order's refund address. */
  address?: string | null;
  extraId?: string | null;
  reason?: string | null;
  by: Actor;
}

/** The choice already made on this reading of the provider (none read since), if any. */
async function madeOnThisReading(db: Db, o: Order): Promise<string | null> {
  const last = await db.auditEvent.findFirst({
    where: { targetType: "order", targetId: o.id, action: "order.choice" },
    orderBy: { id: "desc" },
  });
  if (!last?.after) return null;
  const after = JSON.parse(last.after) as { choice?: string; upstreamStatus?: string | null };
  return after.upstreamStatus === o.upstreamStatus ? (after.choice ?? null) : null;
}

export async function makeConsoleChoice(opts: ConsoleChoiceOptions) {
  const { db, by } = opts;
  const order = await loadOrder(db, opts.orderId);
  const made = await madeOnThisReading(db, order);
  if (made === opts.choice) return { order: orderView(order), unchanged: true };
  if (made) throw invalidState(`The choice ${made} was already given to the provider.`);
  if (!awaitsChoice(order)) throw invalidState("The order's provider waits for no choice now.");
  const engine = getEngine();
  if (!engine.makeChoice) throw invalidState("This engine takes no choice.");
  let address: string | null = null;
  let extraId: string | null = null;
  if (opts.choice === "refund") {
    address = opts.address?.trim() || order.refundAddress;
    extraId = opts.address?.trim() ? opts.extraId?.trim() || null : order.refundExtraId;
    if (!address) throw new AppError("INVALID_REFUND_ADDRESS", "A refund needs an address: the order has none, give one.");
    if (order.refundAddress && (address !== order.refundAddress || (extraId ?? null) !== (order.refundExtraId ?? null)))
      throw invalidState("The order already has another refund address; it cannot be changed.");
    checkRefundAddress(order, address, extraId);
  }

  const token = await claimOrder(db, order.id);
  try {
    const claimed = await loadOrder(db, order.id);
    if (!awaitsChoice(claimed) || claimed.upstreamStatus !== order.upstreamStatus)
      throw invalidState("The order changed meanwhile; read it and try again.");
    const ctx = { scope: order.resellerId ? `reseller:${order.resellerId}` : `order:${order.id}` };
    await callEngine(engineDeadlineMs(), ctx, (c) =>
      engine.makeChoice!(swapSnapshot(claimed), { choice: opts.choice, address, extraId }, c),
    );
    const now = new Date();
    const updated = await writeTransaction(db, async (tx) => {
      const patch: Partial<Order> = { nextActionAt: now, updatedAt: now };
      if (address && !claimed.refundAddress) Object.assign(patch, { refundAddress: address, refundExtraId: extraId });
      const r = await tx.order.updateMany({
        where: { id: claimed.id, leaseToken: token },
        data: { ...patch, leaseToken: null, leaseUntil: null },
      });
      if (r.count !== 1) throw invalidState("The order changed meanwhile; read it and try again.");
      const after = { ...claimed, ...patch } as Order;
      await tx.orderEvent.create({ data: { orderId: claimed.id, status: claimed.status, note: `choice_${opts.choice}`, at: now } });
      await recordAudit(tx, by, {
        action: "order.choice",
        targetType: "order",
        targetId: claimed.id,
        before: snapshotOf(claimed),
        after: { ...snapshotOf(after), choice: opts.choice },
        reason: opts.reason ?? null,
      });
      return after;
    });
    return { order: orderView(updated), unchanged: false };
  } finally {
    await releaseLease(db, "order", order.id, token);
  }
}
