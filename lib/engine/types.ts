import type { Currency } from "@/lib/currencies/types";
import type { Order } from "@/lib/db/client";
import type { Dec } from "@/lib/money/decimal";
import type { FailureReason, OrderState } from "@/lib/orders/state-machine";

/** Who is calling, for engines that scope behaviour (the sandbox's fault switches) to one caller. */
export interface EngineContext {
  scope: string;
}

export interface PairTerms {
  /** Market rate less the platform fee (units of `to` per unit of `from`). */
  rate: Dec;
  platformFeeBps: number;
  minAmount: Dec;
  maxAmount: Dec;
}

export interface Deposit {
  payinAddress: string;
  payinExtraId: string | null;
}

/** What the engine says should happen next to an order; null when nothing is due. */
export type EngineStep =
  | { to: Exclude<OrderState, "failed" | "waiting">; payinHash?: string; payoutHash?: string; amountReceived?: string }
  | { to: "failed"; reason: FailureReason; refund: { amount: string; hash: string | null } | null };

/**
 * A liquidity engine: the simulated one today, upstream instant-exchange partners later.
 * Quotes and deposits are asked for on the request path; `step` is asked by the worker.
 */
export interface Engine {
  readonly name: string;
  /** Rate and limits for a pair; throws AppError ENGINE_UNAVAILABLE when the engine cannot quote. */
  getPairTerms(from: Currency, to: Currency, ctx: EngineContext): Promise<PairTerms>;
  /** Opens the upstream swap and returns where the user pays. */
  createDeposit(order: { id: string; from: Currency; to: Currency; fromAmount: Dec }, ctx: EngineContext): Promise<Deposit>;
  /** How long to wait before asking `step` about an order again. */
  nextCheckDelayMs(): number;
  /** Looks at an order in flight and says what its next state is, if one is due at `now`. */
  step(order: Order, now: Date): Promise<EngineStep | null>;
}
