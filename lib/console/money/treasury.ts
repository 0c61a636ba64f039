import "server-only";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { getLogger } from "@/lib/log";
import { type Actor, recordAudit } from "@/lib/operators/audit";
import { type HotWalletAssetHealth, hotWalletHealth } from "@/lib/withdrawals/health";
import { type ReconcileReport, reconcile } from "@/lib/withdrawals/reconcile";
import { getPayoutSenders } from "@/lib/withdrawals/sender";

// The console's treasury (issue 52): the hot wallet's balance of each payout asset on each
// payout chain against its low-balance threshold (PAYOUT_LOW_BALANCE, lib/withdrawals/health.ts),
// and the last reconciliation (lib/withdrawals/reconcile.ts). A reconciliation run from the
// console is recorded as an audit row (action treasury.reconcile, after: its report): the last
// such row is "the last reconciliation".

export const RECONCILE_ACTION = "treasury.reconcile";

export interface ChainTreasury {
  chainId: number;
  /** "evm": a real hot wallet, read on chain; "simulated": nothing to read. */
  sender: string;
  address: string | null;
  assets: HotWalletAssetHealth[];
  /** Why the balances could not be read (the chain's node did not answer). */
  error: string | null;
}

export interface LastReconciliation {
  auditId: number;
  at: string;
  actor: string;
  report: ReconcileReport;
}

export interface TreasuryView {
  chains: ChainTreasury[];
  lastReconciliation: LastReconciliation | null;
}

/** Each payout chain's hot wallet, asset by asset against its threshold; an unreadable chain says why. */
export async function hotWallets(): Promise<ChainTreasury[]> {
  return Promise.all(
    getPayoutSenders().map(async (s): Promise<ChainTreasury> => {
      if (s.kind !== "evm") return { chainId: s.chainId, sender: s.kind, address: null, assets: [], error: null };
      try {
        return { chainId: s.chainId, sender: s.kind, address: s.address, assets: await hotWalletHealth(s), error: null };
      } catch (e) {
        getLogger().warn({ err: e, chainId: s.chainId }, "console: hot wallet balance not read");
        return { chainId: s.chainId, sender: s.kind, address: s.address, assets: [], error: "the payout chain's node did not answer" };
      }
    }),
  );
}

/** The last reconciliation recorded (by the console), or null. */
export async function lastReconciliation(db: Db): Promise<LastReconciliation | null> {
  const row = await db.auditEvent.findFirst({ where: { action: RECONCILE_ACTION }, orderBy: { id: "desc" } });
  if (!row?.after) return null;
  return { auditId: row.id, at: row.at.toISOString(), actor: row.actor, report: JSON.parse(row.after) as ReconcileReport };
}

export async function treasuryView(db: Db): Promise<TreasuryView> {
  const [chains, last] = await Promise.all([hotWallets(), lastReconciliation(db)]);
  return { chains, lastReconciliation: last };
}

/** Runs the reconciliation now and records its report as the audit row the treasury shows. */
export async function reconcileNow(db: Db, opts: { by: Actor; now?: Date }): Promise<LastReconciliation> {
  let report: ReconcileReport;
  try {
    report = await reconcile(db);
  } catch (e) {
    if (e instanceof AppError) throw e;
    getLogger().warn({ err: e }, "console: reconciliation failed");
    throw new AppError("PAYOUT_CHAIN_UNAVAILABLE", "The reconciliation could not read the payout chain: try again.");
  }
  const row = await recordAudit(db, opts.by, { action: RECONCILE_ACTION, after: report, at: opts.now });
  return { auditId: row.id, at: row.at.toISOString(), actor: row.actor, report };
}
