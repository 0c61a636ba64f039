import "server-only";
import { getConfig } from "@/lib/config";
import { type Db, isUniqueViolation, type Operator } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { normalizeWallet } from "@/lib/resellers/resellers";
import { type Actor, recordAudit, SYSTEM_ACTOR } from "./audit";
import { isOperatorRole, type OperatorRole } from "./roles";

// The console's operators (issue 52): a wallet and a role. Admins add and remove the others
// in the console; the first admin comes from OPERATOR_ADMIN_WALLET or the CLI (operator:add).
// Never deleted: a removed operator keeps its row (removedAt), so the audit log keeps naming
// it, and its sessions end at once.

export interface OperatorView {
  id: string;
  wallet: string;
  role: string;
  addedBy: string | null;
  createdAt: string;
  removedAt: string | null;
}

export const toOperatorView = (o: Operator): OperatorView => ({
  id: o.id,
  wallet: o.walletAddress,
  role: o.role,
  addedBy: o.addedBy,
  createdAt: o.createdAt.toISOString(),
  removedAt: o.removedAt?.toISOString() ?? null,
});

function roleOf(role: unknown): OperatorRole {
  if (!isOperatorRole(role)) throw new AppError("INVALID_REQUEST", "role: expected admin, support, finance or viewer.");
  return role;
}

export async function listOperators(db: Db, opts: { includeRemoved?: boolean } = {}): Promise<OperatorView[]> {
  const rows = await db.operator.findMany({ where: opts.includeRemoved ? {} : { removedAt: null }, orderBy: { createdAt: "asc" } });
  return rows.map(toOperatorView);
}

/** The active operator of a wallet, if any. */
export function findActiveOperator(db: Db, opts: { walletAddress: string }) {
  return db.operator.findFirst({ where: { walletAddress: opts.walletAddress.toLowerCase(), removedAt: null } });
}

/**
 * Adds an operator, or gives an active one a new role (the same wallet is one operator). A
 * removed operator's wallet comes back as the same row, active again. Recorded in the audit log.
 */
export async function addOperator(db: Db, opts: { walletAddress: string; role: string; by: Actor; now?: Date }): Promise<OperatorView> {
  const wallet = normalizeWallet(opts.walletAddress);
  const role = roleOf(opts.role);
  const now = opts.now ?? new Date();
  return writeTransaction(db, async (tx) => {
    const existing = await tx.operator.findUnique({ where: { walletAddress: wallet } });
    if (existing && !existing.removedAt && existing.role === role) return toOperatorView(existing);
    if (existing && !existing.removedAt && existing.role === "admin" && role !== "admin") await assertAnotherAdmin(tx as Db, existing.id);
    let row: Operator;
    try {
      row = existing
        ? await tx.operator.update({ where: { id: existing.id }, data: { role, removedAt: null } })
        : await tx.operator.create({ data: { id: newId(), walletAddress: wallet, role, addedBy: opts.by.operatorId, createdAt: now } });
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError("INVALID_REQUEST", "That wallet was added meanwhile; try again.");
      throw e;
    }
    if (existing && !existing.removedAt)
      await tx.operatorSession.updateMany({ where: { operatorId: existing.id, endedAt: null }, data: { endedAt: now } });
    await recordAudit(tx, opts.by, {
      action: existing && !existing.removedAt ? "operator.role" : "operator.add",
      targetType: "operator",
      targetId: row.id,
      before: existing && !existing.removedAt ? { role: existing.role } : null,
      after: { wallet, role },
      at: now,
    });
    return toOperatorView(row);
  });
}

async function assertAnotherAdmin(db: Db, operatorId: string) {
  const others = await db.operator.count({ where: { role: "admin", removedAt: null, id: { not: operatorId } } });
  if (others === 0) throw new AppError("LAST_ADMIN", "The console must keep at least one admin; add another admin first.");
}

/** Removes an operator: its sessions end at once. The last admin cannot be removed. */
export async function removeOperator(
  db: Db,
  opts: { operatorId: string; by: Actor; reason?: string | null; now?: Date },
): Promise<OperatorView> {
  const now = opts.now ?? new Date();
  return writeTransaction(db, async (tx) => {
    const op = await tx.operator.findUnique({ where: { id: opts.operatorId } });
    if (!op || op.removedAt) throw new AppError("NOT_FOUND", "No such operator.");
    if (op.role === "admin") await assertAnotherAdmin(tx as Db, op.id);
    const row = await tx.operator.update({ where: { id: op.id }, data: { removedAt: now } });
    await tx.operatorSession.updateMany({ where: { operatorId: op.id, endedAt: null }, data: { endedAt: now } });
    await recordAudit(tx, opts.by, {
      action: "operator.remove",
      targetType: "operator",
      targetId: op.id,
      before: { wallet: op.walletAddress, role: op.role },
      reason: opts.reason ?? null,
      at: now,
    });
    return toOperatorView(row);
  });
}

/**
 * At start (server.ts through createApp): OPERATOR_ADMIN_WALLET becomes an admin when the
 * console has no active admin. A setting never overrides admins made in the console.
 */
export async function ensureFirstAdmin(db: Db): Promise<OperatorView | null> {
  const wallet = getConfig().OPERATOR_ADMIN_WALLET;
  if (!wallet) return null;
  if (await db.operator.count({ where: { role: "admin", removedAt: null } })) return null;
  return addOperator(db, { walletAddress: wallet, role: "admin", by: SYSTEM_ACTOR });
}
