import "server-only";
import { getAddress, type Hex, parseUnits } from "viem";
import { getConfig } from "@/lib/config";
import type { Db, Prisma, Tx } from "@/lib/db/client";
import { retryDelayMs } from "@/lib/jobs/backoff";
import { releaseLease, takeLease, unleased } from "@/lib/jobs/lease";
import { type Posting, post } from "@/lib/ledger/ledger";
import { getLogger } from "@/lib/log";
import { D } from "@/lib/money/decimal";
import { announceWithdrawal } from "./announce";
import type { PayoutSender } from "./sender/types";

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
const ACTIVE = ["queued", "processing", "sent"];
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
      if (await advance(db, sender, w, token, now, opts)) changed++;
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

async function advance(db: Db, sender: PayoutSender, w: Claimed, token: string, now: Date, opts: ProcessOptions): Promise<boolean> {
  const amount = parseUnits(w.amount, w.decimals);
  const tokenAddress = w.tokenAddress ? getAddress(w.tokenAddress) : null;
  let status = w.status;

  if (status === "queued") {
    const reason = await sender.shortfall({ token: tokenAddress, amount });
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
    status = "processing";
  }

  const from = sender.address.toLowerCase();
  let tx = await db.payoutTx.findFirst({ where: { withdrawalId: w.id, status: { in: ["signed", "mined"] } }, orderBy: { id: "desc" } });
  if (!tx) {
    const last = await db.payoutTx.aggregate({ where: { chainId: sender.chainId, fromAddress: from }, _max: { accountNonce: true } });
    const nonce = Math.max(await sender.pendingNonce(), (last._max.accountNonce ?? -1) + 1);
    const signed = await sender.sign({ to: getAddress(w.destination), token: tokenAddress, amount, nonce });
    stop(opts, "after_sign", w.id);
    tx = await db.$transaction(async (t) => {
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
  }

  const hash = tx.hash as Hex;
  const receipt = await sender.receipt(hash);
  if (!receipt) {
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

  const legs = w.legs;
  if (receipt.status === "reverted") {
    getLogger().error({ withdrawalId: w.id, hash }, "payout transaction reverted; the withdrawal fails and its balances are restored");
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
      await post(
        t,
        legs.flatMap((l): Posting[] => [
          {
            resellerId: w.resellerId,
            currency: l.currency,
            bucket: "reserved",
            kind: "withdrawal_restore",
            amount: new D(l.amount).neg(),
            withdrawalId: w.id,
          },
          {
            resellerId: w.resellerId,
            currency: l.currency,
            bucket: "available",
            kind: "withdrawal_restore",
            amount: new D(l.amount),
            withdrawalId: w.id,
          },
        ]),
        now,
      );
    });
    return true;
  }

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
        txHash: hash,
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
    await post(
      t,
      legs.map(
        (l): Posting => ({
          resellerId: w.resellerId,
          currency: l.currency,
          bucket: "reserved",
          kind: "withdrawal_settle",
          amount: new D(l.amount).neg(),
          withdrawalId: w.id,
        }),
      ),
      now,
    );
  });
  return true;
}
