import "server-only";
import { stringify } from "csv-stringify/sync";
import type { AuditEvent, Db, Tx } from "@/lib/db/client";

// The audit log (issue 52): every operator action and sign-in, with who, when, what, before
// and after, and why. Append-only: the database refuses UPDATE and DELETE (the migration's
// triggers), as it does for the ledger. An action's row is written in the transaction of the
// change it records, so there is no change without its row, nor a row without its change.

/** Who acted: an operator of the console, the CLI, or the platform itself. */
export interface Actor {
  operatorId: string | null;
  /** The operator's wallet, "cli" or "system". */
  actor: string;
  role: string | null;
}

export const CLI_ACTOR: Actor = { operatorId: null, actor: "cli", role: null };
export const SYSTEM_ACTOR: Actor = { operatorId: null, actor: "system", role: null };

export interface AuditEntry {
  action: string;
  targetType?: "order" | "reseller" | "withdrawal" | "provider" | "operator" | "upstream_intent" | null;
  targetId?: string | null;
  before?: unknown;
  after?: unknown;
  reason?: string | null;
  at?: Date;
}

const asJson = (v: unknown) =>
  v === undefined || v === null ? null : JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x));

/** Appends one row; call it inside the transaction of the change it records. */
export async function recordAudit(db: Db | Tx, by: Actor, entry: AuditEntry): Promise<AuditEvent> {
  return db.auditEvent.create({
    data: {
      at: entry.at ?? new Date(),
      operatorId: by.operatorId,
      actor: by.actor,
      role: by.role,
      action: entry.action,
      targetType: entry.targetType ?? null,
      targetId: entry.targetId ?? null,
      before: asJson(entry.before),
      after: asJson(entry.after),
      reason: entry.reason ?? null,
    },
  });
}

export interface AuditFilter {
  action?: string;
  /** An action's prefix: "order." for every order action. */
  actionPrefix?: string;
  operatorId?: string;
  actor?: string;
  targetType?: string;
  targetId?: string;
  from?: Date;
  to?: Date;
}

export interface AuditPage {
  events: AuditEventView[];
  /** The id to pass as `before` for the next (older) page; null on the last. */
  next: number | null;
}

export interface AuditEventView {
  id: number;
  at: string;
  operatorId: string | null;
  actor: string;
  role: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  before: unknown;
  after: unknown;
  reason: string | null;
}

const parse = (s: string | null) => (s === null ? null : (JSON.parse(s) as unknown));

export const toAuditView = (e: AuditEvent): AuditEventView => ({
  id: e.id,
  at: e.at.toISOString(),
  operatorId: e.operatorId,
  actor: e.actor,
  role: e.role,
  action: e.action,
  targetType: e.targetType,
  targetId: e.targetId,
  before: parse(e.before),
  after: parse(e.after),
  reason: e.reason,
});

function whereOf(f: AuditFilter, before?: number) {
  return {
    ...(f.action ? { action: f.action } : f.actionPrefix ? { action: { startsWith: f.actionPrefix } } : {}),
    ...(f.operatorId ? { operatorId: f.operatorId } : {}),
    ...(f.actor ? { actor: f.actor.toLowerCase() } : {}),
    ...(f.targetType ? { targetType: f.targetType } : {}),
    ...(f.targetId ? { targetId: f.targetId } : {}),
    ...(f.from || f.to ? { at: { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lt: f.to } : {}) } } : {}),
    ...(before !== undefined ? { id: { lt: before } } : {}),
  };
}

/** Newest first, by keyset on the id (ids grow with time). */
export async function listAudit(db: Db, opts: { filter?: AuditFilter; before?: number; limit?: number }): Promise<AuditPage> {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const rows = await db.auditEvent.findMany({ where: whereOf(opts.filter ?? {}, opts.before), orderBy: { id: "desc" }, take: limit + 1 });
  const page = rows.slice(0, limit);
  return { events: page.map(toAuditView), next: rows.length > limit ? page[page.length - 1].id : null };
}

const CSV_COLUMNS = ["id", "at", "actor", "role", "action", "targetType", "targetId", "reason", "before", "after"] as const;

/** The filtered log as CSV, oldest first, read in pages of 1,000 so a long log never sits in memory at once. */
export async function* auditCsv(db: Db, opts: { filter?: AuditFilter }): AsyncGenerator<string> {
  yield stringify([CSV_COLUMNS as unknown as string[]]);
  let after = 0;
  for (;;) {
    const rows = await db.auditEvent.findMany({
      where: { ...whereOf(opts.filter ?? {}), id: { gt: after } },
      orderBy: { id: "asc" },
      take: 1000,
    });
    if (!rows.length) return;
    yield stringify(
      rows.map((e) => [
        e.id,
        e.at.toISOString(),
        e.actor,
        e.role ?? "",
        e.action,
        e.targetType ?? "",
        e.targetId ?? "",
        e.reason ?? "",
        e.before ?? "",
        e.after ?? "",
      ]),
    );
    after = rows[rows.length - 1].id;
  }
}
