import type { OrderState } from "@/lib/domain/order-states";
import type { Dec } from "@/lib/money/decimal";

// What every provider adapter offers the providers engine: plain values in our units
// (decimals, registry-independent asset ids from the mapping file), and one error type whose
// kind says what the engine should do about it.

export const PROVIDER_NAMES = ["changenow", "sideshift", "fixedfloat", "exolix", "simpleswap"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

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
  readonly name: ProviderName;
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
}
