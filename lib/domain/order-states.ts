// The six states of the spec and the only moves between them (product.md): forward along
// the happy path one step at a time, or from any non-final state to failed; and why an
// order fails. The one list of each, shared by the engine, the service, the API's schemas
// and the dashboard (lib/domain, below all of them; a shared module: pure, imported by the
// browser too).

export const ORDER_STATES = ["waiting", "confirming", "exchanging", "sending", "finished", "failed"] as const;
export type OrderState = (typeof ORDER_STATES)[number];

const HAPPY_PATH: OrderState[] = ["waiting", "confirming", "exchanging", "sending", "finished"];

export const isFinal = (s: OrderState) => s === "finished" || s === "failed";

/** The state at which an order's deposit is priced (lib/orders/advance-order.ts: the rate of that moment, the profit repriced). */
export const PRICED_AT: OrderState = "exchanging";

/** The states before it: an order's profit is still the one its opening posted pending (the ledger check holds it to that). */
export const UNPRICED_STATES: readonly OrderState[] = HAPPY_PATH.slice(0, HAPPY_PATH.indexOf(PRICED_AT));

/** The states an order can still leave: waiting to sending. */
export const OPEN_STATES: OrderState[] = ORDER_STATES.filter((s) => !isFinal(s));

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

/** A state read back from the database (a text column), checked against the list. */
export function orderStateOf(value: string): OrderState {
  if (!(ORDER_STATES as readonly string[]).includes(value)) throw new Error(`unknown order state ${value}`);
  return value as OrderState;
}

/**
 * Why an order failed: the stable strings answered as `failureReason` by the API, its OpenAPI
 * document and the dashboard. `refunded`: an upstream provider sent the deposit back (the
 * refund's hash is on the order); `provider_failed`: the provider reported the exchange failed;
 * `deposit_late` / `deposit_amount_mismatch`: a fixed-rate order's deposit came after its
 * fixed window / was not the quoted amount (docs/api.md, Extensions to v1: Fixed rate).
 */
export const FAILURE_REASONS = [
  "expired",
  "deposit_below_minimum",
  "deposit_above_maximum",
  "engine_error",
  "refunded",
  "provider_failed",
  "deposit_late",
  "deposit_amount_mismatch",
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** A failure reason read back from the database, checked against the list. */
export function failureReasonOf(value: string | null): FailureReason | null {
  if (value === null) return null;
  if (!(FAILURE_REASONS as readonly string[]).includes(value)) throw new Error(`unknown failure reason ${value}`);
  return value as FailureReason;
}

/**
 * Why an open order is not moving on its own, answered as `stateReason` (an addition to the
 * spec): an upstream provider holds it, needs the user to act, is sending a refund (a refund in
 * progress stays open until it is sent), or said something we do not know.
 */
export const STATE_REASONS = ["hold", "needs_action", "refunding", "unknown"] as const;
export type StateReason = (typeof STATE_REASONS)[number];

/** A state reason read back from the database, checked against the list. */
export function stateReasonOf(value: string | null): StateReason | null {
  if (value === null) return null;
  if (!(STATE_REASONS as readonly string[]).includes(value)) throw new Error(`unknown state reason ${value}`);
  return value as StateReason;
}

/** How an order is priced: floating (the default) at the rate of the moment its deposit is exchanged, fixed at a locked toAmount. */
export const RATE_TYPES = ["floating", "fixed"] as const;
export type RateType = (typeof RATE_TYPES)[number];

/** A rate type read back from the database, checked against the list. */
export function rateTypeOf(value: string): RateType {
  if (!(RATE_TYPES as readonly string[]).includes(value)) throw new Error(`unknown rate type ${value}`);
  return value as RateType;
}
