import type { Currency } from "@/lib/currencies/types";
import type { Dec } from "@/lib/money/decimal";
import type { FailureReason, OrderState } from "@/lib/orders/state-machine";

// The boundary between the order service and whoever fills orders: the simulated engine today,
// upstream instant-exchange providers later. Everything crossing it is a plain value (registry
// currencies, decimal amounts, our order id and state), never a database row, so an adapter
// neither reads nor writes our tables.

/** Who is calling, for engines that scope behaviour (the sandbox's fault switches) to one caller. */
export interface EngineContext {
  scope: string;
  /** Aborted when the caller stops waiting (the claim on the order is about to run out). */
  signal?: AbortSignal;
}

export interface QuoteRequest {
  from: Currency;
  to: Currency;
  /** The amount to exchange, when known (providers quote per amount); null for the pair's terms. */
  fromAmount: Dec | null;
}

export interface PairTerms {
  /** Market rate less the platform fee (units of `to` per unit of `from`). */
  rate: Dec;
  platformFeeBps: number;
  minAmount: Dec;
  maxAmount: Dec;
}

/** What an upstream swap is opened with; `orderId` is the idempotency key of the call. */
export interface OpenSwapRequest {
  orderId: string;
  from: Currency;
  to: Currency;
  fromAmount: Dec;
  /** What the user was promised (after fee and markup). */
  toAmount: Dec;
  payoutAddress: string;
  payoutExtraId: string | null;
  refundAddress: string | null;
  refundExtraId: string | null;
}

export interface OpenedSwap {
  payinAddress: string;
  payinExtraId: string | null;
  /** When to first ask `readSwap` about the swap, in ms from now; null: not before something else moves it. */
  firstCheckAfterMs: number | null;
}

/** Our view of an order in flight, as the worker hands it to the engine. */
export interface SwapSnapshot {
  orderId: string;
  state: OrderState;
  fromCurrency: string;
  toCurrency: string;
  fromAmount: string;
  amountReceived: string | null;
  refundAddress: string | null;
  createdAt: Date;
}

/** What the engine says should happen next to an order; null when nothing changed. */
export type EngineStep =
  | { to: Exclude<OrderState, "failed" | "waiting">; payinHash?: string; payoutHash?: string; amountReceived?: string }
  | { to: "failed"; reason: FailureReason; refund: { amount: string; hash: string | null } | null };

/**
 * A liquidity engine. `quote` and `openSwap` are asked on the request path, `readSwap` by the
 * worker, which holds a claim on the order so that one call per order is in flight at a time.
 * `openSwap` must be idempotent per `orderId`: the same order asked twice gets the same deposit.
 */
export interface Engine {
  readonly name: string;
  /** Rate and limits for a pair; throws AppError ENGINE_UNAVAILABLE when the engine cannot quote. */
  quote(req: QuoteRequest, ctx: EngineContext): Promise<PairTerms>;
  /** Opens the upstream swap of one of our orders and says where the user pays. */
  openSwap(req: OpenSwapRequest, ctx: EngineContext): Promise<OpenedSwap>;
  /** Reads where the swap is and says what the order's next state is, if it moved. */
  readSwap(swap: SwapSnapshot, ctx: EngineContext): Promise<EngineStep | null>;
  /** How long to wait before asking `readSwap` about a swap again. */
  nextCheckDelayMs(swap: SwapSnapshot): number;
}
