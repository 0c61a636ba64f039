import "server-only";
import crypto from "node:crypto";
import { type Address, getAddress, type Hex, parseUnits, verifyTypedData, zeroAddress } from "viem";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { restoreWithdrawal } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { type Actor, recordAudit } from "@/lib/operators/audit";
import { announceWithdrawal } from "./announce";
import { toWithdrawalRow, WITH_LEGS } from "./serialize-withdrawal";
import { typedDataToJson, WITHDRAWAL_DOMAIN_NAME } from "./typed-data";
import type { WithdrawalRow } from "./types";

// The approval step (issue 52, docs/withdrawals.md "Approval above a threshold"): a confirmed
// withdrawal worth more than WITHDRAWAL_APPROVAL_USD (its USD value at the live prices of its
// quote) is queued as `awaiting_approval`, its balances reserved as for `queued`, and the worker
// never pays it. A finance (or admin) operator then either
//
//   approves it     with a FRESH EIP-712 signature of their own wallet: requestApproval() stores
//                   the terms under a single-use nonce (the quotes' table, WithdrawalConfirmation,
//                   its payload marked as an approval) and answers the typed data; approveWithdrawal()
//                   verifies the session operator's signature of exactly those terms, uses the
//                   nonce and moves the withdrawal to `queued` (approvedBy/At/Signature), in one
//                   transaction with its audit row (withdrawal.approve) and its webhook event;
//   or rejects it   with a reason: `failed`, the reserved balances back to available through the
//                   ledger's release path (withdrawal_failed, as a reverted payout's), with its
//                   audit row (withdrawal.reject) and webhook event, in one transaction.
//
// Both act only on an `awaiting_approval` withdrawal (INVALID_WITHDRAWAL_STATE otherwise), so a
// repeat changes nothing.

/** How long an approval's typed data can be signed and sent back. */
export const APPROVAL_TTL_MS = 10 * 60_000;

/** What a stored approval holds (WithdrawalConfirmation.payload, JSON). */
interface ApprovalTerms {
  kind: "approval";
  withdrawalId: string;
  /** The operator who asked, and whose wallet alone can sign it. */
  operatorId: string;
  operator: Address;
  destination: Address;
  asset: string;
  token: Address;
  chainId: number;
  amount: string;
  amountBaseUnits: string;
  usdValue: string;
  nonce: string;
  /** Unix seconds. */
  expiresAt: number;
}

export const APPROVAL_TYPES = {
  WithdrawalApproval: [
    { name: "withdrawalId", type: "string" },
    { name: "destination", type: "address" },
    { name: "asset", type: "string" },
    { name: "token", type: "address" },
    { name: "chainId", type: "uint256" },
    { name: "amount", type: "string" },
    { name: "amountBaseUnits", type: "uint256" },
    { name: "usdValue", type: "string" },
    { name: "operator", type: "address" },
    { name: "nonce", type: "string" },
    { name: "expiresAt", type: "uint256" },
  ],
} as const;

/** The threshold (WITHDRAWAL_APPROVAL_USD) a withdrawal of `usdValue` exceeds, or null when it needs no approval. */
export function needsApproval(usdValue: string): string | null {
  const threshold = getConfig().WITHDRAWAL_APPROVAL_USD;
  if (!threshold) return null;
  return new D(usdValue).gt(threshold) ? threshold : null;
}

/** Why it waits, as the reseller's dashboard shows it. */
export const awaitingApprovalReason = (threshold: string) =>
  `waiting for the operator's approval: withdrawals worth more than ${threshold} USD are approved by hand; the amount stays reserved`;

/** Whether a WithdrawalConfirmation's payload is an approval's (not a reseller's quote). */
export function isApprovalPayload(payload: string): boolean {
  try {
    return (JSON.parse(payload) as { kind?: unknown }).kind === "approval";
  } catch {
    return false;
  }
}

function typedData(t: ApprovalTerms) {
  return {
    // The app's domain, as a reseller's confirmation has it, on the withdrawal's chain; another primary type.
    domain: { name: WITHDRAWAL_DOMAIN_NAME, version: "1", chainId: t.chainId },
    types: APPROVAL_TYPES,
    primaryType: "WithdrawalApproval" as const,
    message: {
      withdrawalId: t.withdrawalId,
      destination: getAddress(t.destination),
      asset: t.asset,
      token: getAddress(t.token),
      chainId: BigInt(t.chainId),
      amount: t.amount,
      amountBaseUnits: BigInt(t.amountBaseUnits),
      usdValue: t.usdValue,
      operator: getAddress(t.operator),
      nonce: t.nonce,
      expiresAt: BigInt(t.expiresAt),
    },
  };
}

const notAwaiting = (id: string, status: string) =>
  new AppError("INVALID_WITHDRAWAL_STATE", `Withdrawal ${id} is ${status}; only one awaiting approval can be approved or rejected.`, {
    status,
  });

async function awaiting(db: Db, withdrawalId: string) {
  const w = await db.withdrawal.findUnique({ where: { id: withdrawalId }, include: WITH_LEGS });
  if (!w) throw new AppError("WITHDRAWAL_NOT_FOUND", `No withdrawal ${withdrawalId}.`);
  if (w.status !== "awaiting_approval") throw notAwaiting(w.id, w.status);
  return w;
}

export interface ApprovalRequest {
  nonce: string;
  expiresAt: string;
  /** The eth_signTypedData_v4 argument (JSON) the operator's wallet signs. */
  typedData: string;
  withdrawal: WithdrawalRow;
}

/** The typed data an operator signs to approve a withdrawal awaiting approval, under a new single-use nonce. */
export async function requestApproval(
  db: Db,
  opts: { withdrawalId: string; by: Actor & { operatorId: string }; now?: Date },
): Promise<ApprovalRequest> {
  const now = opts.now ?? new Date();
  const w = await awaiting(db, opts.withdrawalId);
  const terms: ApprovalTerms = {
    kind: "approval",
    withdrawalId: w.id,
    operatorId: opts.by.operatorId,
    operator: getAddress(opts.by.actor),
    destination: getAddress(w.destination),
    asset: w.asset,
    token: w.tokenAddress ? getAddress(w.tokenAddress) : zeroAddress,
    chainId: w.chainId,
    amount: w.amount,
    amountBaseUnits: parseUnits(w.amount, w.decimals).toString(),
    usdValue: w.usdValue,
    nonce: crypto.randomBytes(16).toString("hex"),
    expiresAt: Math.floor((now.getTime() + APPROVAL_TTL_MS) / 1000),
  };
  await db.withdrawalConfirmation.create({
    data: { nonce: terms.nonce, resellerId: w.resellerId, payload: JSON.stringify(terms), expiresAt: new Date(terms.expiresAt * 1000) },
  });
  return {
    nonce: terms.nonce,
    expiresAt: new Date(terms.expiresAt * 1000).toISOString(),
    typedData: typedDataToJson(typedData(terms)),
    withdrawal: toWithdrawalRow(w),
  };
}

/**
 * Approves a withdrawal awaiting approval with the operator's signature of the terms stored
 * under `nonce`. Refuses: a nonce that is unknown, another withdrawal's or another operator's
 * (WITHDRAWAL_NOT_FOUND), used (CONFIRMATION_USED), expired (QUOTE_EXPIRED); a signature that
 * is not the session operator's wallet's signature of exactly those terms (INVALID_SIGNATURE);
 * a withdrawal no longer awaiting approval (INVALID_WITHDRAWAL_STATE).
 */
export async function approveWithdrawal(
  db: Db,
  opts: { withdrawalId: string; nonce: string; signature: string; by: Actor & { operatorId: string }; now?: Date },
): Promise<WithdrawalRow> {
  const now = opts.now ?? new Date();
  const conf = await db.withdrawalConfirmation.findUnique({ where: { nonce: opts.nonce } });
  const terms = conf && isApprovalPayload(conf.payload) ? (JSON.parse(conf.payload) as ApprovalTerms) : null;
  if (!conf || !terms || terms.withdrawalId !== opts.withdrawalId || terms.operatorId !== opts.by.operatorId)
    throw new AppError("WITHDRAWAL_NOT_FOUND", "No such approval request for this withdrawal and operator.");
  const w = await awaiting(db, opts.withdrawalId);
  if (conf.usedAt) throw new AppError("CONFIRMATION_USED", "This approval was already used.");
  if (conf.expiresAt <= now) throw new AppError("QUOTE_EXPIRED", "This approval request has expired; ask for a new one.");
  // Signed by the session's operator, of exactly the stored terms (which name the withdrawal as it is).
  const signer = getAddress(opts.by.actor);
  if (getAddress(terms.operator) !== signer || !(await verifyApproval(terms, signer, opts.signature)))
    throw new AppError("INVALID_SIGNATURE", "The signature is not your wallet's signature of this approval.");
  if (
    w.amount !== terms.amount ||
    w.asset !== terms.asset ||
    w.destination !== terms.destination.toLowerCase() ||
    w.chainId !== terms.chainId
  )
    throw new AppError("INVALID_SIGNATURE", "The approval names other terms than the withdrawal's.");
  await writeTransaction(db, async (tx) => {
    const used = await tx.withdrawalConfirmation.updateMany({ where: { nonce: opts.nonce, usedAt: null }, data: { usedAt: now } });
    if (used.count !== 1) throw new AppError("CONFIRMATION_USED", "This approval was already used.");
    const moved = await tx.withdrawal.updateMany({
      where: { id: w.id, status: "awaiting_approval" },
      data: {
        status: "queued",
        approvedBy: signer.toLowerCase(),
        approvedAt: now,
        approvalSignature: opts.signature,
        stateReason: null,
        nextActionAt: now,
      },
    });
    if (moved.count !== 1) throw notAwaiting(w.id, "no longer awaiting approval");
    await recordAudit(tx, opts.by, {
      action: "withdrawal.approve",
      targetType: "withdrawal",
      targetId: w.id,
      before: { status: "awaiting_approval" },
      after: {
        status: "queued",
        amount: w.amount,
        asset: w.asset,
        chainId: w.chainId,
        destination: w.destination,
        usdValue: w.usdValue,
        approvedBy: signer.toLowerCase(),
        nonce: opts.nonce,
        signature: opts.signature,
      },
      at: now,
    });
    await announceWithdrawal(tx, w.id, "awaiting_approval", now);
  });
  return toWithdrawalRow(await db.withdrawal.findUniqueOrThrow({ where: { id: w.id }, include: WITH_LEGS }));
}

async function verifyApproval(t: ApprovalTerms, signer: Address, signature: string): Promise<boolean> {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return false;
  try {
    return await verifyTypedData({ address: signer, signature: signature as Hex, ...typedData(t) });
  } catch {
    return false;
  }
}

/**
 * Rejects a withdrawal awaiting approval: it fails with the reason, and its reserved balances
 * go back to available (ledger: withdrawal_failed, withdrawal_restore entries), with its audit
 * row and webhook event, in one transaction.
 */
export async function rejectWithdrawal(
  db: Db,
  opts: { withdrawalId: string; reason: string; by: Actor; now?: Date },
): Promise<WithdrawalRow> {
  const now = opts.now ?? new Date();
  const w = await awaiting(db, opts.withdrawalId);
  await writeTransaction(db, async (tx) => {
    const moved = await tx.withdrawal.updateMany({
      where: { id: w.id, status: "awaiting_approval" },
      data: {
        status: "failed",
        rejectedBy: opts.by.actor,
        rejectedAt: now,
        rejectionReason: opts.reason,
        stateReason: `rejected by the operator: ${opts.reason}`,
        finishedAt: now,
      },
    });
    if (moved.count !== 1) throw notAwaiting(w.id, "no longer awaiting approval");
    await restoreWithdrawal(tx, w, now);
    await recordAudit(tx, opts.by, {
      action: "withdrawal.reject",
      targetType: "withdrawal",
      targetId: w.id,
      before: { status: "awaiting_approval" },
      after: { status: "failed", amount: w.amount, asset: w.asset, legs: w.legs.map((l) => ({ currency: l.currency, amount: l.amount })) },
      reason: opts.reason,
      at: now,
    });
    await announceWithdrawal(tx, w.id, "awaiting_approval", now);
  });
  return toWithdrawalRow(await db.withdrawal.findUniqueOrThrow({ where: { id: w.id }, include: WITH_LEGS }));
}
