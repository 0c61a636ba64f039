import "server-only";
import { getCurrency } from "@/lib/currencies";
import type { Db, Order } from "@/lib/db/client";
import { type EngineStep, getEngine } from "@/lib/engine";
import { reverseProfit, settleProfit } from "@/lib/ledger/ledger";
import { D, formatAmount } from "@/lib/money/decimal";
import { applyRate } from "@/lib/quotes/compute-quote";
import { assertTransition, isFinal, type OrderState } from "./state-machine";

/**
 * Moves an order one step, atomically: the status changes only if it is still what the
 * caller saw (so two workers, or a worker and a sandbox call, can race safely), and the
 * timeline event and ledger postings commit with it. Returns null when someone else won.
 */
export async function applyStep(db: Db, order: Order, step: EngineStep, now = new Date()): Promise<Order | null> {
  const from = order.status as OrderState;
  assertTransition(from, step.to);
  const patch: Partial<Order> = { status: step.to, updatedAt: now };

  if (step.to === "failed") {
    patch.failureReason = step.reason;
    if (step.refund) {
      patch.refundAmount = step.refund.amount;
      patch.refundHash = step.refund.hash;
      patch.refundState = order.refundAddress ? "sent" : "awaiting_address";
    }
  } else {
    if (step.amountReceived !== undefined) patch.amountReceived = step.amountReceived;
    if (step.payinHash) patch.payinHash = step.payinHash;
    if (step.payoutHash) patch.payoutHash = step.payoutHash;
    // The deposit is accepted: price what actually arrived with the order's own rate and markup.
    if (step.to === "exchanging" && order.amountReceived && !new D(order.amountReceived).eq(order.fromAmount)) {
      const to = getCurrency(order.toCurrency);
      const q = applyRate(new D(order.amountReceived), new D(order.rate), to?.precision ?? 8, order.markupBps);
      patch.rawToAmount = formatAmount(q.rawToAmount);
      patch.toAmount = formatAmount(q.toAmount);
      patch.profit = formatAmount(q.profit);
    }
  }
  patch.nextActionAt = isFinal(step.to) ? null : new Date(now.getTime() + getEngine().nextCheckDelayMs());

  return db.$transaction(async (tx) => {
    const r = await tx.order.updateMany({ where: { id: order.id, status: from }, data: patch });
    if (r.count !== 1) return null;
    const updated = { ...order, ...patch } as Order;
    const note = step.to === "failed" ? step.reason : undefined;
    await tx.orderEvent.create({ data: { orderId: order.id, status: step.to, note, at: now } });
    if (step.to === "finished") await settleProfit(tx, updated, new D(updated.profit));
    if (step.to === "failed") await reverseProfit(tx, updated);
    return updated;
  });
}
