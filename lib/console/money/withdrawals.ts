import "server-only";
import type { Db, Withdrawal, WithdrawalLeg } from "@/lib/db/client";
import { decodeKeysetCursor, encodeKeysetCursor } from "@/lib/db/keyset-cursor";
import { AppError } from "@/lib/errors";
import { toWithdrawalRow, WITH_LEGS } from "@/lib/withdrawals/serialize-withdrawal";
import type { WithdrawalRow, WithdrawalStatus } from "@/lib/withdrawals/types";

// The console's withdrawals (issue 52): every reseller's, newest first, by keyset pages, with
// what the operator needs beyond the reseller's view: whose it is, its approval or rejection,
// and the worker's attempts.

export interface ConsoleWithdrawal extends WithdrawalRow {
  reseller: { id: string; wallet: string };
  approvedBy: string | null;
  approvedAt: string | null;
  rejectedBy: string | null;
  rejectedAt: string | null;
  rejectionReason: string | null;
  attempts: number;
  lastError: string | null;
}

export interface ConsoleWithdrawalPage {
  withdrawals: ConsoleWithdrawal[];
  /** The cursor of the next (older) page; null on the last. */
  next: string | null;
}

type Row = Withdrawal & { legs: WithdrawalLeg[]; reseller: { walletAddress: string } };

export const toConsoleWithdrawal = (w: Row): ConsoleWithdrawal => ({
  ...toWithdrawalRow(w),
  reseller: { id: w.resellerId, wallet: w.reseller.walletAddress },
  approvedBy: w.approvedBy,
  approvedAt: w.approvedAt?.toISOString() ?? null,
  rejectedBy: w.rejectedBy,
  rejectedAt: w.rejectedAt?.toISOString() ?? null,
  rejectionReason: w.rejectionReason,
  attempts: w.attempts,
  lastError: w.lastError,
});

const INCLUDE = { ...WITH_LEGS, reseller: { select: { walletAddress: true } } };

const isWithdrawalId = (id: unknown): id is string => typeof id === "string" && id.length <= 100;

/** Every reseller's withdrawals, newest first (creation time, then id), `limit` a page. */
export async function listConsoleWithdrawals(
  db: Db,
  opts: { status?: WithdrawalStatus; cursor?: string; limit?: number } = {},
): Promise<ConsoleWithdrawalPage> {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const after = opts.cursor ? decodeKeysetCursor(opts.cursor, isWithdrawalId) : null;
  const rows = await db.withdrawal.findMany({
    where: {
      ...(opts.status ? { status: opts.status } : {}),
      ...(after ? { OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    include: INCLUDE,
  });
  const page = rows.slice(0, limit);
  return {
    withdrawals: page.map(toConsoleWithdrawal),
    next: rows.length > limit ? encodeKeysetCursor({ at: page[page.length - 1].createdAt, id: page[page.length - 1].id }) : null,
  };
}

export async function getConsoleWithdrawal(db: Db, id: string): Promise<ConsoleWithdrawal> {
  const w = await db.withdrawal.findUnique({ where: { id }, include: INCLUDE });
  if (!w) throw new AppError("WITHDRAWAL_NOT_FOUND", `No withdrawal ${id}.`);
  return toConsoleWithdrawal(w);
}
