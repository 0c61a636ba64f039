import "server-only";
import type { Db } from "@/lib/db/client";
import { hotWallets, lastReconciliation } from "./treasury";

// What needs a person in money matters (issue 52, the console's queue): the lead's queue merges
// these with the orders' items, oldest first.
//
//   withdrawal_awaiting_approval  above WITHDRAWAL_APPROVAL_USD, waiting for a finance operator
//   withdrawal_stuck              queued or processing longer than WITHDRAWAL_STUCK_MINUTES, or
//                                 not yet final with a reason it waits (stateReason: the hot
//                                 wallet too poor, fees above the ceiling, a revert after a reorganisation)
//   reconciliation_difference     each difference of the last recorded reconciliation (treasury.reconcile)
//   hot_wallet_low                each payout asset of a hot wallet below its PAYOUT_LOW_BALANCE threshold

export type MoneyQueueKind = "withdrawal_stuck" | "withdrawal_awaiting_approval" | "reconciliation_difference" | "hot_wallet_low";

export interface MoneyQueueItem {
  kind: MoneyQueueKind;
  targetType: "withdrawal" | "reconciliation" | "hot_wallet";
  targetId: string;
  /** Since when it waits. */
  since: Date;
  summary: string;
  reseller: { id: string; wallet: string } | null;
  provider: null;
  status: string;
  reason: string | null;
}

/** A queued or processing withdrawal is stuck after this long (since it was queued, or approved). */
export const WITHDRAWAL_STUCK_MINUTES = 30;

const money = (w: { amount: string; asset: string; usdValue: string }) => `${w.amount} ${w.asset.toUpperCase()} (${w.usdValue} USD)`;

export async function moneyQueueItems(db: Db, opts: { now?: Date; readHotWallets?: boolean } = {}): Promise<MoneyQueueItem[]> {
  const now = opts.now ?? new Date();
  const bound = new Date(now.getTime() - WITHDRAWAL_STUCK_MINUTES * 60_000);
  const items: MoneyQueueItem[] = [];
  const rows = await db.withdrawal.findMany({
    where: {
      OR: [
        { status: "awaiting_approval" },
        { status: { in: ["queued", "processing", "sent"] }, stateReason: { not: null } },
        { status: { in: ["queued", "processing"] }, createdAt: { lt: bound }, OR: [{ approvedAt: null }, { approvedAt: { lt: bound } }] },
      ],
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: 500,
    include: { reseller: { select: { walletAddress: true } } },
  });
  for (const w of rows) {
    const reseller = { id: w.resellerId, wallet: w.reseller.walletAddress };
    if (w.status === "awaiting_approval") {
      items.push({
        kind: "withdrawal_awaiting_approval",
        targetType: "withdrawal",
        targetId: w.id,
        since: w.createdAt,
        summary: `Withdrawal of ${money(w)} to ${w.destination} awaits approval`,
        reseller,
        provider: null,
        status: w.status,
        reason: w.stateReason,
      });
      continue;
    }
    items.push({
      kind: "withdrawal_stuck",
      targetType: "withdrawal",
      targetId: w.id,
      since: w.approvedAt ?? w.createdAt,
      summary: `Withdrawal of ${money(w)} to ${w.destination} is ${w.status}`,
      reseller,
      provider: null,
      status: w.status,
      reason: w.stateReason ?? w.lastError ?? `${w.status} for more than ${WITHDRAWAL_STUCK_MINUTES} minutes`,
    });
  }

  const last = await lastReconciliation(db);
  if (last)
    for (const [i, d] of last.report.differences.entries())
      items.push({
        kind: "reconciliation_difference",
        targetType: "reconciliation",
        targetId: `${last.auditId}:${i}`,
        since: new Date(last.at),
        summary: d,
        reseller: null,
        provider: null,
        status: "difference",
        // The check that found it: each difference's sentence starts with its line's name ("treasury:1:eth: ...", "solvency: ...").
        reason: d.split(":")[0],
      });

  if (opts.readHotWallets ?? true)
    for (const chain of await hotWallets())
      for (const a of chain.assets.filter((x) => x.low))
        items.push({
          kind: "hot_wallet_low",
          targetType: "hot_wallet",
          targetId: `${a.chainId}:${a.asset}`,
          // A reading: low now (the worker logs when it crossed the threshold).
          since: now,
          summary: `Hot wallet ${a.address} on chain ${a.chainId} holds ${a.balance} ${a.asset.toUpperCase()}, below ${a.threshold}`,
          reseller: null,
          provider: null,
          status: "low",
          reason: `below PAYOUT_LOW_BALANCE (${a.asset}=${a.threshold})`,
        });
  return items.sort((x, y) => x.since.getTime() - y.since.getTime());
}
