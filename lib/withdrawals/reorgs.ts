import "server-only";
import type { Hex } from "viem";
import { getConfig } from "@/lib/config";
import type { Db, PayoutTx } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { bookedPayout, recordPayoutUnmined } from "@/lib/ledger/ledger";
import { getLogger } from "@/lib/log";
import { slot } from "@/lib/scope";
import { announceWithdrawal } from "./announce";
import type { PayoutReceipt, PayoutSender } from "./sender/types";

// Reorganisations. A confirmed payout is watched for PAYOUT_REORG_WATCH_BLOCKS blocks after
// its own: when its receipt disappears, or names another block than the one recorded, the
// block that held it left the canonical chain. The withdrawal then goes back to `sent` (its
// history counts it: `reorgs`, and a status_changed event) and its transactions at that nonce
// back to `signed`; the processor reconciles it exactly as after a crash: whichever of them is
// mined again pays, the same signed bytes are rebroadcast, and when another transaction took
// the nonce a new one pays. The reseller's balances stay paid out meanwhile (the settlement is
// not booked twice: see confirmWhenDeep), but the payout and its gas are booked back into the
// hot wallet (withdrawal_unmined: into payouts in flight), since the chain gave them back;
// mined again, the processor books them out again (withdrawal_mined), with the new fee.

/** How often the watch runs per hot wallet (each run reads one receipt per watched payout). */
const WATCH_EVERY_MS = 5_000;
/** When each app last watched each hot wallet. */
const lastWatchIn = slot(() => new Map<string, number>());

/** Moves the confirmed withdrawals whose payout left the chain back to `sent`. Returns how many. */
export async function watchReorgs(db: Db, sender: PayoutSender, now: Date): Promise<number> {
  const depth = getConfig().PAYOUT_REORG_WATCH_BLOCKS;
  // The simulated chain forgets its blocks on a restart: there is nothing to watch.
  if (depth === 0 || sender.kind !== "evm") return 0;
  const key = `${sender.chainId}:${sender.address.toLowerCase()}`;
  const lastWatch = lastWatchIn();
  const last = lastWatch.get(key);
  if (last !== undefined && now.getTime() - last < WATCH_EVERY_MS && now.getTime() >= last) return 0;
  lastWatch.set(key, now.getTime());
  const head = Number(await sender.blockNumber());
  const watched = await db.payoutTx.findMany({
    where: {
      chainId: sender.chainId,
      fromAddress: sender.address.toLowerCase(),
      status: "mined",
      blockNumber: { gte: head - depth },
    },
    orderBy: { id: "asc" },
  });
  let moved = 0;
  for (const tx of watched) {
    const receipt = await sender.receipt(tx.hash as Hex);
    if (receipt && (!tx.blockHash || receipt.blockHash === tx.blockHash)) continue;
    // A node behind the others (a load-balanced provider) may not serve the receipt yet: a
    // reorganisation is when the chain's block at that height is not the one recorded.
    if (tx.blockHash && tx.blockNumber !== null && (await sender.blockHashAt(BigInt(tx.blockNumber))) === tx.blockHash) continue;
    if (await reorganised(db, tx, receipt, now)) moved++;
  }
  return moved;
}

async function reorganised(db: Db, tx: PayoutTx, receipt: PayoutReceipt | null, now: Date): Promise<boolean> {
  const reason = receipt
    ? `the block that held its payout (#${tx.blockNumber}) left the chain in a reorganisation; the payout is in block #${receipt.blockNumber} now and waits for its confirmations again`
    : `the block that held its payout (#${tx.blockNumber}) left the chain in a reorganisation; the payout waits to be mined again`;
  const moved = await writeTransaction(db, async (t) => {
    const w = await t.withdrawal.updateMany({
      where: { id: tx.withdrawalId, status: "confirmed" },
      data: {
        status: "sent",
        reorgs: { increment: 1 },
        stateReason: reason,
        blockNumber: null,
        networkFee: null,
        finishedAt: null,
        attempts: 0,
        lastError: null,
        nextActionAt: now,
      },
    });
    if (w.count !== 1) return false;
    // The payout and its gas are back in the hot wallet: so are they in the books (what was booked, exactly).
    const paid = await t.withdrawal.findUniqueOrThrow({
      where: { id: tx.withdrawalId },
      select: { id: true, asset: true, chainId: true, amount: true },
    });
    const booked = await bookedPayout(t, paid);
    if (booked) await recordPayoutUnmined(t, paid, booked.fee, now);
    // Every transaction at that nonce may be the one mined in the new chain: all are live again.
    await t.payoutTx.updateMany({
      where: { withdrawalId: tx.withdrawalId, accountNonce: tx.accountNonce, status: { in: ["mined", "replaced"] } },
      data: { status: "signed", paidNonce: null, blockNumber: null, blockHash: null, fee: null },
    });
    await announceWithdrawal(t, tx.withdrawalId, "confirmed", now);
    return true;
  });
  if (moved)
    getLogger().warn(
      {
        withdrawalId: tx.withdrawalId,
        hash: tx.hash,
        block: tx.blockNumber,
        blockHash: tx.blockHash,
        nowIn: receipt?.blockNumber?.toString() ?? null,
      },
      "payout reorganised out of the chain: the withdrawal is sent again",
    );
  return moved;
}
