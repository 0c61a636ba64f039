import "server-only";
import { type Address, getAddress, type Hex, type TypedDataDefinition, verifyTypedData } from "viem";

// The EIP-712 typed data a wallet signs to confirm a withdrawal (eth_signTypedData_v4): the
// amounts, the asset, the destination, the chain and a single-use nonce. The server keeps the
// terms (WithdrawalConfirmation.payload) and verifies the signature against them, so a
// signature of anything else (altered terms, another nonce, another wallet) is refused.

export interface WithdrawalTerms {
  nonce: string;
  destination: Address;
  asset: string;
  /** The ERC-20 contract, or the zero address for the native asset. */
  token: Address;
  decimals: number;
  chainId: number;
  /** What the wallet receives, decimal text, and the same in base units. */
  amount: string;
  amountBaseUnits: string;
  usdValue: string;
  /** The payout asset's USD price, its source and time (absent in quotes made before live prices). */
  assetPriceUsd: string;
  assetPriceSource?: string;
  assetPricedAt?: string;
  fee: string;
  feePolicy: string;
  /** Unix seconds after which the confirmation is refused. */
  expiresAt: number;
  /** Per balance: the rate, and where and when its price came from (null time: same asset, no price). */
  legs: { currency: string; amount: string; rate: string; priceUsd: string; priceSource?: string; pricedAt?: string | null }[];
}

export const WITHDRAWAL_DOMAIN_NAME = "Reseller Exchange withdrawal";

export const WITHDRAWAL_TYPES = {
  Withdrawal: [
    { name: "destination", type: "address" },
    { name: "asset", type: "string" },
    { name: "token", type: "address" },
    { name: "amount", type: "string" },
    { name: "amountBaseUnits", type: "uint256" },
    { name: "fee", type: "string" },
    { name: "balances", type: "Balance[]" },
    { name: "nonce", type: "string" },
    { name: "expiresAt", type: "uint256" },
  ],
  Balance: [
    { name: "currency", type: "string" },
    { name: "amount", type: "string" },
    { name: "rate", type: "string" },
  ],
} as const;

function typedData(t: WithdrawalTerms) {
  return {
    domain: { name: WITHDRAWAL_DOMAIN_NAME, version: "1", chainId: t.chainId },
    types: WITHDRAWAL_TYPES,
    primaryType: "Withdrawal" as const,
    message: {
      destination: getAddress(t.destination),
      asset: t.asset,
      token: getAddress(t.token),
      amount: t.amount,
      amountBaseUnits: BigInt(t.amountBaseUnits),
      fee: t.fee,
      balances: t.legs.map((l) => ({ currency: l.currency, amount: l.amount, rate: l.rate })),
      nonce: t.nonce,
      expiresAt: BigInt(t.expiresAt),
    },
  };
}

/**
 * The eth_signTypedData_v4 argument as JSON (EIP712Domain included, uint256 as decimal
 * strings), what the browser hands to the wallet: of any typed data in the withdrawals' domain
 * (a reseller's confirmation, an operator's approval, approval.ts).
 */
export function typedDataToJson(d: { domain: unknown; types: Record<string, unknown>; primaryType: string; message: unknown }): string {
  return JSON.stringify(
    {
      ...d,
      types: {
        EIP712Domain: [
          { name: "name", type: "string" },
          { name: "version", type: "string" },
          { name: "chainId", type: "uint256" },
        ],
        ...d.types,
      },
    },
    (_k, v) => (typeof v === "bigint" ? v.toString() : v),
  );
}

/** A reseller's confirmation of these terms, as JSON for the wallet. */
export const typedDataJson = (t: WithdrawalTerms): string => typedDataToJson(typedData(t));

/** Asks the payout chain whether a contract wallet accepts a signature of this typed data (ERC-1271 isValidSignature). */
export type ContractSignatureCheck = (p: { address: Address; signature: Hex; typedData: TypedDataDefinition }) => Promise<boolean>;

/**
 * True when `signature` is `signer`'s EIP-712 signature of exactly these terms: the ECDSA
 * signature of the address's own key, or, for a smart-contract wallet (a Safe, any ERC-1271
 * account), one its contract accepts, asked on the payout chain through `onChain` (the
 * terms name that chain, so a confirmation signed for one chain is refused on another).
 */
export function verifyWithdrawalSignature(
  t: WithdrawalTerms,
  signer: Address,
  signature: string,
  onChain?: ContractSignatureCheck,
): Promise<boolean> {
  return verifyTypedDataSignature(typedData(t), signer, signature, onChain);
}

/** The same check for any typed data (a standing payout instruction's, lib/payouts). */
export async function verifyTypedDataSignature(
  data: TypedDataDefinition,
  signer: Address,
  signature: string,
  onChain?: ContractSignatureCheck,
): Promise<boolean> {
  if (!/^0x([0-9a-fA-F]{2})+$/.test(signature) || signature.length > 2 + 2 * 4096) return false;
  if (signature.length === 132)
    try {
      if (await verifyTypedData({ address: signer, signature: signature as Hex, ...data })) return true;
    } catch {
      // not an ECDSA signature of this signer: maybe a contract wallet's
    }
  if (!onChain) return false;
  return onChain({ address: signer, signature: signature as Hex, typedData: data });
}
