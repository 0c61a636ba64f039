// The six states of the spec and the only moves between them (product.md): forward along
// the happy path one step at a time, or from any non-final state to failed.

export const ORDER_STATES = ["waiting", "confirming", "exchanging", "sending", "finished", "failed"] as const;
export type OrderState = (typeof ORDER_STATES)[number];

const HAPPY_PATH: OrderState[] = ["waiting", "confirming", "exchanging", "sending", "finished"];

export const isFinal = (s: OrderState) => s === "finished" || s === "failed";

export function nextOnHappyPath(s: OrderState): OrderState | null {
  const i = HAPPY_PATH.indexOf(s);
  return i >= 0 && i < HAPPY_PATH.length - 1 ? HAPPY_PATH[i + 1] : null;
}

export function canTransition(from: OrderState, to: OrderState): boolean {
  if (isFinal(from)) return false;
  return to === "failed" || nextOnHappyPath(from) === to;
}

export function assertTransition(from: OrderState, to: OrderState): void {
  if (!canTransition(from, to)) throw new Error(`illegal order transition ${from} -> ${to}`);
}

/**
 * Why an order failed; stable strings returned as `failureReason`. `refunded`: an upstream
 * provider sent the deposit back (the refund's hash is on the order); `provider_failed`: the
 * provider reported the exchange failed.
 */
export type FailureReason = "expired" | "deposit_below_minimum" | "deposit_above_maximum" | "engine_error" | "refunded" | "provider_failed";
