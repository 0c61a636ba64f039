import "server-only";
import type { Address, Hex, TypedDataDefinition } from "viem";

// The payout sender: the chain as the withdrawal processor (../process.ts) sees it. It only
// signs, broadcasts and reads; deciding what to send, and persisting it before it is
// broadcast, is the processor's job, so every sender gets the same exactly-once guarantee.

/** What a payout moves: the asset and the amount, to whom. */
export interface PayoutPayment {
  to: Address;
  /** ERC-20 contract, or null for the native asset. */
  token: Address | null;
  /** Base units. */
  amount: bigint;
}

/** EIP-1559 fee caps, in wei per gas. */
export interface FeeCaps {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface PayoutTransfer extends PayoutPayment, FeeCaps {
  /** The hot wallet's account nonce this transaction uses. */
  nonce: number;
  gas: bigint;
}

export interface SignedPayout {
  raw: Hex;
  hash: Hex;
}

export interface PayoutReceipt {
  status: "success" | "reverted";
  blockNumber: bigint;
  blockHash: Hex;
  /** The network fee paid: gas used x effective gas price, in wei. */
  fee: bigint;
}

export interface PayoutSender {
  readonly kind: "simulated" | "evm";
  readonly chainId: number;
  /** The hot wallet. */
  readonly address: Address;
  /** Why the hot wallet cannot pay this now (too poor), or null when it can; `maxFeePerGas` is the fee the payout would be signed with. */
  shortfall(p: PayoutPayment & { gas: bigint; maxFeePerGas: bigint }): Promise<string | null>;
  /** The gas limit to sign this payment with: 21,000 for the native asset, an ERC-20 transfer's estimate with a margin. */
  gasLimit(p: PayoutPayment): Promise<bigint>;
  /** The node's fee estimate for a transaction now. */
  fees(): Promise<FeeCaps>;
  /** The hot wallet's balance of an asset (null: native), in base units. */
  balance(token: Address | null): Promise<bigint>;
  /** Next account nonce counting the node's pending transactions. */
  pendingNonce(): Promise<number>;
  /** Next account nonce counting mined transactions only. */
  minedNonce(): Promise<number>;
  sign(t: PayoutTransfer): Promise<SignedPayout>;
  /**
   * Sends signed bytes; sending bytes the node already has (or mined) is not an error.
   * "underpriced": the node will not hold it now, its max fee being below the base fee (it
   * waits for the fee to fall, or for its replacement).
   */
  broadcast(raw: Hex): Promise<"accepted" | "underpriced">;
  receipt(hash: Hex): Promise<PayoutReceipt | null>;
  /**
   * Whether the contract at `address` (a smart-contract wallet) accepts `signature` of this
   * EIP-712 typed data on this chain (ERC-1271 isValidSignature; false when no contract is
   * there). Absent when the sender has no chain to ask.
   */
  isValidContractSignature?(p: { address: Address; signature: Hex; typedData: TypedDataDefinition }): Promise<boolean>;
  blockNumber(): Promise<bigint>;
  /** The hash of the chain's block at this height, or null when the chain is not that high. */
  blockHashAt(n: bigint): Promise<Hex | null>;
}
