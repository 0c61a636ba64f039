import { isFinal, type OrderState, type StateReason } from "./order-states";

// What a person must do about an order, if anything (issue 51): an addition to the order body
// (`requiredAction`) and the `order.action_required` webhook, never a seventh status
// (product.md, 2026-11-28). Derived from the order's state, never stored: the one rule, here
// (a shared module: pure, imported by the browser too). docs/api.md has the table.

export const REQUIRED_ACTIONS = ["provide_refund_address", "contact_support", "wait_for_review"] as const;
export type RequiredAction = (typeof REQUIRED_ACTIONS)[number];

/** The refund states of the status body's `refund.state`. */
export const REFUND_STATES = ["sent", "pending", "awaiting_address"] as const;

export interface RequiredActionInput {
  status: OrderState;
  stateReason: StateReason | null;
  refundState: string | null;
  refundAddress: string | null;
  /**
   * Whether a refund address given now would be used: the order's provider takes one after
   * creation (lib/providers: setRefundAddress), or the order is ours to refund (the simulated
   * engine). Without it, asking the user for an address would lead nowhere.
   */
  refundAddressUsable: boolean;
}

/**
 * - finished: null.
 * - failed: a refund awaiting an address: `provide_refund_address` when one would be used,
 *   otherwise `contact_support`; any other failure (refund sent, pending, or none owed): null.
 * - open, held for review (`hold`): no refund address and one would be used:
 *   `provide_refund_address`; otherwise `wait_for_review`.
 * - open, the provider needs something (`needs_action`): no refund address and one would be
 *   used: `provide_refund_address`; otherwise `contact_support` (only support can act).
 * - open otherwise (no reason, `refunding`, `unknown`): null. An unknown provider status is
 *   not a request to the user; the operator sees it (stuck orders).
 */
export function requiredActionOf(o: RequiredActionInput): RequiredAction | null {
  const noAddress = !o.refundAddress;
  if (o.status === "finished") return null;
  if (isFinal(o.status)) {
    if (o.refundState !== "awaiting_address") return null;
    return noAddress && o.refundAddressUsable ? "provide_refund_address" : "contact_support";
  }
  if (o.stateReason === "hold") return noAddress && o.refundAddressUsable ? "provide_refund_address" : "wait_for_review";
  if (o.stateReason === "needs_action") return noAddress && o.refundAddressUsable ? "provide_refund_address" : "contact_support";
  return null;
}
