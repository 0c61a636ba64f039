import "server-only";
import { formatUnits, parseUnits } from "viem";
import { getLogger } from "@/lib/log";
import { recordHotWalletBalance } from "@/lib/observability/metrics";
import { slot } from "@/lib/scope";
import { payoutAssets } from "./assets";
import { payoutChain } from "./chains";
import type { PayoutSender } from "./sender/types";

// The hot wallet's health: its balance of each payout asset against the operator's
// low-balance threshold (PAYOUT_LOW_BALANCE). The withdrawal worker reads it about every
// minute: gauges on /metrics, and one warning in the log when a balance falls below its
// threshold (one info line when it is back), not one per reading. `withdrawals:list` shows it.

export interface HotWalletAssetHealth {
  chainId: number;
  address: string;
  asset: string;
  /** Units of the asset, decimal text. */
  balance: string;
  threshold: string | null;
  low: boolean;
}

const CHECK_EVERY_MS = 60_000;
/** Per app: when each hot wallet was last read, and whether each chain:asset was low at that reading. */
const readings = slot(() => ({ lastCheck: new Map<string, number>(), wasLow: new Map<string, boolean>() }));

/** A chain's low-balance thresholds (PAYOUT_LOW_BALANCE, or its lowBalance) as ticker -> decimal amount. */
function thresholds(chainId: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of payoutChain(chainId)
    .lowBalance.split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [ticker, amount] = part.split("=");
    out.set(ticker.trim(), amount.trim());
  }
  return out;
}

/** The hot wallet's balance of every payout asset, each against its threshold. */
export async function hotWalletHealth(sender: PayoutSender): Promise<HotWalletAssetHealth[]> {
  const limits = thresholds(sender.chainId);
  const out: HotWalletAssetHealth[] = [];
  for (const a of payoutAssets(sender.chainId)) {
    const held = await sender.balance(a.token);
    const threshold = limits.get(a.ticker) ?? null;
    out.push({
      chainId: sender.chainId,
      address: sender.address,
      asset: a.ticker,
      balance: formatUnits(held, a.decimals),
      threshold,
      low: threshold !== null && held < parseUnits(threshold, a.decimals),
    });
  }
  return out;
}

/**
 * Reads the hot wallet's health when the last reading is a minute old (always with `force`):
 * sets the gauges and logs a crossing of a threshold once. The simulated sender has no wallet
 * to watch. Returns the reading, or null when it was not due.
 */
export async function checkHotWallet(sender: PayoutSender, now: Date, opts: { force?: boolean } = {}) {
  if (sender.kind !== "evm") return null;
  const key = `${sender.chainId}:${sender.address.toLowerCase()}`;
  const { lastCheck, wasLow } = readings();
  const last = lastCheck.get(key);
  if (!opts.force && last !== undefined && now.getTime() >= last && now.getTime() - last < CHECK_EVERY_MS) return null;
  lastCheck.set(key, now.getTime());
  const reading = await hotWalletHealth(sender);
  for (const r of reading) {
    recordHotWalletBalance(r);
    const k = `${r.chainId}:${r.asset}`;
    const before = wasLow.get(k) ?? false;
    wasLow.set(k, r.low);
    if (r.low && !before)
      getLogger().warn(
        { chainId: r.chainId, hotWallet: r.address, asset: r.asset, balance: r.balance, threshold: r.threshold },
        "hot wallet balance below its PAYOUT_LOW_BALANCE threshold: top it up",
      );
    else if (!r.low && before)
      getLogger().info(
        { chainId: r.chainId, hotWallet: r.address, asset: r.asset, balance: r.balance, threshold: r.threshold },
        "hot wallet balance back above its threshold",
      );
  }
  return reading;
}
