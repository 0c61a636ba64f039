import "server-only";
import { now as clockNow } from "@/lib/clock";
import { type Db, isUniqueViolation, type PayoutInstruction } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { InsufficientBalanceError } from "@/lib/ledger/ledger";
import { getLogger } from "@/lib/log";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { payoutChain } from "@/lib/withdrawals/chains";
import type { WithdrawalTerms } from "@/lib/withdrawals/typed-data";
import { priceWithdrawal, queueWithdrawal } from "@/lib/withdrawals/withdrawals";
import { activateDueChanges, paidThisMonthUsd } from "./instructions";
import { scheduledPeriod } from "./periods";

// The worker's pass over standing payout instructions (./instructions.ts). For each active one:
//
//   weekly / monthly  pays once per period (ISO week, calendar month, UTC): at the first pass of
//                     the period that finds something to pay (at least the chain's minimum);
//   threshold         pays when the available balances, valued in the payout asset at live prices,
//                     reach the threshold while it is armed; disarmed by that payout, armed again
//                     at a pass that finds them below the threshold: once per crossing.
//
// A payout is a withdrawal of the available balances (all of them, priced as a quote is) to the
// instruction's wallet, capped at the smaller of the per-payout cap and what is left of the
// monthly cap (the month's automatic payouts whose withdrawal did not fail; manual withdrawals,
// each signed on its own, do not count). It is queued through the withdrawals' own path
// (queueWithdrawal: the same reservation, journals, webhook event and operator approval above
// WITHDRAWAL_APPROVAL_USD), and the worker's withdrawal pass pays it like any other.
//
// Exactly once: the PayoutRun row, unique per (instruction, period), and the withdrawal are
// written in ONE transaction, which first re-reads the instruction with a conditional update
// (still active; for a threshold, still armed): a revocation committed before it means no
// payout; two workers at once make one run (the other's insert fails, or finds it disarmed); a
// process killed anywhere leaves either nothing (the pass pays it again) or the run with its
// withdrawal, which the withdrawal pass pays exactly once (lib/withdrawals/process.ts).

/** Test hooks: called at a step of one instruction's payout; throwing there stops the pass as a crash would. */
export type PayoutStep = "priced" | "after_run_row";

export interface PayoutPassOptions {
  now?: Date;
  onStep?: (step: PayoutStep, instructionId: string) => void | Promise<void>;
}

const BATCH = 200;

/** One pass: pending changes due, then every active instruction. Returns the withdrawals queued. */
export async function runPayoutInstructionsOnce(db: Db, opts: PayoutPassOptions = {}): Promise<number> {
  const now = opts.now ?? clockNow();
  await activateDueChanges(db, now);
  let queued = 0;
  let after: string | undefined;
  for (;;) {
    const batch = await db.payoutInstruction.findMany({
      where: { status: "active", effectiveAt: { lte: now }, ...(after ? { id: { gt: after } } : {}) },
      orderBy: { id: "asc" },
      take: BATCH,
    });
    for (const inst of batch) {
      try {
        if (await payByInstruction(db, inst, now, opts)) queued++;
      } catch (e) {
        if (e instanceof AppError && EXPECTED.has(e.code)) continue;
        getLogger().warn({ err: e, instructionId: inst.id, resellerId: inst.resellerId }, "automatic payout not made; tried again later");
      }
    }
    if (batch.length < BATCH) return queued;
    after = batch[batch.length - 1].id;
  }
}

/** Why a pass pays nothing now without anything being wrong: tried again at the next pass. */
const EXPECTED = new Set(["WITHDRAWAL_TOO_SMALL", "INSUFFICIENT_BALANCE", "RESELLER_SUSPENDED"]);

/** Nothing to do for this instruction in this pass (not due, paid meanwhile, revoked meanwhile). */
class NotNow extends Error {}

async function payByInstruction(db: Db, inst: PayoutInstruction, now: Date, opts: PayoutPassOptions): Promise<boolean> {
  const period = scheduledPeriod(inst.trigger as "threshold" | "weekly" | "monthly", now);
  // Scheduled: paid this period already (by this or a replaced instruction of the reseller)?
  if (period && (await db.payoutRun.count({ where: { resellerId: inst.resellerId, period } }))) return false;
  const pricing = { resellerId: inst.resellerId, asset: inst.asset, chainId: inst.chainId, currencies: "all" as const, now };
  if (inst.trigger === "threshold") {
    const value = await availableUsd(db, pricing);
    if (value.lt(inst.thresholdUsd!)) {
      if (!inst.armed) await db.payoutInstruction.updateMany({ where: { id: inst.id, armed: false }, data: { armed: true } });
      return false;
    }
    if (!inst.armed) return false;
  }
  const cap = capUsd(inst, new D(await paidThisMonthUsd(db, inst.resellerId, now)));
  if (cap.lt(payoutChain(inst.chainId).minUsd)) return false;
  const terms = await priceWithdrawal(db, { ...pricing, maxUsd: formatAmount(cap), destination: inst.destination });
  await opts.onStep?.("priced", inst.id);
  const runId = newId();
  try {
    await writeTransaction(
      db,
      async (tx) => {
        // Still active (a revocation or a replacement committed first wins); a threshold still armed.
        // The update also orders two workers on this instruction (PostgreSQL: its row lock).
        const threshold = inst.trigger === "threshold";
        const mine = await tx.payoutInstruction.updateMany({
          where: { id: inst.id, status: "active", revokedAt: null, ...(threshold ? { armed: true } : {}) },
          data: threshold ? { armed: false, crossings: { increment: 1 } } : { crossings: { increment: 1 } },
        });
        if (mine.count !== 1) throw new NotNow();
        const { crossings } = await tx.payoutInstruction.findUniqueOrThrow({ where: { id: inst.id }, select: { crossings: true } });
        // The caps again, inside the write: what other passes paid meanwhile counts.
        const paid = new D(await paidThisMonthUsd(tx, inst.resellerId, now));
        if (new D(terms.usdValue).gt(capUsd(inst, paid))) throw new NotNow();
        await tx.payoutRun.create({
          data: {
            id: runId,
            instructionId: inst.id,
            resellerId: inst.resellerId,
            period: period ?? `t${crossings}`,
            usdValue: terms.usdValue,
            createdAt: now,
          },
        });
        await opts.onStep?.("after_run_row", inst.id);
        const auto: WithdrawalTerms = { ...terms, nonce: `auto-${runId}` };
        await queueWithdrawal(tx, { id: newId(), resellerId: inst.resellerId, terms: auto, now, payoutRunId: runId });
      },
      { timeout: 30_000, maxWait: 30_000 },
    );
  } catch (e) {
    // Paid by another pass meanwhile (its run's unique period), revoked, or the balances moved: nothing now.
    if (e instanceof NotNow || isUniqueViolation(e) || e instanceof InsufficientBalanceError) return false;
    throw e;
  }
  getLogger().info(
    { instructionId: inst.id, resellerId: inst.resellerId, runId, usdValue: terms.usdValue, asset: terms.asset, amount: terms.amount },
    "automatic payout queued",
  );
  return true;
}

/** The most one payout may be worth now: the per-payout cap, or what the monthly cap leaves, the smaller. */
function capUsd(inst: PayoutInstruction, paidThisMonth: Dec): Dec {
  return D.max(0, D.min(inst.maxPerPayoutUsd, new D(inst.maxPerMonthUsd).minus(paidThisMonth)));
}

/** What a withdrawal of all the available balances into the payout asset is worth in USD now (0 when nothing can be priced). */
async function availableUsd(db: Db, pricing: Parameters<typeof priceWithdrawal>[1]): Promise<Dec> {
  try {
    return new D((await priceWithdrawal(db, pricing)).usdValue);
  } catch (e) {
    // Below the chain's minimum: its error carries the value.
    if (e instanceof AppError && e.code === "WITHDRAWAL_TOO_SMALL") return new D(String(e.details?.usdValue ?? 0));
    if (e instanceof AppError && e.code === "INSUFFICIENT_BALANCE") return new D(0);
    throw e;
  }
}
