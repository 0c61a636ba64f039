import "server-only";
import crypto from "node:crypto";
import { getAddress } from "viem";
import { z } from "zod";
import { getConfig } from "@/lib/config";
import type { Db, PayoutInstruction, PayoutRun, Tx } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { D, formatAmount } from "@/lib/money/decimal";
import { findMember } from "@/lib/teams/team";
import { payoutAsset, tokenOrZero } from "@/lib/withdrawals/assets";
import { payoutChain } from "@/lib/withdrawals/chains";
import { getPayoutSender } from "@/lib/withdrawals/sender";
import type { PayoutSender } from "@/lib/withdrawals/sender/types";
import { verifyTypedDataSignature } from "@/lib/withdrawals/typed-data";
import { contractSignatureCheck } from "@/lib/withdrawals/withdrawals";
import { monthBounds } from "./periods";
import { type InstructionTerms, instructionTypedData, instructionTypedDataJson, isInstructionPayload, PAYOUT_TRIGGERS } from "./typed-data";
import type { InstructionRequest, PayoutInstructionRow, PayoutRunRow, PayoutsView } from "./types";

// Standing payout instructions (issue 54, docs/payouts.md): the owner signs once, the worker
// pays by it (./run.ts).
//
//   requestInstruction  the terms and their EIP-712 typed data, under a single-use nonce
//   signInstruction     verifies the owner's signature of exactly those terms (EOA or ERC-1271,
//                       as withdrawals do) and, in one transaction with the nonce's use:
//                       - applies at once when it pays the same wallet as the reseller's last
//                         instruction and raises no cap (a first one, a lowered cap, another
//                         trigger or asset): the active one is replaced;
//                       - otherwise (another wallet, a cap raised) waits PAYOUT_CHANGE_DELAY_HOURS
//                         as the pending change, the active one still paying meanwhile;
//                       either way a pending change signed before is cancelled.
//   revokeInstruction   at once: the active one revoked, a pending one cancelled. A payout
//                       starts only in a transaction that finds its instruction still active
//                       (./run.ts), so none starts after the revocation commits.
//   activateDueChanges  (the worker) a pending change whose time has come replaces the active one.
//
// Who may do this: the owner. For now the reseller's own wallet (Reseller.walletAddress); the
// destination is always the signer's wallet, as a withdrawal's is the signed-in wallet.

/** How long a requested instruction can be signed and sent back. */
export const INSTRUCTION_TTL_MS = 10 * 60_000;

const usd = z
  .string()
  .regex(/^\d{1,15}(\.\d{1,2})?$/, "expected US dollars, at most 2 decimal places")
  .refine((v) => new D(v).gt(0), "expected more than 0");

const instructionInput = z
  .object({
    trigger: z.enum(PAYOUT_TRIGGERS),
    thresholdUsd: usd.optional(),
    asset: z.string().min(1).max(20),
    chainId: z.number().int().positive().optional(),
    maxPerPayoutUsd: usd,
    maxPerMonthUsd: usd,
  })
  .strict()
  .refine((i) => (i.trigger === "threshold") === (i.thresholdUsd !== undefined), {
    message: "a threshold instruction needs thresholdUsd, a schedule none",
    path: ["thresholdUsd"],
  });

export type InstructionInput = z.input<typeof instructionInput>;

function parseInput(input: unknown): z.output<typeof instructionInput> {
  const r = instructionInput.safeParse(input);
  if (!r.success)
    throw new AppError("INVALID_REQUEST", r.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "));
  return r.data;
}

/**
 * The owner's check: the wallet must hold the owner role in the reseller's team (issue 54,
 * lib/teams), read at this call, not from the session. Anyone else is FORBIDDEN. The payouts go
 * to the signer's own wallet, so an owner can only set them up to pay themselves.
 */
async function requireOwner(db: Db | Tx, resellerId: string, wallet: string) {
  const member = await findMember(db, { resellerId, walletAddress: wallet.toLowerCase() });
  if (member?.role !== "owner")
    throw new AppError("FORBIDDEN", "Only an owner of the account can set up, change or revoke automatic payouts.");
  return db.reseller.findUniqueOrThrow({ where: { id: resellerId } });
}

/** The terms to sign for `input`, stored under a new single-use nonce. */
export async function requestInstruction(
  db: Db,
  opts: { resellerId: string; wallet: string; input: unknown; now?: Date },
): Promise<InstructionRequest> {
  const now = opts.now ?? new Date();
  const input = parseInput(opts.input);
  await requireOwner(db, opts.resellerId, opts.wallet);
  const chain = payoutChain(input.chainId);
  const asset = payoutAsset(input.asset, chain.chainId);
  // A cap below the chain's minimum withdrawal would never pay anything.
  if (new D(input.maxPerPayoutUsd).lt(chain.minUsd) || new D(input.maxPerMonthUsd).lt(chain.minUsd))
    throw new AppError("INVALID_REQUEST", `The caps must be at least the minimum withdrawal, ${chain.minUsd} USD.`, {
      minUsd: chain.minUsd,
    });
  const signer = getAddress(opts.wallet);
  const terms: InstructionTerms = {
    kind: "payout_instruction",
    trigger: input.trigger,
    thresholdUsd: input.thresholdUsd ?? "",
    asset: asset.ticker,
    token: tokenOrZero(asset),
    chainId: chain.chainId,
    destination: signer,
    maxPerPayoutUsd: formatAmount(new D(input.maxPerPayoutUsd)),
    maxPerMonthUsd: formatAmount(new D(input.maxPerMonthUsd)),
    signer,
    nonce: crypto.randomBytes(16).toString("hex"),
    expiresAt: Math.floor((now.getTime() + INSTRUCTION_TTL_MS) / 1000),
  };
  await db.withdrawalConfirmation.create({
    data: { nonce: terms.nonce, resellerId: opts.resellerId, payload: JSON.stringify(terms), expiresAt: new Date(terms.expiresAt * 1000) },
  });
  const delayed = needsDelay(await lastInstruction(db, opts.resellerId), terms);
  return {
    nonce: terms.nonce,
    expiresAt: new Date(terms.expiresAt * 1000).toISOString(),
    typedData: instructionTypedDataJson(terms),
    delayed,
    effectiveAt: (delayed ? delayedUntil(now) : now).toISOString(),
  };
}

const delayedUntil = (now: Date) => new Date(now.getTime() + getConfig().PAYOUT_CHANGE_DELAY_HOURS * 3_600_000);

/**
 * The instruction a new one is compared with: the reseller's latest that applied (active,
 * replaced or revoked). Revoking and signing again cannot skip the delay.
 */
const lastInstruction = (db: Db | Tx, resellerId: string) =>
  db.payoutInstruction.findFirst({
    where: { resellerId, status: { in: ["active", "replaced", "revoked"] } },
    orderBy: [{ effectiveAt: "desc" }, { createdAt: "desc" }],
  });

/** Another wallet, or a cap raised, than the last instruction's: the change waits. A first instruction does not. */
function needsDelay(last: PayoutInstruction | null, t: InstructionTerms): boolean {
  if (!last) return false;
  return (
    last.destination !== t.destination.toLowerCase() ||
    new D(t.maxPerPayoutUsd).gt(last.maxPerPayoutUsd) ||
    new D(t.maxPerMonthUsd).gt(last.maxPerMonthUsd)
  );
}

/**
 * Records the owner's signature of the terms stored under `nonce`. Refuses: an unknown nonce or
 * another reseller's (NOT_FOUND), a used one (CONFIRMATION_USED), an expired one (QUOTE_EXPIRED),
 * a wallet that is not the owner's or not the one the terms name (FORBIDDEN), a signature that is
 * not that wallet's of exactly those terms (INVALID_SIGNATURE; a contract wallet's is asked on
 * the payout chain, PAYOUT_CHAIN_UNAVAILABLE when its node cannot answer).
 */
export async function signInstruction(
  db: Db,
  opts: { resellerId: string; wallet: string; nonce: string; signature: string; now?: Date; sender?: PayoutSender },
): Promise<PayoutInstructionRow> {
  const now = opts.now ?? new Date();
  const conf = await db.withdrawalConfirmation.findUnique({ where: { nonce: opts.nonce } });
  if (!conf || conf.resellerId !== opts.resellerId || !isInstructionPayload(conf.payload))
    throw new AppError("NOT_FOUND", "No such payout instruction request.");
  if (conf.usedAt) throw new AppError("CONFIRMATION_USED", "This instruction was already signed.");
  if (conf.expiresAt <= now) throw new AppError("QUOTE_EXPIRED", "This request has expired; ask for a new one.");
  const terms = JSON.parse(conf.payload) as InstructionTerms;
  await requireOwner(db, opts.resellerId, opts.wallet);
  if (getAddress(opts.wallet) !== getAddress(terms.signer))
    throw new AppError("FORBIDDEN", "This instruction was requested for another wallet.");
  const onChain = contractSignatureCheck(opts.sender ?? getPayoutSender(terms.chainId), terms.chainId);
  if (!(await verifyTypedDataSignature(instructionTypedData(terms), getAddress(terms.signer), opts.signature, onChain)))
    throw new AppError("INVALID_SIGNATURE", "The signature is not the owner's wallet's signature of this instruction.");

  const id = newId();
  await writeTransaction(db, async (tx) => {
    const used = await tx.withdrawalConfirmation.updateMany({ where: { nonce: opts.nonce, usedAt: null }, data: { usedAt: now } });
    if (used.count !== 1) throw new AppError("CONFIRMATION_USED", "This instruction was already signed.");
    // Compared inside the write: two signatures at once are ordered, each against what the other left.
    const last = await lastInstruction(tx, opts.resellerId);
    const delayed = needsDelay(last, terms);
    await tx.payoutInstruction.updateMany({
      where: { pendingFor: opts.resellerId },
      data: { status: "cancelled", pendingFor: null, endedAt: now },
    });
    const active = await tx.payoutInstruction.findUnique({ where: { activeFor: opts.resellerId } });
    if (!delayed && active)
      await tx.payoutInstruction.update({ where: { id: active.id }, data: { status: "replaced", activeFor: null, endedAt: now } });
    await tx.payoutInstruction.create({
      data: {
        id,
        resellerId: opts.resellerId,
        status: delayed ? "pending" : "active",
        activeFor: delayed ? null : opts.resellerId,
        pendingFor: delayed ? opts.resellerId : null,
        trigger: terms.trigger,
        thresholdUsd: terms.thresholdUsd || null,
        asset: terms.asset,
        chainId: terms.chainId,
        destination: terms.destination.toLowerCase(),
        maxPerPayoutUsd: terms.maxPerPayoutUsd,
        maxPerMonthUsd: terms.maxPerMonthUsd,
        signer: terms.signer.toLowerCase(),
        signature: opts.signature,
        nonce: terms.nonce,
        payload: conf.payload,
        // A threshold already paid stays paid until the balance falls below: replacing it does not pay again.
        armed: !(last && last.trigger === "threshold" && terms.trigger === "threshold" && !last.armed),
        createdAt: now,
        effectiveAt: delayed ? delayedUntil(now) : now,
      },
    });
  });
  return toInstructionRow(await db.payoutInstruction.findUniqueOrThrow({ where: { id } }));
}

/** Revokes the reseller's automatic payouts at once: the active instruction revoked, a pending change cancelled. NOT_FOUND when there is neither. */
export async function revokeInstruction(db: Db, opts: { resellerId: string; wallet: string; now?: Date }): Promise<void> {
  const now = opts.now ?? new Date();
  await requireOwner(db, opts.resellerId, opts.wallet);
  await writeTransaction(db, async (tx) => {
    const revoked = await tx.payoutInstruction.updateMany({
      where: { activeFor: opts.resellerId },
      data: { status: "revoked", activeFor: null, revokedAt: now, endedAt: now },
    });
    const cancelled = await tx.payoutInstruction.updateMany({
      where: { pendingFor: opts.resellerId },
      data: { status: "cancelled", pendingFor: null, revokedAt: now, endedAt: now },
    });
    if (revoked.count + cancelled.count === 0) throw new AppError("NOT_FOUND", "There are no automatic payouts to revoke.");
  });
}

/** (The worker) Pending changes whose time has come replace the active instructions. Returns how many applied. */
export async function activateDueChanges(db: Db, now: Date): Promise<number> {
  const due = await db.payoutInstruction.findMany({
    where: { status: "pending", effectiveAt: { lte: now } },
    orderBy: { effectiveAt: "asc" },
    take: 100,
    select: { id: true, resellerId: true },
  });
  let applied = 0;
  for (const p of due)
    await writeTransaction(db, async (tx) => {
      // Still pending (not cancelled or revoked meanwhile, not applied by another worker)?
      const mine = await tx.payoutInstruction.updateMany({
        where: { id: p.id, status: "pending", pendingFor: p.resellerId },
        data: { status: "active", pendingFor: null },
      });
      if (mine.count !== 1) return;
      await tx.payoutInstruction.updateMany({
        where: { activeFor: p.resellerId },
        data: { status: "replaced", activeFor: null, endedAt: now },
      });
      await tx.payoutInstruction.update({ where: { id: p.id }, data: { activeFor: p.resellerId } });
      applied++;
    });
  return applied;
}

/** What the reseller's automatic payouts have paid this calendar month (UTC), in USD: the runs whose withdrawal did not fail. */
export async function paidThisMonthUsd(db: Db | Tx, resellerId: string, at: Date): Promise<string> {
  const { start, end } = monthBounds(at);
  const runs = await db.payoutRun.findMany({
    where: { resellerId, createdAt: { gte: start, lt: end }, withdrawal: { status: { not: "failed" } } },
    select: { usdValue: true },
  });
  return formatAmount(runs.reduce((s, r) => s.plus(r.usdValue), new D(0)));
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toInstructionRow = (i: PayoutInstruction): PayoutInstructionRow => ({
  id: i.id,
  status: i.status,
  trigger: i.trigger as PayoutInstructionRow["trigger"],
  thresholdUsd: i.thresholdUsd,
  asset: i.asset,
  chainId: i.chainId,
  destination: i.destination,
  maxPerPayoutUsd: i.maxPerPayoutUsd,
  maxPerMonthUsd: i.maxPerMonthUsd,
  signer: i.signer,
  createdAt: i.createdAt.toISOString(),
  effectiveAt: i.effectiveAt.toISOString(),
  endedAt: iso(i.endedAt),
  revokedAt: iso(i.revokedAt),
});

type RunWithWithdrawal = PayoutRun & {
  withdrawal: { id: string; status: string; amount: string; asset: string; txHash: string | null } | null;
};

const toRunRow = (r: RunWithWithdrawal): PayoutRunRow => ({
  id: r.id,
  instructionId: r.instructionId,
  period: r.period,
  usdValue: r.usdValue,
  createdAt: r.createdAt.toISOString(),
  withdrawalId: r.withdrawal?.id ?? null,
  withdrawalStatus: r.withdrawal?.status ?? null,
  amount: r.withdrawal?.amount ?? null,
  asset: r.withdrawal?.asset ?? null,
  txHash: r.withdrawal?.txHash ?? null,
});

/** The dashboard's view: the active instruction, a pending change, this month's total and the latest automatic payouts. */
export async function getPayoutsView(db: Db, opts: { resellerId: string; now?: Date }): Promise<PayoutsView> {
  const now = opts.now ?? new Date();
  const [active, pending, runs, paid] = await Promise.all([
    db.payoutInstruction.findUnique({ where: { activeFor: opts.resellerId } }),
    db.payoutInstruction.findUnique({ where: { pendingFor: opts.resellerId } }),
    db.payoutRun.findMany({
      where: { resellerId: opts.resellerId },
      orderBy: { createdAt: "desc" },
      take: 50,
      include: { withdrawal: { select: { id: true, status: true, amount: true, asset: true, txHash: true } } },
    }),
    paidThisMonthUsd(db, opts.resellerId, now),
  ]);
  return {
    active: active && toInstructionRow(active),
    pending: pending && toInstructionRow(pending),
    paidThisMonthUsd: paid,
    delayHours: getConfig().PAYOUT_CHANGE_DELAY_HOURS,
    runs: runs.map(toRunRow),
  };
}
