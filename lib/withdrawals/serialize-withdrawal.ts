import "server-only";
import { getAddress } from "viem";
import type { Withdrawal, WithdrawalLeg } from "@/lib/db/client";
import { findPayoutChain } from "./chains";
import { type WithdrawalRow, withdrawalStatusOf } from "./types";

// A withdrawal as the dashboard, its webhook events and the CLI show it: one shape, read from
// the row and its legs, the status checked against the list.

/** What every read of a withdrawal includes: its legs, by currency. */
export const WITH_LEGS = { legs: { orderBy: { currency: "asc" as const } } };

export function toWithdrawalRow(w: Withdrawal & { legs: WithdrawalLeg[] }): WithdrawalRow {
  const explorer = findPayoutChain(w.chainId)?.explorerUrl;
  return {
    id: w.id,
    status: withdrawalStatusOf(w.status),
    asset: w.asset,
    chainId: w.chainId,
    destination: getAddress(w.destination),
    amount: w.amount,
    usdValue: w.usdValue,
    fee: w.fee,
    feePolicy: w.feePolicy,
    networkFee: w.networkFee,
    reorgs: w.reorgs,
    legs: w.legs.map((l) => ({
      currency: l.currency,
      amount: l.amount,
      rate: l.rate,
      priceSource: l.priceSource,
      pricedAt: l.pricedAt?.toISOString() ?? null,
    })),
    stateReason: w.stateReason,
    txHash: w.txHash,
    txUrl: explorer && w.txHash ? `${explorer.replace(/\/+$/, "")}/tx/${w.txHash}` : null,
    createdAt: w.createdAt.toISOString(),
    finishedAt: w.finishedAt?.toISOString() ?? null,
  };
}
