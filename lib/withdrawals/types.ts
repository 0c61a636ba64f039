// The withdrawal's statuses and its shapes as the dashboard, the webhooks and the CLI show it.
// Plain data only (dates as ISO strings, money as decimal strings); imported by client code
// (through lib/dashboard/types.ts): no server-only imports here.

/**
 *   awaiting_approval  worth more than WITHDRAWAL_APPROVAL_USD: reserved, never paid, until a
 *               finance operator approves it with a signature (then queued) or rejects it (failed)
 *   queued      waiting for the hot wallet to be able to pay
 *   processing  its payout transaction is being signed and persisted
 *   sent        broadcast; waiting for the receipt and PAYOUT_CONFIRMATIONS blocks
 *   confirmed   paid (final)
 *   failed      the transaction reverted, or an operator rejected it; the balances were restored (final)
 */
export const WITHDRAWAL_STATUSES = ["awaiting_approval", "queued", "processing", "sent", "confirmed", "failed"] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

/** A status read back from the database (a text column), checked against the list. */
export function withdrawalStatusOf(value: string): WithdrawalStatus {
  if (!(WITHDRAWAL_STATUSES as readonly string[]).includes(value)) throw new Error(`unknown withdrawal status ${value}`);
  return value as WithdrawalStatus;
}

export interface WithdrawalLegRow {
  currency: string;
  amount: string;
  /** Payout asset per unit of `currency`. */
  rate: string;
  /** Where the rate came from ("same asset": one to one) and when (ISO; null: no price was needed or it was not recorded). */
  priceSource: string | null;
  pricedAt: string | null;
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
  /**
   * The network fee its payout transaction paid (gas used x effective gas price, from the
   * receipt), in base units (wei) of the chain's native asset; null until it is mined. Paid by
   * the operator, not deducted from `amount`.
   */
  networkFee: string | null;
  /** Times its confirmed payout's block left the chain (a reorganisation) and it was sent again; paid once all the same. */
  reorgs: number;
  legs: WithdrawalLegRow[];
  /** Why it waits (e.g. the hot wallet is too poor) or why it failed. */
  stateReason: string | null;
  txHash: string | null;
  /** Block explorer link of the payout, when PAYOUT_EXPLORER_URL is set. */
  txUrl: string | null;
  createdAt: string;
  finishedAt: string | null;
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
  /** The payout asset's USD price (which values `usdValue`), its source and time. */
  assetPriceUsd: string;
  assetPriceSource: string;
  assetPricedAt: string;
  /** The eth_signTypedData_v4 argument (JSON) the wallet signs to confirm. */
  typedData: string;
}
