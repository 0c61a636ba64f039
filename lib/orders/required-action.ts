import "server-only";
import type { Order } from "@/lib/db/client";
import { isFinal, orderStateOf, stateReasonOf } from "@/lib/domain/order-states";
import { type RequiredAction, requiredActionOf } from "@/lib/domain/required-action";
import { takesRefundAddressLater } from "@/lib/providers/registry";

// An order row's requiredAction (lib/domain/required-action.ts has the rule): whether a refund
// address given now would be used depends on who holds the order.

type ActionFields = Pick<Order, "status" | "stateReason" | "refundState" | "refundAddress" | "provider" | "resellerId">;

/**
 * Whether a refund address given now would be used: an order of a reseller (a keyless one can
 * be given none), open at a provider that takes one
 * after creation (SideShift), or one of ours (the simulated engine, no provider): open, it is
 * refunded there if it fails; failed with its refund awaiting an address, the refund is sent.
 */
export function refundAddressUsable(o: ActionFields): boolean {
  // A keyless order has no door for it: it is visible by its id, and an id alone may not redirect a refund.
  if (!o.resellerId) return false;
  const status = orderStateOf(o.status);
  if (o.provider) return !isFinal(status) && takesRefundAddressLater(o.provider);
  return !isFinal(status) || (status === "failed" && o.refundState === "awaiting_address");
}

export function orderRequiredAction(o: ActionFields): RequiredAction | null {
  return requiredActionOf({
    status: orderStateOf(o.status),
    stateReason: stateReasonOf(o.stateReason),
    refundState: o.refundState,
    refundAddress: o.refundAddress,
    refundAddressUsable: refundAddressUsable(o),
  });
}
