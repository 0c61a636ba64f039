import "server-only";
import { type Db, providerOf, type Tx } from "@/lib/db/client";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";

// The reseller ledger. Entries are append-only (the database refuses UPDATE and DELETE on
// them); each belongs to one bucket of one (reseller, currency) balance. The Balance row of
// that pair holds the sum of its entries per bucket and is changed in the same transaction as
// the entries, by an update that refuses to take any bucket below zero. Reads of balances are
// one row per currency, never a sum over the whole history.
//
// Everything here runs inside the caller's transaction (`tx`): a state change and the money
// it moves commit together or not at all.

export const BUCKETS = ["pending", "available", "reserved"] as const;
export type Bucket = (typeof BUCKETS)[number];

/** Why an entry was posted. An order posts each kind at most once (unique orderId + kind). */
export const ENTRY_KINDS = [
  "order_profit_pending",
  "order_profit_release",
  "order_profit_settle",
  "order_profit_reverse",
  // A withdrawal (lib/withdrawals), once per balance and bucket: available -> reserved when
  // queued; reserved paid out when confirmed; reserved -> available when it fails.
  "withdrawal_reserve",
  "withdrawal_settle",
  "withdrawal_restore",
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface Posting {
  resellerId: string;
  currency: string;
  bucket: Bucket;
  kind: EntryKind;
  /** Signed amount; a zero posting is skipped. */
  amount: Dec;
  orderId?: string | null;
  withdrawalId?: string | null;
}

export interface Balance {
  currency: string;
  pending: string;
  available: string;
  reserved: string;
}

/** A posting would take a bucket below zero; the transaction must roll back (nothing was changed by it). */
export class InsufficientBalanceError extends Error {
  constructor(
    readonly resellerId: string,
    readonly currency: string,
  ) {
    super(`balance of ${resellerId} in ${currency} is too low for this change`);
    this.name = "InsufficientBalanceError";
  }
}

/** Canonical text of a balance or entry amount ("0", never "-0"). */
const text = (x: Dec) => (x.isZero() ? "0" : formatAmount(x));

type Deltas = Record<Bucket, Dec>;
const zero = (): Deltas => ({ pending: new D(0), available: new D(0), reserved: new D(0) });

/**
 * PostgreSQL: one conditional UPDATE. Row-locked and re-checked by the database after any wait,
 * so concurrent transactions can never together take a bucket below zero.
 */
async function applyDeltasPostgres(tx: Tx, resellerId: string, currency: string, d: Deltas, now: Date): Promise<boolean> {
  await tx.$executeRaw`INSERT INTO "Balance" ("resellerId", "currency", "updatedAt") VALUES (${resellerId}, ${currency}, ${now}) ON CONFLICT DO NOTHING`;
  const [p, a, r] = [text(d.pending), text(d.available), text(d.reserved)];
  const n = await tx.$executeRaw`UPDATE "Balance"
    SET "pending" = "pending" + ${p}::numeric, "available" = "available" + ${a}::numeric,
        "reserved" = "reserved" + ${r}::numeric, "updatedAt" = ${now}
    WHERE "resellerId" = ${resellerId} AND "currency" = ${currency}
      AND "pending" + ${p}::numeric >= 0 AND "available" + ${a}::numeric >= 0 AND "reserved" + ${r}::numeric >= 0`;
  return n === 1;
}

/**
 * SQLite has no exact decimal arithmetic (it would go through floats), so the sum is made with
 * decimal.js. The INSERT comes first because it takes SQLite's write lock, so no other writer
 * changes the row between the read and the update; the update is still conditional on the
 * values read, so a broken assumption fails loudly instead of losing an update.
 */
async function applyDeltasSqlite(tx: Tx, resellerId: string, currency: string, d: Deltas, now: Date): Promise<boolean> {
  // One statement takes the lock, creates the row when missing and returns it (the no-op
  // update makes RETURNING give the existing row too).
  const [row] = await tx.$queryRaw<{ pending: string; available: string; reserved: string }[]>`
    INSERT INTO "Balance" ("resellerId", "currency", "updatedAt") VALUES (${resellerId}, ${currency}, ${now})
    ON CONFLICT ("resellerId", "currency") DO UPDATE SET "updatedAt" = "updatedAt"
    RETURNING "pending", "available", "reserved"`;
  const next = {
    pending: new D(row.pending).plus(d.pending),
    available: new D(row.available).plus(d.available),
    reserved: new D(row.reserved).plus(d.reserved),
  };
  if (next.pending.isNeg() || next.available.isNeg() || next.reserved.isNeg()) return false;
  const r = await tx.balance.updateMany({
    where: { resellerId, currency, pending: row.pending, available: row.available, reserved: row.reserved },
    data: { pending: text(next.pending), available: text(next.available), reserved: text(next.reserved), updatedAt: now },
  });
  if (r.count !== 1) throw new Error(`balance of ${resellerId} in ${currency} changed under a write lock`);
  return true;
}

/**
 * Appends entries and moves the matching balances, atomically, inside the caller's
 * transaction. Throws InsufficientBalanceError when a bucket would go below zero (e.g. a
 * reservation larger than what is available): the caller's transaction then rolls back.
 * Balances are locked in (reseller, currency) order, so two transactions touching the same
 * balances cannot deadlock.
 *
 * Reserving is a posting pair in one call: available -x and reserved +x.
 *
 * On SQLite, call it before the transaction reads anything, or after it wrote something: a
 * transaction that read first cannot take the write lock once another process has committed
 * since its read (SQLITE_BUSY); it fails then, it never loses an update.
 */
export async function post(tx: Tx, postings: Posting[], now = new Date()): Promise<void> {
  const live = postings.filter((p) => !p.amount.isZero());
  if (!live.length) return;
  const groups = new Map<string, { resellerId: string; currency: string; d: Deltas }>();
  for (const p of live) {
    if (!(BUCKETS as readonly string[]).includes(p.bucket)) throw new Error(`unknown bucket ${p.bucket}`);
    const key = JSON.stringify([p.resellerId, p.currency]);
    const g = groups.get(key) ?? { resellerId: p.resellerId, currency: p.currency, d: zero() };
    g.d[p.bucket] = g.d[p.bucket].plus(p.amount);
    groups.set(key, g);
  }
  const apply = providerOf(tx) === "postgresql" ? applyDeltasPostgres : applyDeltasSqlite;
  for (const key of [...groups.keys()].sort()) {
    const g = groups.get(key)!;
    if (!(await apply(tx, g.resellerId, g.currency, g.d, now))) throw new InsufficientBalanceError(g.resellerId, g.currency);
  }
  await tx.ledgerEntry.createMany({
    data: live.map((p) => ({
      resellerId: p.resellerId,
      orderId: p.orderId ?? null,
      withdrawalId: p.withdrawalId ?? null,
      currency: p.currency,
      bucket: p.bucket,
      kind: p.kind,
      amount: text(p.amount),
      createdAt: now,
    })),
  });
}

/** A reseller's balances, one row per currency that ever had an entry, by ticker. */
export async function getBalances(db: Db | Tx, resellerId: string): Promise<Balance[]> {
  const rows = await db.balance.findMany({ where: { resellerId }, orderBy: { currency: "asc" } });
  return rows.map((r) => ({ currency: r.currency, pending: r.pending, available: r.available, reserved: r.reserved }));
}

// An order's profit: pending at creation, released and settled into available when the
// order finishes (on the amount actually received), reversed when it fails.

interface OrderForLedger {
  id: string;
  resellerId: string | null;
  toCurrency: string;
}

async function pendingOfOrder(tx: Tx, orderId: string): Promise<Dec> {
  const rows = await tx.ledgerEntry.findMany({ where: { orderId, bucket: "pending" }, select: { amount: true } });
  return rows.reduce((s, r) => s.plus(r.amount), new D(0));
}

const orderPosting = (order: OrderForLedger, bucket: Bucket, kind: EntryKind, amount: Dec): Posting[] =>
  order.resellerId ? [{ resellerId: order.resellerId, currency: order.toCurrency, orderId: order.id, bucket, kind, amount }] : [];

/** At creation: the expected profit, pending until the order finishes. */
export function recordPendingProfit(tx: Tx, order: OrderForLedger, profit: Dec, now?: Date) {
  return post(tx, orderPosting(order, "pending", "order_profit_pending", profit), now);
}

/** On finished: release what was pending and credit the profit earned on the amount actually received. */
export async function settleProfit(tx: Tx, order: OrderForLedger, earned: Dec, now?: Date) {
  if (!order.resellerId) return;
  const pending = await pendingOfOrder(tx, order.id);
  await post(
    tx,
    [
      ...orderPosting(order, "pending", "order_profit_release", pending.neg()),
      ...orderPosting(order, "available", "order_profit_settle", earned),
    ],
    now,
  );
}

/** On failed: the pending profit is reversed; nothing becomes available. */
export async function reverseProfit(tx: Tx, order: OrderForLedger, now?: Date) {
  if (!order.resellerId) return;
  await post(tx, orderPosting(order, "pending", "order_profit_reverse", (await pendingOfOrder(tx, order.id)).neg()), now);
}

// A withdrawal's balances, per leg (one currency each): available -> reserved when it is
// queued; the reserved amount paid out when it is confirmed; reserved -> available when it fails.

interface WithdrawalForLedger {
  id: string;
  resellerId: string;
  legs: { currency: string; amount: string }[];
}

/** Each leg's amount into `moves`' buckets (+1 in, -1 out), in that order, as entries of `kind`. */
const withdrawalPostings = (w: WithdrawalForLedger, kind: EntryKind, moves: [Bucket, 1 | -1][]): Posting[] =>
  w.legs.flatMap((l) =>
    moves.map(([bucket, sign]): Posting => {
      const amount = new D(l.amount);
      return { resellerId: w.resellerId, currency: l.currency, bucket, kind, amount: sign < 0 ? amount.neg() : amount, withdrawalId: w.id };
    }),
  );

/** Queued: reserves the legs (available -> reserved); InsufficientBalanceError when available no longer covers one. */
export function reserveWithdrawal(tx: Tx, w: WithdrawalForLedger, now?: Date) {
  return post(
    tx,
    withdrawalPostings(w, "withdrawal_reserve", [
      ["available", -1],
      ["reserved", 1],
    ]),
    now,
  );
}

/** Confirmed: the reserved legs are paid out. */
export function settleWithdrawal(tx: Tx, w: WithdrawalForLedger, now?: Date) {
  return post(tx, withdrawalPostings(w, "withdrawal_settle", [["reserved", -1]]), now);
}

/** Failed: the reserved legs go back to available. */
export function restoreWithdrawal(tx: Tx, w: WithdrawalForLedger, now?: Date) {
  return post(
    tx,
    withdrawalPostings(w, "withdrawal_restore", [
      ["reserved", -1],
      ["available", 1],
    ]),
    now,
  );
}
