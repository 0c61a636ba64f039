import "server-only";
import type { Hex } from "viem";
import { type Config, getConfig, parsePayoutChains } from "@/lib/config";
import { AppError } from "@/lib/errors";

// The chains withdrawals are paid on. The first is the one the PAYOUT_* settings describe
// (the one-chain case needs nothing else); PAYOUT_CHAINS adds more, each with its own node,
// key, tokens, confirmations, explorer, minimum and fee ceiling, whatever it does not give
// taken from the first's settings (the key, the minimum, the confirmations, the ceiling).

export interface PayoutChain {
  chainId: number;
  name: string;
  rpcUrl: string | null;
  privateKey: Hex | null;
  /** ERC-20 payout assets on this chain: "ticker=0xcontract,...". */
  tokens: string;
  confirmations: number;
  explorerUrl: string | null;
  walletRpcUrl: string | null;
  minUsd: string;
  maxFeeGwei: string;
  /** Low-balance thresholds of the hot wallet on this chain: "ticker=amount,...". */
  lowBalance: string;
}

/** The chains of each app's settings. */
const parsed = new WeakMap<Config, PayoutChain[]>();

/** Every payout chain, the PAYOUT_* one first. */
export function payoutChains(): PayoutChain[] {
  const cfg = getConfig();
  const known = parsed.get(cfg);
  if (known) return known;
  const first: PayoutChain = {
    chainId: cfg.PAYOUT_CHAIN_ID,
    name: cfg.PAYOUT_CHAIN_NAME || `Chain ${cfg.PAYOUT_CHAIN_ID}`,
    rpcUrl: cfg.PAYOUT_RPC_URL || null,
    privateKey: (cfg.PAYOUT_PRIVATE_KEY as Hex | undefined) || null,
    tokens: cfg.PAYOUT_TOKENS,
    confirmations: cfg.PAYOUT_CONFIRMATIONS,
    explorerUrl: cfg.PAYOUT_EXPLORER_URL || null,
    walletRpcUrl: cfg.PAYOUT_WALLET_RPC_URL || null,
    minUsd: cfg.WITHDRAWAL_MIN_USD,
    maxFeeGwei: cfg.PAYOUT_MAX_FEE_GWEI,
    lowBalance: cfg.PAYOUT_LOW_BALANCE,
  };
  const more = parsePayoutChains(cfg.PAYOUT_CHAINS).map(
    (m): PayoutChain => ({
      chainId: m.chainId,
      name: m.name ?? `Chain ${m.chainId}`,
      rpcUrl: m.rpcUrl ?? null,
      privateKey: (m.privateKey as Hex | undefined) ?? first.privateKey,
      tokens: m.tokens ?? "",
      confirmations: m.confirmations ?? first.confirmations,
      explorerUrl: m.explorerUrl ?? null,
      walletRpcUrl: m.walletRpcUrl ?? null,
      minUsd: m.minUsd ?? first.minUsd,
      maxFeeGwei: m.maxFeeGwei ?? first.maxFeeGwei,
      lowBalance: m.lowBalance ?? "",
    }),
  );
  const chains = [first, ...more];
  parsed.set(cfg, chains);
  return chains;
}

/** The payout chain `chainId` (default: the first), or PAYOUT_ASSET_UNAVAILABLE when withdrawals are not paid there. */
export function payoutChain(chainId?: number): PayoutChain {
  const all = payoutChains();
  if (chainId === undefined) return all[0];
  const c = all.find((x) => x.chainId === chainId);
  if (!c) throw new AppError("PAYOUT_ASSET_UNAVAILABLE", `Withdrawals are not paid on chain ${chainId}.`);
  return c;
}

/** The payout chain `chainId`, or null when it is no longer configured (an old withdrawal's). */
export const findPayoutChain = (chainId: number): PayoutChain | null => payoutChains().find((x) => x.chainId === chainId) ?? null;
