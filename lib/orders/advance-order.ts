import "server-only";
import { getCurrency } from "@/lib/currencies";
import type { Db, Order, Tx } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { assertTransition, isFinal, type OrderState, PRICED_AT } from "@/lib/domain/order-states";
import { applyRate } from "@/lib/domain/quote-math";
import { type EngineStep, getEngine } from "@/lib/engine";
import { reverseProfit, settleProfit } from "@/lib/ledger/ledger";
import { D, formatAmount } from "@/lib/money/decimal";
import { announceOrder, announceRequiredAction } from "./announce";
import { swapSnapshot } from "./swap";

export interface ApplyStepOptions {
  /** The claim the caller holds: the step applies only if it still does, and it is released. */
  leaseToken?: string;
  /** Failed engine calls that led to this step (an engine_error failure records them). */
  attempts?: number;
  lastError?: string | null;
  /** Called in the step's transaction with the order as it now is (the console's audit row). */
  inTransaction?: (tx: Tx, updated: Order) => Promise<void>;
  /**
   * An operator's resolution by hand (lib/console/orders/resolve.ts): an open order may go
   * straight to finished, skipping the states the provider never reported (failed is always
   * allowed), and a refund given with its hash is sent.
   */
  byHand?: boolean;
}

/** The provider's status or reason changed: its raw status is kept, as received, in the step's transaction. */
export async function recordUpstreamStatus(
  tx: Tx,
  order: Pick<Order, "id" | "provider" | "upstreamStatus" | "stateReason">,
  upstream: { status: string; reason: string | null } | undefined,
  at: Date,
): Promise<void> {
  if (!upstream || !order.provider) return;
  if (upstream.status === order.upstreamStatus && upstream.reason === order.stateReason) return;
  await tx.upstreamStatusEvent.create({
    data: { orderId: order.id, provider: order.provider, status: upstream.status, reason: upstream.reason, at },
  });
}

/** The refund a failure owes: sent when the engine gave its hash, otherwise pending or awaiting an address. */
function refundState(order: Order, refund: { hash: string | null }): string {
  if (!order.refundAddress) return "awaiting_address";
  return refund.hash ? "sent" : "pending";
}

/**
 * Moves an order one step, atomically: the status changes only if it is still what the
 * caller saw (and, for a worker, only while its claim holds), and the timeline event and
 * ledger postings commit with it. Returns null when someone else won.
 */
export async function applyStep(
  db: Db,
  order: Order,
  step: EngineStep,
  now = new Date(),
  opts: ApplyStepOptions = {},
): Promise<Order | null> {
  const from = order.status as OrderState;
  if (step.to === null) throw new Error("applyStep needs a move; a status-only step is recorded by the worker");
  if (!(opts.byHand && !isFinal(from) && step.to === "finished")) assertTransition(from, step.to);
  const patch: Partial<Order> = {
    status: step.to,
    updatedAt: now,
    attempts: opts.attempts ?? 0,
    lastError: opts.lastError ?? null,
    stuckAt: null,
  };
  if (step.upstream) Object.assign(patch, { upstreamStatus: step.upstream.status, stateReason: step.upstream.reason });
  if (isFinal(step.to)) patch.stateReason = null;
  // The holder's claim ends with its step. Without a claim (a sandbox deposit) a worker's
  // claim is left alone: that worker may still be calling the engine about the old state.
  if (opts.leaseToken) Object.assign(patch, { leaseToken: null, leaseUntil: null });

  if (step.to === "failed") {
    patch.failureReason = step.reason;
    if (step.refund) {
      patch.refundAmount = step.refund.amount;
      patch.refundHash = step.refund.hash;
      // By hand, the operator's refund hash is a refund sent, whether or not we knew its address.
      patch.refundState = opts.byHand && step.refund.hash ? "sent" : refundState(order, step.refund);
    }
  } else {
    if (step.amountReceived !== undefined) patch.amountReceived = step.amountReceived;
    if (step.payinHash) patch.payinHash = step.payinHash;
    if (step.payoutHash) patch.payoutHash = step.payoutHash;
    if (step.to === "confirming") patch.depositedAt = now;
    // The deposit is accepted: price what actually arrived with the order's markup, at the
    // rate of this moment for a floating order (when the engine gives one), at the order's
    // own rate otherwise. A fixed order keeps its locked amounts for the quoted deposit.
    const priced = step.to === PRICED_AT;
    const rate = priced && step.rate && order.rateType !== "fixed" ? step.rate : new D(order.rate);
    const received = order.amountReceived ? new D(order.amountReceived) : null;
    if (priced && received && (!received.eq(order.fromAmount) || !rate.eq(order.rate))) {
      const to = getCurrency(order.toCurrency);
      const q = applyRate(received, rate, to?.precision ?? 8, order.markupBps);
      patch.rate = rate.toFixed();
      patch.rawToAmount = formatAmount(q.rawToAmount);
      patch.toAmount = formatAmount(q.toAmount);
      patch.profit = formatAmount(q.profit);
    }
  }
  const updated = { ...order, ...patch } as Order;
  patch.nextActionAt = isFinal(step.to) ? null : new Date(now.getTime() + getEngine().nextCheckDelayMs(swapSnapshot(updated)));
  updated.nextActionAt = patch.nextActionAt;

  return writeTransaction(db, async (tx) => {
    const r = await tx.order.updateMany({
      where: { id: order.id, status: from, ...(opts.leaseToken ? { leaseToken: opts.leaseToken } : {}) },
      data: patch,
    });
    if (r.count !== 1) return null;
    const note = step.to === "failed" ? step.reason : undefined;
    await tx.orderEvent.create({ data: { orderId: order.id, status: step.to, note, at: now } });
    await recordUpstreamStatus(tx, order, step.upstream, now);
    if (step.to === "finished") await settleProfit(tx, updated, new D(updated.profit), now);
    if (step.to === "failed") await reverseProfit(tx, updated, now);
    await announceOrder(tx, updated, { previousStatus: from, now });
    await announceRequiredAction(tx, order, updated, { now });
    if (opts.inTransaction) await opts.inTransaction(tx, updated);
    return updated;
  });
}
