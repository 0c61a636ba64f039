import "server-only";
import { type Address, getAddress, type Hex, parseUnits } from "viem";
import { getConfig } from "@/lib/config";
import type { Db, PayoutTx, Prisma, Tx } from "@/lib/db/client";
import { retryDelayMs } from "@/lib/jobs/backoff";
import { releaseLease, takeLease, unleased } from "@/lib/jobs/lease";
import { restoreWithdrawal, settleWithdrawal } from "@/lib/ledger/ledger";
import { getLogger } from "@/lib/log";
import { announceWithdrawal } from "./announce";
import type { PayoutReceipt, PayoutSender } from "./sender/types";
import { type WithdrawalStatus, withdrawalStatusOf } from "./types";

// Pays queued withdrawals, exactly once, whatever stops the process and wherever.
//
//   queued      the hot wallet can pay? (too poor: stays queued with the reason, one log line)
//   processing  no live payout transaction yet: take the next account nonce, SIGN, PERSIST
//               the nonce, the signed bytes and their hash, and only then broadcast
//   sent        broadcast; waiting for the receipt and PAYOUT_CONFIRMATIONS blocks
//   confirmed   the reserved balances are paid out (ledger: withdrawal_settle)
//   failed      the transaction reverted: the reserved balances go back to available
//
// After a restart the same code reconciles with the chain: a persisted transaction is looked
// up by its hash; not mined, it is rebroadcast byte for byte (never re-signed), unless the
// hot wallet's nonce was used by another transaction, which proves it can never be mined.
// A transaction signed but not persisted was never broadcast: signing again is safe.

export const PAYOUT_STEPS = ["after_sign", "after_persist", "after_broadcast", "before_receipt"] as const;
export type PayoutStep = (typeof PAYOUT_STEPS)[number];

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
/** Stored transactions seen without a receipt behind the wallet's nonce: hash -> first seen (this process). */
const passedBy = new Map<string, number>();

type Claimed = NonNullable<Awaited<ReturnType<typeof loadClaimed>>>;
const loadClaimed = (db: Db, id: string, token: string) =>
  db.withdrawal.findFirst({ where: { id, leaseToken: token }, include: { legs: true } });

const later = (now: Date, ms: number) => new Date(now.getTime() + ms);

/** One pass: claims due withdrawals (a lease each) and advances them one at a time, in queue order. Returns how many changed state. */
export async function runWithdrawalsOnce(db: Db, sender: PayoutSender, opts: ProcessOptions = {}): Promise<number> {
  const now = opts.now ?? new Date();
  const due = await db.withdrawal.findMany({
    where: {
      status: { in: ACTIVE },
      chainId: sender.chainId,
      nextActionAt: { lte: now },
      ...unleased(now),
    },
    orderBy: { createdAt: "asc" },
    take: BATCH,
    select: { id: true },
  });
  let changed = 0;
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

/** What the withdrawal pays: the asset (null: the chain's native one) and the amount in base units. */
interface Transfer {
  token: Address | null;
  amount: bigint;
}

/**
 * Advances a claimed withdrawal as far as it goes in this pass, one step per status: queued
 * (can the hot wallet pay?), processing (its payout transaction, signed and persisted), sent
 * (broadcast; then the receipt, and confirmed or failed). True when its status changed.
 */
async function advance(turn: Turn): Promise<boolean> {
  const { w } = turn;
  const transfer: Transfer = { token: w.tokenAddress ? getAddress(w.tokenAddress) : null, amount: parseUnits(w.amount, w.decimals) };
  let status = withdrawalStatusOf(w.status);
  if (status === "queued") {
    if (!(await leaveQueue(turn, transfer))) return false;
    status = "processing";
  }
  const tx = await payoutTransaction(turn, transfer);
  const receipt = await turn.sender.receipt(tx.hash as Hex);
  if (!receipt) return sendUntilMined(turn, status, tx);
  if (receipt.status === "reverted") return failReverted(turn, status, tx, receipt);
  return confirmWhenDeep(turn, status, tx, receipt);
}

/** queued: on to processing when the hot wallet can pay; otherwise it stays queued, with the reason, and is checked again later. */
async function leaveQueue({ db, sender, w, token, now }: Turn, transfer: Transfer): Promise<boolean> {
  const reason = await sender.shortfall(transfer);
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
 * processing: the withdrawal's live payout transaction (signed or mined). With none, one is
 * signed with the hot wallet's next nonce and persisted, bytes and hash, before anything is
 * broadcast.
 */
async function payoutTransaction({ db, sender, w, token, opts }: Turn, transfer: Transfer): Promise<PayoutTx> {
  const from = sender.address.toLowerCase();
  const live = await db.payoutTx.findFirst({ where: { withdrawalId: w.id, status: { in: ["signed", "mined"] } }, orderBy: { id: "desc" } });
  if (live) return live;
  const last = await db.payoutTx.aggregate({ where: { chainId: sender.chainId, fromAddress: from }, _max: { accountNonce: true } });
  const nonce = Math.max(await sender.pendingNonce(), (last._max.accountNonce ?? -1) + 1);
  const signed = await sender.sign({ to: getAddress(w.destination), token: transfer.token, amount: transfer.amount, nonce });
  stop(opts, "after_sign", w.id);
  const tx = await db.$transaction(async (t) => {
    // Still ours? (A lost lease means another worker owns it now: persist nothing.)
    const mine = await t.withdrawal.updateMany({ where: { id: w.id, leaseToken: token }, data: { txHash: signed.hash } });
    if (mine.count !== 1) throw new Error(`lost the lease on withdrawal ${w.id}`);
    return t.payoutTx.create({
      data: {
        withdrawalId: w.id,
        chainId: sender.chainId,
        fromAddress: from,
        accountNonce: nonce,
        rawTx: signed.raw,
        hash: signed.hash,
        status: "signed",
      },
    });
  });
  stop(opts, "after_persist", w.id);
  return tx;
}

/**
 * sent, no receipt yet: broadcast (again, byte for byte: a node may have dropped it), unless
 * another transaction of the hot wallet used its nonce, which proves it can never be mined:
 * then it is dropped and the withdrawal goes back to processing, to sign a new one.
 */
async function sendUntilMined({ db, sender, w, token, now, opts }: Turn, status: WithdrawalStatus, tx: PayoutTx): Promise<boolean> {
  const hash = tx.hash as Hex;
  // Its nonce used by another transaction of the hot wallet, and still no receipt: it can
  // never be mined. (Read the receipt again after the nonce: it may have been mined in between.)
  const passed = (await sender.minedNonce()) > tx.accountNonce && !(await sender.receipt(hash));
  if (!passed) passedBy.delete(hash);
  else if (!passedBy.has(hash)) passedBy.set(hash, now.getTime());
  if (passed && now.getTime() - passedBy.get(hash)! >= REPLACED_AFTER_MS) {
    passedBy.delete(hash);
    getLogger().error(
      { withdrawalId: w.id, hash, nonce: tx.accountNonce },
      "payout transaction replaced by another of the hot wallet; signing a new one",
    );
    await db.payoutTx.update({ where: { id: tx.id }, data: { status: "dropped" } });
    await releaseAs(db, w.id, token, status, "processing", now, { txHash: null, nextActionAt: now });
    return false;
  }
  await sender.broadcast(tx.rawTx as Hex);
  stop(opts, "after_broadcast", w.id);
  await releaseAs(db, w.id, token, status, "sent", now, {
    sentAt: w.sentAt ?? now,
    attempts: 0,
    lastError: null,
    nextActionAt: later(now, RECHECK_MS),
  });
  return status !== "sent";
}

/** sent, mined but reverted: the withdrawal fails and its reserved balances go back to available (ledger: withdrawal_restore). */
async function failReverted({ db, w, token, now }: Turn, status: WithdrawalStatus, tx: PayoutTx, receipt: PayoutReceipt): Promise<boolean> {
  getLogger().error(
    { withdrawalId: w.id, hash: tx.hash },
    "payout transaction reverted; the withdrawal fails and its balances are restored",
  );
  await db.$transaction(async (t) => {
    const r = await releaseLease(
      t,
      "withdrawal",
      w.id,
      token,
      { status: "failed", stateReason: "payout transaction reverted", blockNumber: Number(receipt.blockNumber), finishedAt: now },
      { status: { in: ACTIVE } },
    );
    if (r.count !== 1) throw new Error(`lost the lease on withdrawal ${w.id}`);
    await announceWithdrawal(t, w.id, status, now);
    await t.payoutTx.update({ where: { id: tx.id }, data: { status: "reverted", blockNumber: Number(receipt.blockNumber) } });
    await restoreWithdrawal(t, w, now);
  });
  return true;
}

/**
 * sent, mined: confirmed once PAYOUT_CONFIRMATIONS blocks hold it, and its reserved balances
 * are paid out (ledger: withdrawal_settle); until then it stays sent and is checked again.
 */
async function confirmWhenDeep(
  { db, sender, w, token, now, opts }: Turn,
  status: WithdrawalStatus,
  tx: PayoutTx,
  receipt: PayoutReceipt,
): Promise<boolean> {
  const head = await sender.blockNumber();
  if (head - receipt.blockNumber + 1n < BigInt(getConfig().PAYOUT_CONFIRMATIONS)) {
    await releaseAs(db, w.id, token, status, "sent", now, {
      sentAt: w.sentAt ?? now,
      blockNumber: Number(receipt.blockNumber),
      nextActionAt: later(now, RECHECK_MS),
    });
    return status !== "sent";
  }
  stop(opts, "before_receipt", w.id);
  await db.$transaction(async (t) => {
    const r = await releaseLease(
      t,
      "withdrawal",
      w.id,
      token,
      {
        status: "confirmed",
        txHash: tx.hash,
        blockNumber: Number(receipt.blockNumber),
        sentAt: w.sentAt ?? now,
        finishedAt: now,
        stateReason: null,
        lastError: null,
      },
      { status: { in: ACTIVE } },
    );
    if (r.count !== 1) throw new Error(`lost the lease on withdrawal ${w.id}`);
    await announceWithdrawal(t, w.id, status, now);
    await t.payoutTx.update({ where: { id: tx.id }, data: { status: "mined", blockNumber: Number(receipt.blockNumber) } });
    await settleWithdrawal(t, w, now);
  });
  return true;
}
