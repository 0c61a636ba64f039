import "server-only";
import { type Address, getAddress } from "viem";
import { typedDataToJson, WITHDRAWAL_DOMAIN_NAME } from "@/lib/withdrawals/typed-data";

// The EIP-712 typed data the owner's wallet signs once for a standing payout instruction: what
// triggers a payout (a USD threshold of the available balances, or a weekly or monthly
// schedule), the payout asset and chain, the destination (the signer's own wallet), the caps
// per payout and per calendar month in USD, and a single-use nonce. The server keeps the terms
// (WithdrawalConfirmation.payload, kind "payout_instruction") and verifies the signature against
// them, as it does a withdrawal's.

export const PAYOUT_TRIGGERS = ["threshold", "weekly", "monthly"] as const;
export type PayoutTrigger = (typeof PAYOUT_TRIGGERS)[number];

export interface InstructionTerms {
  kind: "payout_instruction";
  trigger: PayoutTrigger;
  /** USD, decimal text; "" for a schedule. */
  thresholdUsd: string;
  asset: string;
  /** The ERC-20 contract, or the zero address for the native asset. */
  token: Address;
  chainId: number;
  destination: Address;
  maxPerPayoutUsd: string;
  maxPerMonthUsd: string;
  /** The wallet that alone may sign it (the owner's). */
  signer: Address;
  nonce: string;
  /** Unix seconds after which it can no longer be signed. */
  expiresAt: number;
}

export const INSTRUCTION_TYPES = {
  PayoutInstruction: [
    { name: "trigger", type: "string" },
    { name: "thresholdUsd", type: "string" },
    { name: "asset", type: "string" },
    { name: "token", type: "address" },
    { name: "chainId", type: "uint256" },
    { name: "destination", type: "address" },
    { name: "maxPerPayoutUsd", type: "string" },
    { name: "maxPerMonthUsd", type: "string" },
    { name: "nonce", type: "string" },
    { name: "expiresAt", type: "uint256" },
  ],
} as const;

/** The typed data of these terms, in the withdrawals' domain on the payout chain (another primary type). */
export function instructionTypedData(t: InstructionTerms) {
  return {
    domain: { name: WITHDRAWAL_DOMAIN_NAME, version: "1", chainId: t.chainId },
    types: INSTRUCTION_TYPES,
    primaryType: "PayoutInstruction" as const,
    message: {
      trigger: t.trigger,
      thresholdUsd: t.thresholdUsd,
      asset: t.asset,
      token: getAddress(t.token),
      chainId: BigInt(t.chainId),
      destination: getAddress(t.destination),
      maxPerPayoutUsd: t.maxPerPayoutUsd,
      maxPerMonthUsd: t.maxPerMonthUsd,
      nonce: t.nonce,
      expiresAt: BigInt(t.expiresAt),
    },
  };
}

/** The eth_signTypedData_v4 argument as JSON, what the browser hands to the wallet. */
export const instructionTypedDataJson = (t: InstructionTerms): string => typedDataToJson(instructionTypedData(t));

/** Whether a WithdrawalConfirmation's payload is a payout instruction's. */
export function isInstructionPayload(payload: string): boolean {
  try {
    return (JSON.parse(payload) as { kind?: unknown }).kind === "payout_instruction";
  } catch {
    return false;
  }
}
