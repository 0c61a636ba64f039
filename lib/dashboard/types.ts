// Plain shapes the dashboard's server actions (and its pages' first render) return. Plain data only
// (dates as ISO strings, money as decimal strings) so the same object can be rendered on the
// server, sent to the browser, and cached by react-query. Imported by client code: no
// server-only imports here.

import type { FailureReason, OrderState } from "@/lib/domain/order-states";

export const PERIODS = [7, 30, 90] as const;
export type PeriodDays = (typeof PERIODS)[number];

export interface CurrencyInfo {
  ticker: string;
  symbol: string;
  name: string;
  precision: number;
  /** Reference USD price as a decimal string; null when the registry has no price. */
  priceUsd: string | null;
  priceDate: string | null;
}

export interface BalanceRow {
  currency: string;
  pending: string;
  available: string;
  /** Held by withdrawals that are under way. */
  reserved: string;
  pendingUsd: string | null;
  availableUsd: string | null;
}

export interface EarningsDay {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  /** Realised profit per currency that day (native units, decimal strings). */
  amounts: Record<string, string>;
  /** The same in USD at reference prices (decimal strings). */
  usd: Record<string, string>;
  totalUsd: string;
}

export interface Period {
  days: number;
  /** First and last UTC day, YYYY-MM-DD. */
  from: string;
  to: string;
}

export interface Overview {
  period: Period;
  /** The currencies of the balances. */
  currencies: CurrencyInfo[];
  balances: BalanceRow[];
  totals: { pendingUsd: string; availableUsd: string };
  /** Orders created in the period, by state. */
  orderCounts: Record<OrderState, number>;
  ordersInPeriod: number;
  markupBps: number;
}

export interface EarningsSeries {
  period: Period;
  /** The currencies earned in the period. */
  currencies: CurrencyInfo[];
  /** Every UTC day of the period, oldest first. */
  days: EarningsDay[];
  /** Profit realised in the period, per currency. */
  earned: { currency: string; amount: string; usd: string | null }[];
  /** All of it in USD at reference prices. */
  totalUsd: string;
}

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface OrderRow {
  id: string;
  status: OrderState;
  fromCurrency: string;
  toCurrency: string;
  fromAmount: string;
  toAmount: string;
  markupBps: number;
  profit: string;
  createdAt: string;
  updatedAt: string;
}

export interface OrderList {
  items: OrderRow[];
  page: number;
  pageSize: number;
  /** Exact unless totalCapped: then there are more than this many (lib/orders' LIST_COUNT_CAP), and the pages stop there. */
  total: number;
  totalCapped: boolean;
  pageCount: number;
}

export interface OrderEventRow {
  status: string;
  note: string | null;
  at: string;
}

export interface OrderDetail extends OrderRow {
  rate: string;
  rawToAmount: string;
  platformFeeBps: number;
  payinAddress: string;
  payinExtraId: string | null;
  payoutAddress: string;
  payoutExtraId: string | null;
  refundAddress: string | null;
  refundExtraId: string | null;
  amountReceived: string | null;
  payinHash: string | null;
  payoutHash: string | null;
  refund: { state: string; hash: string | null; amount: string | null } | null;
  failureReason: FailureReason | null;
  expiresAt: string;
  viaKey: { id: string; name: string; prefix: string } | null;
  /** Where the order's profit stands in the ledger. */
  profitState: "pending" | "available" | "reversed";
  /** Profit credited when the order finished (recomputed on the amount received); null before. */
  realisedProfit: string | null;
  toPriceUsd: string | null;
  events: OrderEventRow[];
}

export interface MarkupSample {
  from: string;
  to: string;
  fromAmount: string;
  /** Output before markup (after the platform fee), at the destination precision. */
  rawToAmount: string;
  toPrecision: number;
  toPriceUsd: string | null;
}

export interface SettingsView {
  markupBps: number;
  capBps: number;
  platformFeeBps: number;
  sample: MarkupSample | null;
}

export interface DocsView {
  baseUrl: string;
  openApiUrl: string;
  sandbox: boolean;
}

export interface ActionError {
  code: string;
  message: string;
}

export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: ActionError };

// Withdrawals (lib/withdrawals).

export type WithdrawalStatus = "queued" | "processing" | "sent" | "confirmed" | "failed";

export interface WithdrawalLegRow {
  currency: string;
  amount: string;
  /** Payout asset per unit of `currency`. */
  rate: string;
}

export interface WithdrawalRow {
  id: string;
  status: WithdrawalStatus;
  asset: string;
  chainId: number;
  destination: string;
  amount: string;
  usdValue: string;
  fee: string;
  feePolicy: string;
  legs: WithdrawalLegRow[];
  /** Why it waits (e.g. the hot wallet is too poor) or why it failed. */
  stateReason: string | null;
  txHash: string | null;
  /** Block explorer link of the payout, when PAYOUT_EXPLORER_URL is set. */
  txUrl: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface PayoutAssetInfo {
  ticker: string;
  symbol: string;
  priceUsd: string | null;
  /** ERC-20 contract; null for the chain's native asset. */
  token: string | null;
}

export interface WithdrawalsView {
  /** The only destination: the connected wallet, checksummed. */
  wallet: string;
  chainId: number;
  sender: "simulated" | "evm";
  minUsd: string;
  assets: PayoutAssetInfo[];
  balances: BalanceRow[];
  withdrawals: WithdrawalRow[];
}

export interface WithdrawalQuote {
  nonce: string;
  expiresAt: string;
  destination: string;
  asset: string;
  chainId: number;
  amount: string;
  usdValue: string;
  fee: string;
  feePolicy: string;
  legs: WithdrawalLegRow[];
  /** The eth_signTypedData_v4 argument (JSON) the wallet signs to confirm. */
  typedData: string;
}

/** A webhook endpoint as the dashboard shows it (never its secret). */
export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: string | null;
  consecutiveFailures: number;
  createdAt: string;
  /** Until when the previous secret still signs too, after a rotation. */
  previousSecretUntil: string | null;
}

/** One delivery of an event to an endpoint, with its attempts. */
export interface DeliveryView {
  id: number;
  messageId: string;
  type: string;
  subject: string | null;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastLatencyMs: number | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  log: { at: string; statusCode: number | null; latencyMs: number; error: string | null }[];
}
