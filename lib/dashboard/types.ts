// Plain shapes the dashboard's reads (GET /dashboard/api/<read>), writes (server actions) and its
// pages' first render return. Plain data only
// (dates as ISO strings, money as decimal strings) so the same object can be rendered on the
// server, sent to the browser, and cached by react-query. Imported by client code: no
// server-only imports here.

import type { ChannelStats, WidgetView } from "@/lib/channels/types";
import type { CurrencyInfo } from "@/lib/currencies/types";
import type { FailureReason, OrderState } from "@/lib/domain/order-states";
import type { PayoutsView } from "@/lib/payouts/types";
import type { RequestLogPage, StatusClassName } from "@/lib/request-log/types";
import type { BrandSettings } from "@/lib/resellers/brand-types";
import type { TeamRole } from "@/lib/teams/roles";
import type { DeliveryPage, EndpointView } from "@/lib/webhooks/types";
import type { WithdrawalRow } from "@/lib/withdrawals/types";

// Shapes of the layers below, shown by the dashboard as they are.
export type { ChannelStat, ChannelStats, WidgetView } from "@/lib/channels/types";
export type { CurrencyInfo } from "@/lib/currencies/types";
export type { PayoutInstructionRow, PayoutsView } from "@/lib/payouts/types";
export type { RequestLogPage, StatusClassName } from "@/lib/request-log/types";
export { STATUS_CLASSES } from "@/lib/request-log/types";
export type { DeliveryPage, DeliveryView, EndpointView } from "@/lib/webhooks/types";
export type { WithdrawalQuote, WithdrawalRow } from "@/lib/withdrawals/types";

export const PERIODS = [7, 30, 90] as const;
export type PeriodDays = (typeof PERIODS)[number];

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
  /** The same in USD at live prices (decimal strings; the series' currencies say which). */
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
  /** Sums of the balances that have a live price; `unpriced` lists those left out (no price now). */
  totals: { pendingUsd: string; availableUsd: string };
  unpriced: string[];
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
  /** All of it in USD at live prices. */
  totalUsd: string;
}

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The key's own markup; null: the reseller's. */
  markupBps: number | null;
}

/** A page of keys (lib/keys: listApiKeys): `older` is the cursor of the next page, null on the last. */
export interface KeyPage {
  items: ApiKeyRow[];
  older: string | null;
  /** The active keys' list: how many active keys there are (null for the revoked keys' list). */
  active: number | null;
}

/** One choice of the Orders page's channel filter. */
export interface ChannelOption {
  /** key:<id>, widget:<id> or page. */
  value: string;
  label: string;
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
  /** The channel the order came through (lib/channels): key:<id>, widget:<id>, page; null for none. */
  channel: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface OrderList {
  items: OrderRow[];
  pageSize: number;
  /** Exact unless totalCapped: then there are more than this many (lib/orders' LIST_COUNT_CAP); the pages go on past it. */
  total: number;
  totalCapped: boolean;
  /** The cursor of the page before this one (newer orders; the URL's `before`), or null on the first page. */
  newer: string | null;
  /** The cursor of the page after this one (older orders; the URL's `after`), or null on the last page. */
  older: string | null;
  /** The id search was shorter than ID_PREFIX_MIN (lib/domain/order-ids.ts): nothing was searched. */
  searchTooShort: boolean;
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
  /** The widget the order came through (its channel), when it did. */
  viaWidget: { id: string; name: string } | null;
  /** Where the order's profit stands in the ledger. */
  profitState: "pending" | "available" | "reversed";
  /** Profit credited when the order finished (recomputed on the amount received); null before. */
  realisedProfit: string | null;
  /** The destination currency's live USD price, its time (ISO) and source; null without one. */
  toPriceUsd: string | null;
  toPriceDate: string | null;
  toPriceSource: string | null;
  events: OrderEventRow[];
}

export interface MarkupSample {
  from: string;
  to: string;
  fromAmount: string;
  /** Output before markup (after the platform fee), at the destination precision. */
  rawToAmount: string;
  toPrecision: number;
  /** The destination currency's live USD price, its time (ISO) and source; null without one. */
  toPriceUsd: string | null;
  toPriceDate: string | null;
  toPriceSource: string | null;
}

export interface SettingsView {
  markupBps: number;
  /** The highest markup orders can be routed at now (MARKUP_CAP_BPS, or lower when the providers' caps say so). */
  capBps: number;
  /** What sets capBps. */
  capLimitedBy: "MARKUP_CAP_BPS" | "providers";
  /** ENGINE=providers: the highest markup each enabled provider takes (negative: none). */
  providerCaps: { label: string; maxMarkupBps: number }[];
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
  /** A form's refused fields, each with a stable reason, when the write says which (the Brand form). */
  issues?: { field: string; reason: string; message: string }[];
}

export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: ActionError };

// Withdrawals (lib/withdrawals): the rows are its own (lib/withdrawals/types.ts); the page's view is the dashboard's.

export interface PayoutAssetInfo {
  ticker: string;
  symbol: string;
  /** Live USD price, its time (ISO) and source; null without one. */
  priceUsd: string | null;
  priceDate: string | null;
  priceSource: string | null;
  /** ERC-20 contract; null for the chain's native asset. */
  token: string | null;
}

/** The payout chain as the page hands it to the wallet (wallet_switchEthereumChain, wallet_addEthereumChain). */
export interface PayoutChainInfo {
  id: number;
  name: string;
  /** Symbol of the chain's native asset (ETH on every EVM chain payouts support). */
  nativeSymbol: string;
  /** Public JSON-RPC URL offered to a wallet that does not know the chain; null: the page asks the user to add it. */
  walletRpcUrl: string | null;
  explorerUrl: string | null;
  /** Smallest withdrawal on this chain, USD. */
  minUsd: string;
  /** The assets withdrawals are paid in on this chain. */
  assets: PayoutAssetInfo[];
}

export interface WithdrawalsView {
  /** The only destination: the connected wallet, checksummed. */
  wallet: string;
  chainId: number;
  /** The first payout chain (the default). */
  chain: PayoutChainInfo;
  /** Every payout chain, the default first: the reseller picks one. */
  chains: PayoutChainInfo[];
  sender: "simulated" | "evm";
  minUsd: string;
  assets: PayoutAssetInfo[];
  /** The balances' and assets' currencies with the live prices their USD values use. */
  currencies: CurrencyInfo[];
  balances: BalanceRow[];
  withdrawals: WithdrawalRow[];
}

/** One month (UTC) of a reseller's statement in one currency (lib/dashboard/statements.ts). */
export interface StatementMonth {
  /** "YYYY-MM", UTC. */
  month: string;
  currency: string;
  opening: string;
  credited: string;
  reversed: string;
  withdrawn: string;
  closing: string;
}

export interface Statements {
  /** When the statements were read (the current month runs up to this time). */
  asOf: string;
  /** Per currency (by ticker), every month from its first entry to the current one, oldest first. */
  months: StatementMonth[];
}

/**
 * The dashboard's reads: `GET /dashboard/api/<name>?<query>` answers `result` as JSON, for the
 * session's reseller only. lib/dashboard/reads.ts serves each one (its query-string schema
 * must parse to `query`, its read must give `result`: the compiler holds both to this map);
 * app/dashboard/read.ts fetches them for react-query. Query values in the URL: a number as
 * its digits, `true` as "1" (false and undefined are left out).
 */
export interface DashboardReads {
  overview: { query: { days: number }; result: Overview };
  earnings: { query: { days: number }; result: EarningsSeries };
  channels: { query: { days: number }; result: ChannelStats };
  widgets: { query: NoQuery; result: WidgetView[] };
  /** The reseller's brand (the Widgets page's Brand form; lib/resellers/brand.ts). */
  brand: { query: NoQuery; result: BrandSettings };
  /** The Orders page's list: its filters and the page's cursor (lib/dashboard/orders.ts, parseOrderQuery). */
  orders: {
    query: { status?: string; q?: string; channel?: string; after?: string; before?: string; oldest?: boolean };
    result: OrderList;
  };
  /** One order; another reseller's is NOT_FOUND, like one that does not exist. */
  order: { query: { id: string }; result: OrderDetail };
  /** The active keys, or a page of the revoked ones (`older`: the cursor the previous page answered). */
  keys: { query: { revoked?: boolean; older?: string }; result: KeyPage };
  "webhook-endpoints": { query: NoQuery; result: EndpointView[] };
  /** A page of an endpoint's delivery log (`older`: the cursor the previous page answered; none for the newest). */
  "webhook-deliveries": { query: { endpoint: string; older?: string }; result: DeliveryPage };
  settings: { query: NoQuery; result: SettingsView };
  withdrawals: { query: NoQuery; result: WithdrawalsView };
  /** Automatic payouts (lib/payouts): the standing instruction, a pending change, the latest automatic payouts. */
  payouts: { query: NoQuery; result: PayoutsView };
  statements: { query: NoQuery; result: Statements };
  /**
   * The request log (lib/request-log): keyed v1 requests, newest first; filters by status class,
   * route template, key and time range (ISO: from inclusive, to exclusive); `older`: the cursor
   * the previous page answered.
   */
  requests: {
    query: { status?: StatusClassName; route?: string; key?: string; from?: string; to?: string; older?: string };
    result: RequestLogPage;
  };
  /** The team (issue 54, owners only): members, open invitations, the record of changes (newest first). */
  team: { query: NoQuery; result: TeamView };
}

export interface TeamView {
  members: { id: string; wallet: string; role: TeamRole; since: string }[];
  invites: { id: string; role: TeamRole; createdBy: string; createdAt: string; expiresAt: string }[];
  events: { id: number; at: string; actor: string; action: string; target: string | null; before: unknown; after: unknown }[];
}

/** A read without parameters. */
export type NoQuery = Record<string, never>;

export type DashboardReadName = keyof DashboardReads;
