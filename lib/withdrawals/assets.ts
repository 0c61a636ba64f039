import "server-only";
import { type Address, getAddress, zeroAddress } from "viem";
import { getCurrency } from "@/lib/currencies";
import { AppError } from "@/lib/errors";
import { payoutChain } from "./chains";

// The assets a withdrawal can be paid in on a chain: the chain's native ETH always, and the
// ERC-20s the operator enabled there (PAYOUT_TOKENS, or the chain's tokens in PAYOUT_CHAINS:
// ticker=contract). Decimals and precision come from the currency registry; prices are live
// (lib/prices), asked when a withdrawal is quoted.

export interface PayoutAsset {
  ticker: string;
  symbol: string;
  /** On-chain decimals (base units per unit = 10^decimals). */
  decimals: number;
  /** Decimal places a withdrawal amount keeps. */
  precision: number;
  /** The ERC-20 contract; null for the native asset. */
  token: Address | null;
}

export const NATIVE_ASSET = "eth";

function parseTokens(spec: string): Map<string, Address> {
  const out = new Map<string, Address>();
  for (const part of spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [ticker, address] = part.split("=");
    out.set(ticker.trim(), getAddress(address.trim()));
  }
  return out;
}

/** Every enabled payout asset of a chain (default: the first payout chain), native first. */
export function payoutAssets(chainId?: number): PayoutAsset[] {
  const tokens = parseTokens(payoutChain(chainId).tokens);
  const out: PayoutAsset[] = [];
  for (const [ticker, token] of [[NATIVE_ASSET, null] as const, ...tokens]) {
    const c = getCurrency(ticker);
    if (!c) continue; // a ticker the registry does not know cannot be priced
    out.push({ ticker, symbol: c.symbol, decimals: c.decimals, precision: c.precision, token });
  }
  return out;
}

/** The enabled payout asset `ticker` of a chain, or PAYOUT_ASSET_UNAVAILABLE. */
export function payoutAsset(ticker: string, chainId?: number): PayoutAsset {
  const a = payoutAssets(chainId).find((x) => x.ticker === ticker);
  if (!a) throw new AppError("PAYOUT_ASSET_UNAVAILABLE", `Withdrawals cannot be paid in ${ticker}.`);
  return a;
}

export const tokenOrZero = (a: { token: Address | null }): Address => a.token ?? zeroAddress;
