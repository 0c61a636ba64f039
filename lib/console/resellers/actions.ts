import "server-only";
import { getConfig } from "@/lib/config";
import type { Db, Reseller, Tx } from "@/lib/db/client";
import { announceKeyChange } from "@/lib/db/key-changes";
import { lockReseller } from "@/lib/db/reseller-lock";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { markResellerKeysChanged } from "@/lib/keys/api-keys";
import { type Actor, recordAudit } from "@/lib/operators/audit";

// What an operator does to a reseller in the console (issue 52, docs/operator.md "Resellers"):
// suspend, restore, cap its markup, write a note. Each change and its audit row are one
// transaction (recordAudit); each action is idempotent: asked again with nothing left to change,
// it answers the reseller as it is and writes nothing (`changed: false`).
//
// A suspension: the reseller's API keys answer 403 RESELLER_SUSPENDED on every v1 endpoint
// (lib/keys/api-keys.ts; on every instance within KEY_CACHE_TTL_MS, announced as a revocation
// is), its hosted page and widgets say the service is unavailable and take no order
// (lib/hosted), its queued withdrawals wait and new ones are refused (lib/withdrawals); its open
// orders go on to their end, their status pages keep working. Nothing else changes: keys,
// widgets, sessions, balances stay as they were, and a restore brings everything back.

export interface ResellerState {
  id: string;
  wallet: string;
  suspendedAt: string | null;
  markupBps: number;
  markupCapBps: number | null;
}

export interface ActionResult {
  reseller: ResellerState;
  /** False when the action found nothing to change (asked twice): no row was written. */
  changed: boolean;
}

/** What a reseller id can be (base58 from newId; printable ASCII without spaces at most): anything else is no reseller. */
const ID_RE = /^[\x21-\x7e]{1,100}$/;

const stateOf = (r: Reseller): ResellerState => ({
  id: r.id,
  wallet: r.walletAddress,
  suspendedAt: r.suspendedAt?.toISOString() ?? null,
  markupBps: r.markupBps,
  markupCapBps: r.markupCapBps,
});

/** The reseller's row, locked until the transaction ends (a second action on it waits, then sees the first's change). */
async function lockedReseller(tx: Tx, resellerId: string): Promise<Reseller> {
  // Not an id at all (PostgreSQL refuses some text outright, a NUL byte): unknown, without asking.
  if (!ID_RE.test(resellerId) || !(await lockReseller(tx, resellerId))) throw new AppError("NOT_FOUND", "No such reseller.");
  const r = await tx.reseller.findUnique({ where: { id: resellerId } });
  if (!r) throw new AppError("NOT_FOUND", "No such reseller.");
  return r;
}

async function setSuspended(
  db: Db,
  opts: { resellerId: string; suspended: boolean; by: Actor; reason: string; now?: Date },
): Promise<ActionResult> {
  const now = opts.now ?? new Date();
  const result = await writeTransaction(db, async (tx) => {
    const r = await lockedReseller(tx, opts.resellerId);
    if (!!r.suspendedAt === opts.suspended) return { reseller: stateOf(r), changed: false };
    const after = await tx.reseller.update({ where: { id: r.id }, data: { suspendedAt: opts.suspended ? now : null } });
    // The key lookups of every process learn it at commit (the triggers do not watch suspendedAt).
    await markResellerKeysChanged(tx, r.id);
    await recordAudit(tx, opts.by, {
      action: opts.suspended ? "reseller.suspend" : "reseller.restore",
      targetType: "reseller",
      targetId: r.id,
      before: { suspendedAt: r.suspendedAt?.toISOString() ?? null },
      after: { suspendedAt: after.suspendedAt?.toISOString() ?? null },
      reason: opts.reason,
      at: now,
    });
    return { reseller: stateOf(after), changed: true };
  });
  if (result.changed) await announceKeyChange(`r:${opts.resellerId}`);
  return result;
}

/** Suspends a reseller (see above); a suspended one stays as it is. */
export const suspendReseller = (db: Db, opts: { resellerId: string; by: Actor; reason: string; now?: Date }) =>
  setSuspended(db, { ...opts, suspended: true });

/** Lifts a suspension: keys, pages, widgets and withdrawals work again at once (keys: within the key cache's bound). */
export const unsuspendReseller = (db: Db, opts: { resellerId: string; by: Actor; reason: string; now?: Date }) =>
  setSuspended(db, { ...opts, suspended: false });

/**
 * Sets (or, with null, lifts) the reseller's markup cap, from 0 to MARKUP_CAP_BPS. A cap below
 * what the reseller charges now lowers it to the cap, in the same transaction: the reseller's
 * markup, and each of its keys' and widgets' own markups above the cap (the audit row's `after`
 * says how many). From then on the reseller cannot set more (INVALID_MARKUP, lib/resellers and
 * lib/channels). Orders already made keep their markup.
 */
export async function setMarkupCap(
  db: Db,
  opts: { resellerId: string; capBps: number | null; by: Actor; reason: string; now?: Date },
): Promise<ActionResult & { lowered: { reseller: boolean; keys: number; widgets: number } }> {
  const cap = opts.capBps;
  const max = getConfig().MARKUP_CAP_BPS;
  if (cap !== null && (!Number.isInteger(cap) || cap < 0 || cap > max))
    throw new AppError("INVALID_REQUEST", `capBps: a whole number of basis points from 0 to ${max}, or null.`, { maxBps: max });
  const now = opts.now ?? new Date();
  const none = { reseller: false, keys: 0, widgets: 0 };
  const result = await writeTransaction(db, async (tx) => {
    const r = await lockedReseller(tx, opts.resellerId);
    if (r.markupCapBps === cap) return { reseller: stateOf(r), changed: false, lowered: none };
    const lowerReseller = cap !== null && r.markupBps > cap;
    const after = await tx.reseller.update({
      where: { id: r.id },
      data: { markupCapBps: cap, ...(lowerReseller ? { markupBps: cap } : {}) },
    });
    const keys =
      cap === null
        ? 0
        : (await tx.apiKey.updateMany({ where: { resellerId: r.id, markupBps: { gt: cap } }, data: { markupBps: cap } })).count;
    const widgets =
      cap === null
        ? 0
        : (await tx.widget.updateMany({ where: { resellerId: r.id, markupBps: { gt: cap } }, data: { markupBps: cap } })).count;
    const lowered = { reseller: lowerReseller, keys, widgets };
    await recordAudit(tx, opts.by, {
      action: "reseller.markup_cap",
      targetType: "reseller",
      targetId: r.id,
      before: { markupCapBps: r.markupCapBps, markupBps: r.markupBps },
      after: { markupCapBps: cap, markupBps: after.markupBps, keysLowered: keys, widgetsLowered: widgets },
      reason: opts.reason,
      at: now,
    });
    return { reseller: stateOf(after), changed: true, lowered };
  });
  if (result.lowered.reseller || result.lowered.keys) await announceKeyChange(`r:${opts.resellerId}`);
  return result;
}

export const MAX_NOTE = 2000;

/**
 * A note on a reseller: a row of the audit log (action reseller.note, the text in `after`),
 * so it is kept as the log is, never changed nor removed. The same text as the reseller's last
 * note is that note (a retried request writes nothing twice).
 */
export async function addResellerNote(
  db: Db,
  opts: { resellerId: string; text: string; by: Actor; now?: Date },
): Promise<{ note: { id: number; at: string; actor: string; text: string }; changed: boolean }> {
  const text = opts.text.trim();
  if (!text || text.length > MAX_NOTE) throw new AppError("INVALID_REQUEST", `text: a note of 1 to ${MAX_NOTE} characters.`);
  const now = opts.now ?? new Date();
  return writeTransaction(db, async (tx) => {
    await lockedReseller(tx, opts.resellerId);
    const last = await tx.auditEvent.findFirst({
      where: { targetType: "reseller", targetId: opts.resellerId, action: "reseller.note" },
      orderBy: { id: "desc" },
    });
    if (last?.after && (JSON.parse(last.after) as { text?: string }).text === text)
      return { note: { id: last.id, at: last.at.toISOString(), actor: last.actor, text }, changed: false };
    const row = await recordAudit(tx, opts.by, {
      action: "reseller.note",
      targetType: "reseller",
      targetId: opts.resellerId,
      after: { text },
      at: now,
    });
    return { note: { id: row.id, at: row.at.toISOString(), actor: row.actor, text }, changed: true };
  });
}
