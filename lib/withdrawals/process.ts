import "server-only";
import { formatUnits, getAddress, type Hex, parseUnits } from "viem";
import { getConfig } from "@/lib/config";
import type { Db, PayoutTx, Prisma, Tx } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { retryDelayMs } from "@/lib/jobs/backoff";
import { releaseLease, takeLease, unleased } from "@/lib/jobs/lease";
import {
  bookedPayout,
  type NetworkFee,
  type Payout,
  recordPayoutMined,
  recordPayoutUnmined,
  restoreWithdrawal,
  settleWithdrawal,
} from "@/lib/ledger/ledger";
import { getLogger } from "@/lib/log";
import { D } from "@/lib/money/decimal";
import { slot } from "@/lib/scope";
import { announceWithdrawal } from "./announce";
import { NATIVE_ASSET } from "./assets";
import { payoutChain } from "./chains";
import { checkHotWallet } from "./health";
import { watchReorgs } from "./reorgs";
import type { FeeCaps, PayoutPayment, PayoutReceipt, PayoutSender } from "./sender/types";
import { type WithdrawalStatus, withdrawalStatusOf } from "./types";

// Pays queued withdrawals, exactly once, whatever stops the process and wherever.
//
//   queued      the hot wallet can pay? (too poor: stays queued with the reason, one log line)
//   processing  no live payout transaction yet: take the next account nonce, SIGN, PERSIST
//               the nonce, the signed bytes and their hash, and only then broadcast
//   sent        broadcast; waiting for the receipt and PAYOUT_CONFIRMATIONS blocks. Not mined
//               PAYOUT_BUMP_AFTER_SECONDS after its broadcast, it is REPLACED at the same nonce
//               with both fees raised (signed and persisted before it is broadcast, like the
//               first), up to the fee ceiling, where it waits with the reason shown. Seen mined
//               (not yet deep enough), the amount and its gas are booked out of the hot wallet
//               into payouts in flight (ledger: withdrawal_mined), and booked back if the
//               transaction leaves the chain before it is confirmed (withdrawal_unmined)
//   confirmed   the reserved balances are paid out (ledger: withdrawal_settle), out of payouts
//               in flight (or out of the hot wallet, when it was never seen mined before)
//   failed      the transaction reverted: the reserved balances go back to available
//
// After a restart the same code reconciles with the chain: a persisted transaction is looked
// up by its hash; not mined, it is rebroadcast byte for byte (never re-signed), unless the
// hot wallet's nonce was used by another transaction, which proves it can never be mined.
// A transaction signed but not persisted was never broadcast: signing again is safe. The
// transactions of one withdrawal at one nonce (the first and its replacements) are all looked
// up: whichever of them is mined pays, and being at one nonce, no two of them can be mined.

export const PAYOUT_STEPS = ["after_sign", "after_persist", "after_broadcast", "before_receipt"] as const;
/** Where a fee-bumped replacement can be interrupted: persisted but not broadcast, and broadcast but not recorded as such. */
export const REPLACEMENT_STEPS = ["after_replacement_persist", "after_replacement_broadcast"] as const;
export type PayoutStep = (typeof PAYOUT_STEPS)[number] | (typeof REPLACEMENT_STEPS)[number];

/** Thrown by a test's stopAt hook: the process "dies" there (no cleanup, the lease stays held). */
export class SenderStopped extends Error {
  constructor(readonly step: PayoutStep) {
    super(`payout sender stopped ${step}`);
    this.name = "SenderStopped";
  }
}

export interface ProcessOptions {
  now?: Date;
  /** Test hook: return true to stop the process at this step. */
  stopAt?: (step: PayoutStep, withdrawalId: string) => boolean;
}

const BATCH = 10;
const leaseMs = () => getConfig().WITHDRAWAL_LEASE_SECONDS * 1000;
/** How often a sent payout is checked for its receipt and confirmations; how often a too poor hot wallet is checked again. */
const RECHECK_MS = 1_000;
const POOR_RECHECK_MS = 30_000;
const ACTIVE: WithdrawalStatus[] = ["queued", "processing", "sent"];
/**
 * A stored transaction counts as replaced only when the hot wallet's nonce has passed it with
 * no receipt in two checks this far apart: a load-balanced RPC provider may answer the nonce
 * from a node that has the block before another node serves the receipt.
 */
const REPLACED_AFTER_MS = 60_000;
/** Withdrawals whose stored transactions were seen without a receipt behind the wallet's nonce: "id:nonce" -> first seen (this process). */
const passedByIn = slot(() => new Map<string, number>());

type Claimed = NonNullable<Awaited<ReturnType<typeof loadClaimed>>>;
const loadClaimed = (db: Db, id: string, token: string) =>
  db.withdrawal.findFirst({ where: { id, leaseToken: token }, include: { legs: true } });

const later = (now: Date, ms: number) => new Date(now.getTime() + ms);

/** One pass: claims due withdrawals (a lease each) and advances them one at a time, in queue order. Returns how many changed state. */
export async function runWithdrawalsOnce(db: Db, sender: PayoutSender, opts: ProcessOptions = {}): Promise<number> {
  const now = opts.now ?? new Date();
  let changed = 0;
  try {
    changed += await watchReorgs(db, sender, now);
  } catch (e) {
    getLogger().warn({ err: e }, "reorganisation watch failed; it runs again on a later pass");
  }
  try {
    await checkHotWallet(sender, now);
  } catch (e) {
    getLogger().warn({ err: e }, "hot wallet balance not read; it is tried again on a later pass");
  }
  const due = await db.withdrawal.findMany({
    where: {
      status: { in: ACTIVE },
      chainId: sender.chainId,
      nextActionAt: { lte: now },
      ...unleased(now),
      // A suspended reseller's queued withdrawals wait (refuseSuspended, withdrawals.ts); it is due again once restored.
      NOT: { status: "queued", reseller: { suspendedAt: { not: null } } },
    },
    orderBy: { createdAt: "asc" },
    take: BATCH,
    select: { id: true },
  });
  for (const { id } of due) {
    // One lease per withdrawal, taken as its turn comes: the ones before it may take a while.
    const { token, taken } = await takeLease(db, "withdrawal", { ids: [id], where: { status: { in: ACTIVE } }, now, ms: leaseMs() });
    if (taken !== 1) continue;
    const w = (await loadClaimed(db, id, token))!;
    try {
      if (await advance({ db, sender, w, token, now, opts })) changed++;
    } catch (e) {
      if (e instanceof SenderStopped) throw e;
      const attempts = w.attempts + 1;
      const cfg = getConfig();
      const delay = retryDelayMs(attempts, { baseMs: cfg.WORKER_RETRY_BASE_MS, maxMs: cfg.WORKER_RETRY_MAX_MS });
      getLogger().warn({ withdrawalId: id, status: w.status, attempts, retryInMs: delay, err: e }, "withdrawal step failed; will retry");
      await release(db, id, token, {
        attempts,
        lastError: (e instanceof Error ? e.message : String(e)).slice(0, 500),
        nextActionAt: later(now, delay),
      });
    }
  }
  return changed;
}

const release = (db: Db | Tx, id: string, token: string, data: Prisma.WithdrawalUncheckedUpdateManyInput) =>
  releaseLease(db, "withdrawal", id, token, data);

/** After a write conditional on our lease: one row, or another worker owns the withdrawal now and the transaction must not commit. */
function leaseHeld(written: { count: number }, id: string): void {
  if (written.count !== 1) throw new Error(`lost the lease on withdrawal ${id}`);
}

/** release() into a status; a change of status is announced (webhooks) in the same transaction. */
async function releaseAs(
  db: Db,
  id: string,
  token: string,
  from: string,
  to: string,
  now: Date,
  data: Prisma.WithdrawalUncheckedUpdateManyInput,
) {
  if (from === to) return release(db, id, token, { ...data, status: to });
  return db.$transaction(async (t) => {
    const r = await release(t, id, token, { ...data, status: to });
    if (r.count === 1) await announceWithdrawal(t, id, from, now);
    return r;
  });
}

function stop(opts: ProcessOptions, step: PayoutStep, id: string) {
  if (opts.stopAt?.(step, id)) throw new SenderStopped(step);
}

/** A claimed withdrawal in this pass: the lease's token, and the sender and clock the pass runs on. */
interface Turn {
  db: Db;
  sender: PayoutSender;
  w: Claimed;
  token: string;
  now: Date;
  opts: ProcessOptions;
}

/**
 * Advances a claimed withdrawal as far as it goes in this pass, one step per status: queued
 * (can the hot wallet pay?), processing (its payout transaction, signed and persisted), sent
 * (broadcast, replaced with higher fees when it waits too long; then the receipt, and
 * confirmed or failed). True when its status changed.
 */
async function advance(turn: Turn): Promise<boolean> {
  const { w } = turn;
  const payment: PayoutPayment = {
    to: getAddress(w.destination),
    token: w.tokenAddress ? getAddress(w.tokenAddress) : null,
    amount: parseUnits(w.amount, w.decimals),
  };
  let status = withdrawalStatusOf(w.status);
  if (status === "queued") {
    if (!(await leaveQueue(turn, payment))) return false;
    status = "processing";
  }
  const attempts = await payoutAttempts(turn, payment);
  const found = await minedAttempt(turn.sender, attempts);
  if (!found) {
    await unbookLeftChain(turn);
    return sendUntilMined(turn, status, payment, attempts);
  }
  if (found.receipt.status === "reverted") return failReverted(turn, status, found.tx, found.receipt, attempts);
  return confirmWhenDeep(turn, status, found.tx, found.receipt, attempts);
}

/** The fee ceiling of a chain (PAYOUT_MAX_FEE_GWEI, or its maxFeeGwei) in wei per gas. */
const feeCeiling = (chainId: number) => parseUnits(payoutChain(chainId).maxFeeGwei, 9);
const gwei = (wei: bigint) => formatUnits(wei, 9);

const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);
const minOf = (a: bigint, b: bigint) => (a < b ? a : b);

/** The node's estimate, kept under the fee ceiling: what a first transaction at a nonce is signed with. */
export function initialFees(estimate: FeeCaps, ceiling: bigint): FeeCaps {
  const maxFeePerGas = minOf(estimate.maxFeePerGas, ceiling);
  return { maxFeePerGas, maxPriorityFeePerGas: minOf(estimate.maxPriorityFeePerGas, maxFeePerGas) };
}

/**
 * The fees of the replacement of a transaction signed with `prev`: each fee raised by at least
 * `bumpPercent` (rounded up) plus 1 wei, which nodes require of a replacement, or to the node's
 * current estimate when that is higher; the max fee kept under `ceiling`. Null when even the
 * minimum raise would pass the ceiling: the transaction cannot be replaced, it waits.
 */
export function bumpedFees(prev: FeeCaps, estimate: FeeCaps, bumpPercent: number, ceiling: bigint): FeeCaps | null {
  const raised = (x: bigint) => (x * BigInt(100 + bumpPercent) + 99n) / 100n + 1n;
  const minMax = raised(prev.maxFeePerGas);
  const minTip = raised(prev.maxPriorityFeePerGas);
  if (minMax > ceiling || minTip > ceiling) return null;
  // The tip never above the max fee: capped there, but never below its own minimum raise.
  let maxFeePerGas = minOf(maxOf(estimate.maxFeePerGas, minMax), ceiling);
  const maxPriorityFeePerGas = maxOf(minOf(maxOf(estimate.maxPriorityFeePerGas, minTip), maxFeePerGas), minTip);
  maxFeePerGas = maxOf(maxFeePerGas, maxPriorityFeePerGas);
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** queued: on to processing when the hot wallet can pay; otherwise it stays queued, with the reason, and is checked again later. */
async function leaveQueue({ db, sender, w, token, now }: Turn, payment: PayoutPayment): Promise<boolean> {
  // Suspended after the pass picked it: it waits, as the pass's query would have left it.
  const owner = await db.reseller.findUnique({ where: { id: w.resellerId }, select: { suspendedAt: true } });
  if (owner?.suspendedAt) {
    await release(db, w.id, token, {});
    return false;
  }
  const gas = await sender.gasLimit(payment);
  const fees = initialFees(await sender.fees(), feeCeiling(sender.chainId));
  const reason = await sender.shortfall({ ...payment, gas, maxFeePerGas: fees.maxFeePerGas });
  if (reason) {
    // One log line when it starts waiting, not one per check.
    if (!w.stateReason)
      getLogger().warn(
        { withdrawalId: w.id, asset: w.asset, amount: w.amount, hotWallet: sender.address, reason },
        "hot wallet too poor: withdrawal stays queued",
      );
    await release(db, w.id, token, { stateReason: reason, nextActionAt: later(now, POOR_RECHECK_MS) });
    return false;
  }
  await db.$transaction(async (t) => {
    const r = await t.withdrawal.updateMany({
      where: { id: w.id, leaseToken: token },
      data: { status: "processing", stateReason: null },
    });
    if (r.count === 1) await announceWithdrawal(t, w.id, "queued", now);
  });
  return true;
}

/**
 * processing: the withdrawal's live payout transactions (the first at its nonce and its
 * replacements, oldest first; never empty). With none, one is signed with the hot wallet's
 * next nonce and persisted, bytes and hash, before anything is broadcast.
 */
async function payoutAttempts({ db, sender, w, token, opts }: Turn, payment: PayoutPayment): Promise<PayoutTx[]> {
  const from = sender.address.toLowerCase();
  const live = await db.payoutTx.findMany({
    where: { withdrawalId: w.id, status: { in: ["signed", "mined"] } },
    orderBy: [{ accountNonce: "asc" }, { replacement: "asc" }],
  });
  if (live.length) return live;
  const last = await db.payoutTx.aggregate({ where: { chainId: sender.chainId, fromAddress: from }, _max: { accountNonce: true } });
  const nonce = Math.max(await sender.pendingNonce(), (last._max.accountNonce ?? -1) + 1);
  const gas = await sender.gasLimit(payment);
  const fees = initialFees(await sender.fees(), feeCeiling(sender.chainId));
  const signed = await sender.sign({ ...payment, nonce, gas, ...fees });
  stop(opts, "after_sign", w.id);
  const tx = await db.$transaction(async (t) => {
    // Still ours? (A lost lease means another worker owns it now: persist nothing.)
    const mine = await t.withdrawal.updateMany({ where: { id: w.id, leaseToken: token }, data: { txHash: signed.hash } });
    leaseHeld(mine, w.id);
    return t.payoutTx.create({
      data: {
        withdrawalId: w.id,
        chainId: sender.chainId,
        fromAddress: from,
        accountNonce: nonce,
        replacement: 0,
        rawTx: signed.raw,
        hash: signed.hash,
        status: "signed",
        gasLimit: gas.toString(),
        maxFeePerGas: fees.maxFeePerGas.toString(),
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
      },
    });
  });
  stop(opts, "after_persist", w.id);
  return [tx];
}

/** The one of the withdrawal's transactions that is mined (newest first), with its receipt; null when none is. */
async function minedAttempt(sender: PayoutSender, attempts: PayoutTx[]): Promise<{ tx: PayoutTx; receipt: PayoutReceipt } | null> {
  for (let i = attempts.length - 1; i >= 0; i--) {
    const receipt = await sender.receipt(attempts[i].hash as Hex);
    if (receipt) return { tx: attempts[i], receipt };
  }
  return null;
}

/**
 * sent, none mined yet: broadcast the newest (again, byte for byte: a node may have dropped
 * it), after replacing it with higher fees when it has waited PAYOUT_BUMP_AFTER_SECONDS since
 * its broadcast. Unless another transaction of the hot wallet used their nonce, which proves
 * none of them can ever be mined: then they are dropped and the withdrawal goes back to
 * processing, to sign a new one.
 */
async function sendUntilMined(turn: Turn, status: WithdrawalStatus, payment: PayoutPayment, attempts: PayoutTx[]): Promise<boolean> {
  const { db, sender, w, token, now, opts } = turn;
  const newest = attempts[attempts.length - 1];
  const nonce = newest.accountNonce;
  const key = `${w.id}:${nonce}`;
  // Its nonce used by another transaction of the hot wallet, and still no receipt: it can
  // never be mined. (Read the receipts again after the nonce: one may have been mined in between.)
  const passed = (await sender.minedNonce()) > nonce && !(await minedAttempt(sender, attempts));
  const passedBy = passedByIn();
  if (!passed) passedBy.delete(key);
  else if (!passedBy.has(key)) passedBy.set(key, now.getTime());
  if (passed && now.getTime() - passedBy.get(key)! >= REPLACED_AFTER_MS) {
    passedBy.delete(key);
    getLogger().error(
      { withdrawalId: w.id, hashes: attempts.map((a) => a.hash), nonce },
      "payout transaction replaced by another of the hot wallet; signing a new one",
    );
    await db.payoutTx.updateMany({ where: { id: { in: attempts.map((a) => a.id) } }, data: { status: "dropped" } });
    await releaseAs(db, w.id, token, status, "processing", now, { txHash: null, stateReason: null, nextActionAt: now });
    return false;
  }
  let current = newest;
  let reason: string | null = null;
  const waited = newest.broadcastAt ? now.getTime() - newest.broadcastAt.getTime() : 0;
  // A nonce another transaction used cannot be mined by a replacement either: no bump then.
  if (!passed && newest.broadcastAt && waited >= getConfig().PAYOUT_BUMP_AFTER_SECONDS * 1000) {
    const r = await replace(turn, payment, newest);
    if ("tx" in r) current = r.tx;
    else reason = r.reason;
  }
  const sent = await sender.broadcast(current.rawTx as Hex);
  stop(opts, current === newest ? "after_broadcast" : "after_replacement_broadcast", w.id);
  // Refused as underpriced it counts as broadcast too: its wait for a replacement starts.
  if (!current.broadcastAt) await db.payoutTx.update({ where: { id: current.id }, data: { broadcastAt: now } });
  await releaseAs(db, w.id, token, status, "sent", now, {
    sentAt: w.sentAt ?? now,
    attempts: 0,
    lastError: null,
    stateReason:
      reason ??
      (sent === "underpriced"
        ? "network fees rose above the payout's max fee: it is replaced with higher fees if it waits too long"
        : null),
    nextActionAt: later(now, RECHECK_MS),
  });
  return status !== "sent";
}

/**
 * Replaces a payout transaction that waits too long: the same payment at the same nonce and
 * gas limit, both fees raised (bumpedFees), signed and PERSISTED before it is broadcast. At
 * the fee ceiling nothing is signed: the reason why it waits.
 */
async function replace(
  { db, sender, w, token, now, opts }: Turn,
  payment: PayoutPayment,
  prev: PayoutTx,
): Promise<{ tx: PayoutTx } | { reason: string }> {
  if (!prev.maxFeePerGas || !prev.maxPriorityFeePerGas || !prev.gasLimit)
    return { reason: "waiting to be mined (signed before fee bumping existed: it is rebroadcast as it is)" };
  const cfg = getConfig();
  const ceiling = feeCeiling(sender.chainId);
  const before: FeeCaps = { maxFeePerGas: BigInt(prev.maxFeePerGas), maxPriorityFeePerGas: BigInt(prev.maxPriorityFeePerGas) };
  const fees = bumpedFees(before, await sender.fees(), cfg.PAYOUT_FEE_BUMP_PERCENT, ceiling);
  if (!fees) {
    const reason =
      `network fees are above the fee ceiling of ${gwei(ceiling)} gwei: the payout, signed with a max fee of ` +
      `${gwei(before.maxFeePerGas)} gwei, waits to be mined and is not bumped further`;
    if (w.stateReason !== reason)
      getLogger().warn(
        {
          withdrawalId: w.id,
          hash: prev.hash,
          nonce: prev.accountNonce,
          maxFeeGwei: gwei(before.maxFeePerGas),
          ceilingGwei: gwei(ceiling),
        },
        "payout at the fee ceiling: it waits",
      );
    return { reason };
  }
  const signed = await sender.sign({ ...payment, nonce: prev.accountNonce, gas: BigInt(prev.gasLimit), ...fees });
  const tx = await db.$transaction(async (t) => {
    const mine = await t.withdrawal.updateMany({ where: { id: w.id, leaseToken: token }, data: { txHash: signed.hash } });
    leaseHeld(mine, w.id);
    return t.payoutTx.create({
      data: {
        withdrawalId: w.id,
        chainId: prev.chainId,
        fromAddress: prev.fromAddress,
        accountNonce: prev.accountNonce,
        replacement: prev.replacement + 1,
        rawTx: signed.raw,
        hash: signed.hash,
        status: "signed",
        gasLimit: prev.gasLimit,
        maxFeePerGas: fees.maxFeePerGas.toString(),
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
      },
    });
  });
  getLogger().info(
    {
      withdrawalId: w.id,
      nonce: prev.accountNonce,
      replaces: prev.hash,
      hash: signed.hash,
      replacement: tx.replacement,
      maxFeeGwei: gwei(fees.maxFeePerGas),
      maxPriorityFeeGwei: gwei(fees.maxPriorityFeePerGas),
      waitedSince: prev.broadcastAt?.toISOString(),
      at: now.toISOString(),
    },
    "payout not mined in time: replaced with higher fees",
  );
  stop(opts, "after_replacement_persist", w.id);
  return { tx };
}

/** The other transactions at the paying one's nonce can never be mined now. */
const markReplaced = (t: Tx, paying: PayoutTx, attempts: PayoutTx[]) =>
  t.payoutTx.updateMany({
    where: { id: { in: attempts.filter((a) => a.id !== paying.id).map((a) => a.id) }, status: "signed" },
    data: { status: "replaced" },
  });

/** sent, mined but reverted: the withdrawal fails and its reserved balances go back to available (ledger: withdrawal_restore). */
async function failReverted(
  { db, w, token, now }: Turn,
  status: WithdrawalStatus,
  tx: PayoutTx,
  receipt: PayoutReceipt,
  attempts: PayoutTx[],
): Promise<boolean> {
  if (w.reorgs > 0) {
    // Its balances were paid out when it was first confirmed: they cannot simply be restored.
    const reason = "its payout reverted after a chain reorganisation: the operator must settle it (see docs/withdrawals.md)";
    if (w.stateReason !== reason)
      getLogger().error(
        { withdrawalId: w.id, hash: tx.hash },
        "payout reverted after a reorganisation; the withdrawal waits for the operator",
      );
    await writeTransaction(db, async (t) => {
      const r = await release(t, w.id, token, { stateReason: reason, nextActionAt: later(now, POOR_RECHECK_MS) });
      leaseHeld(r, w.id);
      // Not paid on chain (a payout booked mined that left the chain is booked back); its gas is the operator's to settle.
      await bookOnChain(t, w, null, now);
    });
    return false;
  }
  getLogger().error(
    { withdrawalId: w.id, hash: tx.hash },
    "payout transaction reverted; the withdrawal fails and its balances are restored",
  );
  await writeTransaction(db, async (t) => {
    const r = await releaseLease(
      t,
      "withdrawal",
      w.id,
      token,
      {
        status: "failed",
        stateReason: "payout transaction reverted",
        txHash: tx.hash,
        blockNumber: Number(receipt.blockNumber),
        networkFee: receipt.fee.toString(),
        finishedAt: now,
      },
      { status: { in: ACTIVE } },
    );
    leaseHeld(r, w.id);
    await announceWithdrawal(t, w.id, status, now);
    await t.payoutTx.update({
      where: { id: tx.id },
      data: { status: "reverted", blockNumber: Number(receipt.blockNumber), blockHash: receipt.blockHash, fee: receipt.fee.toString() },
    });
    await markReplaced(t, tx, attempts);
    // Another of its transactions booked mined before (and reorganised out since) is booked back first.
    await bookOnChain(t, w, null, now);
    await restoreWithdrawal(t, w, now, nativeFee(receipt.fee));
  });
  return true;
}

/**
 * sent, mined: confirmed once PAYOUT_CONFIRMATIONS blocks hold it, and its reserved balances
 * are paid out (ledger: withdrawal_settle); the network fee its receipt shows is recorded.
 * Until then it stays sent and is checked again, its payout booked out of the hot wallet into
 * payouts in flight (withdrawal_mined), so that the treasury follows the chain meanwhile.
 */
async function confirmWhenDeep(
  { db, sender, w, token, now, opts }: Turn,
  status: WithdrawalStatus,
  tx: PayoutTx,
  receipt: PayoutReceipt,
  attempts: PayoutTx[],
): Promise<boolean> {
  const head = await sender.blockNumber();
  const fee = nativeFee(receipt.fee);
  if (head - receipt.blockNumber + 1n < BigInt(payoutChain(sender.chainId).confirmations)) {
    await writeTransaction(db, async (t) => {
      const r = await release(t, w.id, token, {
        status: "sent",
        sentAt: w.sentAt ?? now,
        txHash: tx.hash,
        blockNumber: Number(receipt.blockNumber),
        // Mined: a fee reason no longer applies; a reorganisation's stays until it is confirmed again.
        stateReason: w.reorgs > 0 ? w.stateReason : null,
        nextActionAt: later(now, RECHECK_MS),
      });
      leaseHeld(r, w.id);
      if (status !== "sent") await announceWithdrawal(t, w.id, status, now);
      // The amount and the gas have left the hot wallet: booked once (again only if the fee changed with its block).
      await bookOnChain(t, w, fee, now);
    });
    return status !== "sent";
  }
  stop(opts, "before_receipt", w.id);
  await writeTransaction(db, async (t) => {
    const r = await releaseLease(
      t,
      "withdrawal",
      w.id,
      token,
      {
        status: "confirmed",
        txHash: tx.hash,
        blockNumber: Number(receipt.blockNumber),
        networkFee: receipt.fee.toString(),
        sentAt: w.sentAt ?? now,
        finishedAt: now,
        stateReason: null,
        lastError: null,
      },
      { status: { in: ACTIVE } },
    );
    leaseHeld(r, w.id);
    await announceWithdrawal(t, w.id, status, now);
    await t.payoutTx.update({
      where: { id: tx.id },
      data: {
        status: "mined",
        paidNonce: tx.accountNonce,
        blockNumber: Number(receipt.blockNumber),
        blockHash: receipt.blockHash,
        fee: receipt.fee.toString(),
      },
    });
    await markReplaced(t, tx, attempts);
    // Confirmed again after a reorganisation: its balances were paid out the first time; its
    // payout, booked back when its block left the chain, is booked on chain again (mined).
    if (w.reorgs > 0) {
      await bookOnChain(t, w, fee, now);
      return;
    }
    // Booked mined with this fee: paid out of payouts in flight. Otherwise (never seen mined before
    // it was deep enough, or booked with another block's fee) out of the hot wallet, with its gas:
    // the operator's cost, against the chain's treasury.
    const booked = await bookedPayout(t, payoutOf(w));
    const inFlight = booked !== null && feeOf(booked.fee).eq(fee.amount);
    if (booked && !inFlight) await recordPayoutUnmined(t, payoutOf(w), booked.fee, now);
    await settleWithdrawal(t, w, now, fee, { fromInFlight: inFlight });
  });
  return true;
}

const payoutOf = (w: Claimed): Payout => ({ id: w.id, asset: w.asset, chainId: w.chainId, amount: w.amount });
const feeOf = (fee: NetworkFee | null) => fee?.amount ?? new D(0);

/**
 * Brings what the books hold of the withdrawal's payout on chain (bookedPayout) to what the chain
 * shows: mined, with this network fee, or not mined (null). Booked mined with another fee (the
 * same transaction in another block after a reorganisation, or another of its transactions), it
 * is booked back first. Inside the caller's writeTransaction: it reads the journals, then posts.
 */
async function bookOnChain(t: Tx, w: Claimed, mined: NetworkFee | null, now: Date): Promise<void> {
  const booked = await bookedPayout(t, payoutOf(w));
  if (booked && mined && feeOf(booked.fee).eq(mined.amount)) return;
  if (booked) await recordPayoutUnmined(t, payoutOf(w), booked.fee, now);
  if (mined) await recordPayoutMined(t, payoutOf(w), mined, now);
}

/**
 * None of the withdrawal's transactions is mined: a payout booked mined has left the chain with
 * its block (a reorganisation) before it was confirmed. It is booked back into the hot wallet
 * (withdrawal_unmined) before anything is sent again; mined again, it is booked again.
 */
async function unbookLeftChain({ db, w, token, now }: Turn): Promise<void> {
  if (!(await bookedPayout(db, payoutOf(w)))) return;
  await writeTransaction(db, async (t) => {
    // Still ours? Its block is gone.
    const r = await t.withdrawal.updateMany({ where: { id: w.id, leaseToken: token }, data: { blockNumber: null } });
    leaseHeld(r, w.id);
    await bookOnChain(t, w, null, now);
  });
  getLogger().warn(
    { withdrawalId: w.id, hash: w.txHash, block: w.blockNumber },
    "payout seen mined is no longer in the chain (a reorganisation): booked back into the hot wallet until it is mined again",
  );
}

/** The network fee a receipt reports (wei), in the chain's native asset, as the ledger books it. */
const nativeFee = (wei: bigint): NetworkFee => ({ asset: NATIVE_ASSET, amount: new D(formatUnits(wei, 18)) });
