// The shapes of automatic payouts as the dashboard shows them. Plain data only (dates as ISO
// strings, money as decimal strings); imported by client code (through lib/dashboard/types.ts):
// no server-only imports here.

export interface PayoutInstructionRow {
  id: string;
  /** active | pending (a change waiting for effectiveAt) | replaced | cancelled | revoked */
  status: string;
  trigger: "threshold" | "weekly" | "monthly";
  thresholdUsd: string | null;
  asset: string;
  chainId: number;
  destination: string;
  maxPerPayoutUsd: string;
  maxPerMonthUsd: string;
  signer: string;
  createdAt: string;
  effectiveAt: string;
  endedAt: string | null;
  revokedAt: string | null;
}

export interface PayoutRunRow {
  id: string;
  instructionId: string;
  period: string;
  usdValue: string;
  createdAt: string;
  /** The withdrawal that pays it (the withdrawals list shows its progress). */
  withdrawalId: string | null;
  withdrawalStatus: string | null;
  amount: string | null;
  asset: string | null;
  txHash: string | null;
}

export interface PayoutsView {
  active: PayoutInstructionRow | null;
  /** A signed change waiting out the delay (PAYOUT_CHANGE_DELAY_HOURS): the notice on the dashboard. */
  pending: PayoutInstructionRow | null;
  /** Paid automatically this calendar month (UTC), in USD, against the active instruction's monthly cap. */
  paidThisMonthUsd: string;
  delayHours: number;
  runs: PayoutRunRow[];
}

/** What the owner asks to sign (the dashboard's form). */
export interface InstructionRequest {
  nonce: string;
  expiresAt: string;
  /** The eth_signTypedData_v4 argument (JSON) the wallet signs. */
  typedData: string;
  /** Whether, signed, it would wait out the delay (another wallet, or a cap raised) and when it would apply. */
  delayed: boolean;
  effectiveAt: string;
}
