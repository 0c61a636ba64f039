import type { z } from "zod";
import type { OrderState } from "@/lib/domain/order-states";
import type { Dec } from "@/lib/money/decimal";

// What every provider adapter offers the providers engine: plain values in our units
// (decimals, registry-independent asset ids from the mapping file), and one error type whose
// kind says what the engine should do about it. And what a provider is to the rest of the
// code: a definition (its settings, commission cap, adapter, status map and mapping data),
// listed once in registry.ts.

/** A provider's id of an asset, as its mapping file writes it (e.g. {ticker, network} for ChangeNOW). */
export type ProviderAsset = Readonly<Record<string, string>>;

/** How the operator earns on a provider (docs/providers.md section 1). */
export type CommissionModel =
  /** A commission rate is sent with each quote and exchange (SideShift commissionRate, FixedFloat afftax). */
  | { kind: "per-request"; maxBps: number }
  /** The partner share is set on the account behind the key; the operator states it. */
  | { kind: "per-account"; accountBps: number };

export interface QuoteInput {
  from: ProviderAsset;
  to: ProviderAsset;
  fromAmount: Dec;
  /** Platform fee plus markup, for per-request providers (ignored by per-account ones). */
  commissionBps: number;
  userIp?: string;
  /** A firm quote (a rate id the exchange is then created from) rather than an estimate. */
  firm: boolean;
}

export interface ProviderQuote {
  /** What the provider pays out for `fromAmount`, in its own precision. */
  toAmount: Dec;
  minAmount: Dec | null;
  maxAmount: Dec | null;
  /** Firm quotes: the provider's handle (rateId, quoteId) and deadline. */
  quoteId?: string | null;
  expiresAt?: Date | null;
}

export interface CreateInput {
  orderId: string;
  from: ProviderAsset;
  to: ProviderAsset;
  fromAmount: Dec;
  commissionBps: number;
  /** The firm quote the exchange is made from. */
  quote: ProviderQuote;
  payoutAddress: string;
  payoutExtraId: string | null;
  refundAddress: string | null;
  refundExtraId: string | null;
  userIp?: string;
}

export interface CreatedSwap {
  id: string;
  /** JSON the adapter needs to read the swap again, or null. */
  data: string | null;
  payinAddress: string;
  payinExtraId: string | null;
  /** What the provider says it will pay, when its answer says (else the quote's). */
  toAmount: Dec | null;
  expiresAt: Date | null;
}

/** Why an open order is not moving on its own, or how a failed one ended. */
export type StatusReason = "hold" | "needs_action" | "refunding" | "unknown" | "refunded" | "expired" | "provider_failed";

export interface MappedStatus {
  state: OrderState;
  reason: StatusReason | null;
  final: boolean;
}

export interface SwapReading {
  /** The provider's raw status string. */
  status: string;
  mapped: MappedStatus;
  payinHash: string | null;
  payoutHash: string | null;
  refundHash: string | null;
  amountReceived: Dec | null;
  refundAmount: Dec | null;
  /** The provider wants a choice made (FixedFloat's emergency): the adapter may act on it. */
  needsChoice?: boolean;
}

export interface UpstreamCurrency {
  asset: ProviderAsset;
  /** Usable for deposits and payouts right now. */
  available: boolean;
  hasMemo: boolean;
}

export interface SwapRef {
  id: string;
  data: string | null;
}

export interface ProviderAdapter {
  readonly name: string;
  readonly commission: CommissionModel;
  /** The create carries our order id as the provider's external/client id (SideShift externalId). */
  readonly sendsExternalId?: boolean;
  /** Client-side budget of quotes per minute, kept under the provider's own limit. */
  readonly quotesPerMinute: number;
  /** A stable string for an asset id (availability sets, cache keys). */
  assetKey(asset: ProviderAsset): string;
  listCurrencies(signal?: AbortSignal): Promise<UpstreamCurrency[]>;
  quote(input: QuoteInput, signal?: AbortSignal): Promise<ProviderQuote>;
  createSwap(input: CreateInput, signal?: AbortSignal): Promise<CreatedSwap>;
  readSwap(ref: SwapRef, signal?: AbortSignal): Promise<SwapReading>;
  /** Makes the provider's pending choice (FixedFloat: refund to the order's refund address); false when it cannot. */
  resolveChoice?(ref: SwapRef, signal?: AbortSignal): Promise<boolean>;
  /** Makes the choice an operator gave (FixedFloat's emergency: EXCHANGE, or REFUND to an address). */
  makeChoice?(
    ref: SwapRef,
    choice: { choice: "exchange" | "refund"; address: string | null; extraId: string | null },
    signal?: AbortSignal,
  ): Promise<void>;
  /**
   * Gives an open swap a refund address after its creation (SideShift set-refund-address), for a
   * swap held for review or queued for a refund without one. A provider whose documented API has
   * no such call leaves it out; its definition then has no `refundAddressLater` either.
   */
  setRefundAddress?(ref: SwapRef, to: RefundTarget, opts?: { userIp?: string; signal?: AbortSignal }): Promise<void>;
}

/** A refund address given after creation. */
export interface RefundTarget {
  address: string;
  extraId: string | null;
}

/** A provider's commission cap: the highest fee + markup (bps) it routes, and what sets it. */
export interface CommissionCap {
  capBps: number;
  /** The setting that sets capBps, or a sentence saying it is the provider's own rule. */
  setting: string;
  /** When `setting` is the operator's: what it must state ("share set on your X partner account"). */
  states?: string;
}

/**
 * One provider, as config, the engine, the mapping loader and the docs' test see it. Its
 * settings become part of lib/config.ts's one schema; the functions get the parsed settings.
 */
export interface ProviderDefinition<N extends string = string, S extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: N;
  /** As people write it: "ChangeNOW". */
  readonly label: string;
  /** Its settings: environment variable -> schema (with its default), documented in docs/configuration.md. */
  readonly settings: S;
  /** The setting that routes new orders to it. */
  readonly enabledBy: keyof S & string;
  /** Settings that must be set when it is enabled (ENGINE=providers). */
  readonly credentials: readonly (keyof S & string)[];
  /** Provider status string -> our state; a string not in it reads as unknown (helpers.ts, mapStatus). */
  readonly statuses: Readonly<Record<string, MappedStatus>>;
  /**
   * Its adapter implements setRefundAddress: an open order of it takes a refund address after
   * creation (the order body's requiredAction asks for one; tests/providers/registry.test.ts
   * checks the flag against the adapter).
   */
  readonly refundAddressLater?: boolean;
  /** Its mapping file (mappings/<name>.json), as imported: mapping.ts checks and loads it. */
  readonly mapping: unknown;
  /** A stable string for one of its asset ids (availability sets, cache keys, the fakes' pairs). */
  assetKey(asset: ProviderAsset): string;
  /** Its base URL: instances sharing a Redis share quotes only for the same endpoints. */
  baseUrl(s: z.output<z.ZodObject<S>>): string;
  commissionCap(s: z.output<z.ZodObject<S>>): CommissionCap;
  /** Settings it could never take an order with, besides a cap below the fee (refused at start). */
  traps?(s: z.output<z.ZodObject<S>>): string[];
  /** Its adapter, when its credentials are set (it still reads the orders it holds when not enabled); else null. */
  create(s: z.output<z.ZodObject<S>>, http: { timeoutMs: number }): ProviderAdapter | null;
}

/** A definition, its functions typed by its own settings. */
export const defineProvider = <const N extends string, S extends z.ZodRawShape>(d: ProviderDefinition<N, S>): ProviderDefinition<N, S> => d;
