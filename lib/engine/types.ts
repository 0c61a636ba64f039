import type { Currency } from "@/lib/currencies/types";
import type { FailureReason, OrderState, RateType, StateReason } from "@/lib/domain/order-states";
import type { Dec } from "@/lib/money/decimal";

// The boundary between the order service and whoever fills orders: the simulated engine today,
// upstream instant-exchange providers later. Everything crossing it is a plain value (registry
// currencies, decimal amounts, our order id and state), never a database row, so an adapter
// neither reads nor writes our tables.

/** Who is calling, for engines that scope behaviour (the sandbox's fault switches) to one caller. */
export interface EngineContext {
  scope: string;
  /** Aborted when the caller stops waiting (the claim on the order is about to run out). */
  signal?: AbortSignal;
  /** The end user's IP, when the call serves an HTTP request (some providers require it). */
  clientIp?: string;
  /** Opening an order: where an upstream engine records each exchange it is about to create (lib/orders/intents.ts). */
  intents?: IntentHooks;
}

/**
 * The record of an upstream create, kept by the order service so that a crash between the
 * provider's create and our commit never leaves an exchange nothing points to. `creating` is
 * durable before the provider is asked; `created` before the engine returns.
 */
export interface IntentHooks {
  /** Records that `provider` is about to be asked to create an exchange for the order; returns the intent's id. */
  creating(i: { orderId: string; provider: string; externalId: string | null }): Promise<string>;
  /** The provider answered with an exchange: what the order opens with. */
  created(intentId: string, swap: OpenedSwap): Promise<void>;
  /** The provider refused (an answer, not an outage): it created nothing. */
  notCreated(intentId: string): Promise<void>;
}

export interface QuoteRequest {
  from: Currency;
  to: Currency;
  /** The amount to exchange, when known (providers quote per amount); null for the pair's terms. */
  fromAmount: Dec | null;
  /** The caller's markup: providers that take a per-request commission quote with it. */
  markupBps?: number;
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
  /** The order's markup, snapshotted at creation. */
  markupBps: number;
  /** fixed: toAmount is locked (a provider must promise at least it); absent: floating. */
  rateType?: RateType;
}

/** Where an upstream provider keeps an order's swap; stored on the order, handed back in SwapSnapshot. */
export interface UpstreamRef {
  provider: string;
  id: string;
  /** JSON the provider needs to read the swap again (e.g. an access token), or null. */
  data: string | null;
}

/** The provider's own view of a swap, kept on the order next to our state. */
export interface UpstreamStatus {
  /** The provider's raw status string. */
  status: string;
  /** Why an open order is not moving on its own; null otherwise. */
  reason: StateReason | null;
}

/** Firm terms that replace the estimate's when the engine priced the order again at opening. */
export interface FirmTerms {
  rate: Dec;
  rawToAmount: Dec;
  toAmount: Dec;
  profit: Dec;
}

export interface OpenedSwap {
  payinAddress: string;
  payinExtraId: string | null;
  /** When to first ask `readSwap` about the swap, in ms from now; null: not before something else moves it. */
  firstCheckAfterMs: number | null;
  /** Upstream engines: where the swap lives, its firm terms and the provider's deadline for the deposit. */
  upstream?: UpstreamRef;
  terms?: FirmTerms;
  expiresAt?: Date;
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
  expiresAt: Date;
  /** Absent: floating. */
  rateType?: RateType;
  /** Fixed rate: a deposit seen after this is refunded. */
  fixedUntil?: Date | null;
  /** When the deposit was seen (the order went to confirming). */
  depositedAt?: Date | null;
  /** Upstream engines: the swap's reference and the provider's last status, null for the simulated engine. */
  upstream: (UpstreamRef & { status: string | null; reason: string | null }) | null;
}

/** What the engine says should happen next to an order; null when nothing changed. */
export type EngineStep =
  | {
      to: Exclude<OrderState, "failed" | "waiting">;
      payinHash?: string;
      payoutHash?: string;
      amountReceived?: string;
      upstream?: UpstreamStatus;
      /** Moving to exchanging: the market rate (after the platform fee) a floating order is exchanged at. */
      rate?: Dec;
    }
  | { to: "failed"; reason: FailureReason; refund: { amount: string; hash: string | null } | null; upstream?: UpstreamStatus }
  /** No move: only the provider's status (or the reason the order waits) changed. */
  | { to: null; upstream: UpstreamStatus };

/**
 * A liquidity engine. `quote` and `openSwap` are asked on the request path, `readSwap` by the
 * worker, which holds a claim on the order so that one call per order is in flight at a time.
 * `openSwap` must be idempotent per `orderId`: the same order asked twice gets the same deposit.
 */
export interface Engine {
  readonly name: string;
  /**
   * True when swaps live at an upstream provider: the user's money is there, so the worker
   * never fails an order because a read failed (it keeps backing off), and a waiting order
   * past its deadline is read once more before it expires.
   */
  readonly upstream?: boolean;
  /** Rate and limits for a pair; throws AppError ENGINE_UNAVAILABLE when the engine cannot quote. */
  quote(req: QuoteRequest, ctx: EngineContext): Promise<PairTerms>;
  /** Opens the upstream swap of one of our orders and says where the user pays. */
  openSwap(req: OpenSwapRequest, ctx: EngineContext): Promise<OpenedSwap>;
  /** Reads where the swap is and says what the order's next state is, if it moved. */
  readSwap(swap: SwapSnapshot, ctx: EngineContext): Promise<EngineStep | null>;
  /** How long to wait before asking `readSwap` about a swap again. */
  nextCheckDelayMs(swap: SwapSnapshot): number;
  /**
   * A refund address given after creation (lib/orders/set-refund-address.ts). An upstream engine
   * passes it to the order's provider (AppError REFUND_ADDRESS_UNSUPPORTED when that provider
   * cannot take one, INVALID_REFUND_ADDRESS when it refuses the address); the simulated engine,
   * for a failed order whose refund awaited an address, sends the refund and answers its hash.
   * Absent: the engine keeps nothing of its own, the order's row is all.
   */
  setRefundAddress?(
    swap: SwapSnapshot,
    to: { address: string; extraId: string | null },
    ctx: EngineContext,
  ): Promise<{ refundHash: string | null }>;
  /**
   * Upstream engines: answers a choice the order's provider waits for (FixedFloat's emergency:
   * exchange at the new rate, or refund to `address`), made by an operator in the console.
   * AppError INVALID_ORDER_STATE when the provider asks none or refuses it, INVALID_REFUND_ADDRESS
   * when it refuses the address, ENGINE_UNAVAILABLE on an outage.
   */
  makeChoice?(swap: SwapSnapshot, choice: ProviderChoice, ctx: EngineContext): Promise<void>;
  /** Upstream engines: which currencies the enabled providers offer now, and the ranges they stated. */
  availability?(): CurrencyAvailability;
  /**
   * At start: resolves once what the engine loads by itself is in (the providers' currency
   * lists), or after `waitMs`, so an instance takes no estimate while it still loads them.
   */
  warmUp?(waitMs: number): Promise<void>;
}

export interface CurrencyAvailability {
  /** Changes whenever anything below may have changed (for caching the currency list). */
  version: number;
  /** Some enabled provider offers the currency now (before a provider's first list: every mapped one). */
  offers(ticker: string): boolean;
  /** The widest deposit range the providers stated for pairs from the currency lately; null: none seen. */
  limits(ticker: string): { min: Dec | null; max: Dec | null } | null;
}

/** An answer to a provider's pending choice (FixedFloat's emergency). */
export interface ProviderChoice {
  choice: "exchange" | "refund";
  /** Where a refund goes (required for "refund"). */
  address: string | null;
  extraId: string | null;
}
