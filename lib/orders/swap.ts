import "server-only";
import { getCurrency } from "@/lib/currencies";
import type { Order } from "@/lib/db/client";
import { type OrderState, rateTypeOf } from "@/lib/domain/order-states";
import type { OpenSwapRequest, SwapSnapshot } from "@/lib/engine";
import { leaseMs } from "@/lib/jobs/lease";
import { D } from "@/lib/money/decimal";

// Orders as the engine sees them (plain values), and how long an engine call may take under a
// claim on the order (the claims themselves: lib/jobs/lease.ts).

export function swapSnapshot(o: Order): SwapSnapshot {
  return {
    orderId: o.id,
    state: o.status as OrderState,
    fromCurrency: o.fromCurrency,
    toCurrency: o.toCurrency,
    fromAmount: o.fromAmount,
    amountReceived: o.amountReceived,
    refundAddress: o.refundAddress,
    createdAt: o.createdAt,
    expiresAt: o.expiresAt,
    rateType: rateTypeOf(o.rateType),
    fixedUntil: o.fixedUntil,
    depositedAt: o.depositedAt,
    upstream:
      o.provider && o.upstreamId
        ? { provider: o.provider, id: o.upstreamId, data: o.upstreamData, status: o.upstreamStatus, reason: o.stateReason }
        : null,
  };
}

export function openSwapRequest(o: Order): OpenSwapRequest {
  const from = getCurrency(o.fromCurrency);
  const to = getCurrency(o.toCurrency);
  if (!from || !to) throw new Error(`order ${o.id} names a currency the registry no longer has`);
  return {
    orderId: o.id,
    from,
    to,
    fromAmount: new D(o.fromAmount),
    toAmount: new D(o.toAmount),
    payoutAddress: o.payoutAddress,
    payoutExtraId: o.payoutExtraId,
    refundAddress: o.refundAddress,
    refundExtraId: o.refundExtraId,
    markupBps: o.markupBps,
    rateType: rateTypeOf(o.rateType),
  };
}

/** An engine call gives up at half the lease, so it always ends while its claim still holds. */
export const engineDeadlineMs = () => Math.floor(leaseMs() / 2);
