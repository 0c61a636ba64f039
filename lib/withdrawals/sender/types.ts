import "server-only";
import type { Address, Hex } from "viem";

// The payout sender: the chain as the withdrawal processor (../process.ts) sees it. It only
// signs, broadcasts and reads; deciding what to send, and persisting it before it is
// broadcast, is the processor's job, so every sender gets the same exactly-once guarantee.

export interface PayoutTransfer {
  to: Address;
  /** ERC-20 contract, or null for the native asset. */
  token: Address | null;
  /** Base units. */
  amount: bigint;
  /** The hot wallet's account nonce this transaction uses. */
  nonce: number;
}

export interface SignedPayout {
  raw: Hex;
  hash: Hex;
}

export interface PayoutReceipt {
  status: "success" | "reverted";
  blockNumber: bigint;
}

export interface PayoutSender {
  readonly kind: "simulated" | "evm";
  readonly chainId: number;
  /** The hot wallet. */
  readonly address: Address;
  /** Why the hot wallet cannot pay this now (too poor), or null when it can. */
  shortfall(p: { token: Address | null; amount: bigint }): Promise<string | null>;
  /** Next account nonce counting the node's pending transactions. */
  pendingNonce(): Promise<number>;
  /** Next account nonce counting mined transactions only. */
  minedNonce(): Promise<number>;
  sign(t: PayoutTransfer): Promise<SignedPayout>;
  /** Sends signed bytes; sending bytes the node already has (or mined) is not an error. */
  broadcast(raw: Hex): Promise<void>;
  receipt(hash: Hex): Promise<PayoutReceipt | null>;
  blockNumber(): Promise<bigint>;
}
