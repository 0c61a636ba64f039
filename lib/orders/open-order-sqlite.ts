import "server-only";
import type Database from "better-sqlite3";
import type { Db } from "@/lib/db/client";
import { sqliteValue, statementOf, writeOnSqlite } from "@/lib/db/sqlite-direct";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";
import { OPENED_COLUMNS, type OpeningPlan, oneStepApplies } from "./opening";
import { orderInsert } from "./reserve-order";

const OPEN = `UPDATE "Order" SET ${OPENED_COLUMNS.map((c) => `"${c}" = ?`).join(", ")}
  WHERE "id" = ? AND "leaseToken" = ? AND "payinAddress" IS NULL`;
// A reseller's order is announced by the general path when an endpoint is enabled.
const HOOKS = `SELECT 1 FROM "WebhookEndpoint" w WHERE w."resellerId" = ? AND w."enabled"`;
// A new order (token null): the conditions its insert takes (open-order-postgres.ts tells why).
const COMMIT_INTENT = `UPDATE "UpstreamIntent" SET "outcome" = 'committed', "resolvedAt" = ?
  WHERE "orderId" = ? AND "provider" = ? AND "upstreamId" = ? AND "outcome" IS NULL`;
const ANY_INTENT = `SELECT 1 FROM "UpstreamIntent" WHERE "orderId" = ?`;
const EVENT = `INSERT INTO "OrderEvent" ("orderId", "status", "at") VALUES (?, ?, ?)`;
// Creates the balance row when missing and returns it (the no-op update makes RETURNING give an existing row too).
const BALANCE = `INSERT INTO "Balance" ("resellerId", "currency", "updatedAt") VALUES (?, ?, ?)
  ON CONFLICT ("resellerId", "currency") DO UPDATE SET "updatedAt" = "updatedAt" RETURNING "pending", "available", "reserved"`;
const BALANCE_SET = `UPDATE "Balance" SET "pending" = ?, "available" = ?, "reserved" = ?, "updatedAt" = ?
  WHERE "resellerId" = ? AND "currency" = ? AND "pending" = ? AND "available" = ? AND "reserved" = ?`;
// A daily rollup row (lib/ledger/daily.ts), created when missing and returned, then added to.
const DAILY = `INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency") VALUES (?, ?, ?, ?, ?)
  ON CONFLICT ("resellerId", "kind", "bucket", "day", "currency") DO UPDATE SET "amount" = "amount" RETURNING "amount"`;
const DAILY_SET = `UPDATE "LedgerDaily" SET "amount" = ?
  WHERE "resellerId" = ? AND "kind" = ? AND "bucket" = ? AND "day" = ? AND "currency" = ? AND "amount" = ?`;
// A channel rollup row (lib/ledger/channel-daily.ts) whose change is counts only: exact in SQLite's integers.
const CHANNEL_COUNTS = `INSERT INTO "ChannelDaily" ("resellerId", "day", "channel", "currency", "orders", "finished") VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT ("resellerId", "day", "channel", "currency") DO UPDATE SET "orders" = "orders" + excluded."orders", "finished" = "finished" + excluded."finished"`;
// One whose sums change too: created when missing and returned, then set (decimal.js; SQLite's arithmetic goes through floats).
const CHANNEL = `INSERT INTO "ChannelDaily" ("resellerId", "day", "channel", "currency") VALUES (?, ?, ?, ?)
  ON CONFLICT ("resellerId", "day", "channel", "currency") DO UPDATE SET "volume" = "volume" RETURNING "volume", "profit"`;
const CHANNEL_SET = `UPDATE "ChannelDaily" SET "orders" = "orders" + ?, "finished" = "finished" + ?, "volume" = ?, "profit" = ?
  WHERE "resellerId" = ? AND "day" = ? AND "channel" = ? AND "currency" = ? AND "volume" = ? AND "profit" = ?`;
const ENTRY = `INSERT INTO "LedgerEntry" ("journalId", "resellerId", "orderId", "withdrawalId", "currency", "bucket", "kind", "amount", "createdAt")
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const LINE = `INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt") VALUES (?, ?, ?, ?, ?)`;
const JOURNAL = `INSERT INTO "Journal" ("id", "kind", "orderId", "withdrawalId", "lines", "createdAt") VALUES (?, ?, ?, ?, ?, ?)`;

/** Canonical text of a sum ("0", never "-0"). */
const text = (x: Dec) => (x.isZero() ? "0" : formatAmount(x));

/** The write lock is ours since BEGIN IMMEDIATE: a row read under it cannot have changed before the conditional update. */
function changed(what: string): never {
  throw new Error(`${what} changed under a write lock`);
}

/**
 * SQLite: writes an order's opening plan (opening.ts) in one synchronous transaction on the
 * writer connection (lib/db/sqlite-direct.ts), where the general path (open-order-prisma.ts)
 * takes an interactive Prisma transaction of eight statements: the order (a new one inserted
 * only while the provider exchange it opens with is still an open intent, marked committed
 * here, or none was written for it; a reserved one only while its claim holds and it has no
 * deposit), its first event, and its journal's rows in postJournal's order (balances, daily and
 * channel rollups, entries, lines, the journal row last: its trigger sums the lines). Sums are
 * made with decimal.js, each update conditional on the value read.
 *
 * It applies only when there is nothing to announce: a reseller with an enabled webhook
 * endpoint gets the general path, which writes the order.created message in the same
 * transaction. False when it did not apply (that, the claim lost, or the intent settled); the
 * caller then takes the general path, which tells them apart.
 */
export async function openOrderSqlite(db: Db, plan: OpeningPlan): Promise<boolean> {
  if (!oneStepApplies(plan)) return false;
  const v = sqliteValue;
  const { order, write, now, event, journal: j } = plan;
  return writeOnSqlite(db, (conn) => {
    if (plan.ofReseller && statementOf(conn, HOOKS).get(order.resellerId)) return false;
    if (write.token === null) {
      // Without a provider's exchange there is no intent to look for (the engine writes one only before it makes one).
      const { intent } = write;
      if (
        intent !== null &&
        statementOf(conn, COMMIT_INTENT).run(v(now), order.id, intent.provider, intent.upstreamId).changes !== 1 &&
        statementOf(conn, ANY_INTENT).get(order.id)
      )
        return false;
      statementOf(conn, orderInsert(Object.keys(order)).sqlite).run(...Object.values(order).map(v));
    } else if (statementOf(conn, OPEN).run(...OPENED_COLUMNS.map((c) => v(write.set[c])), order.id, write.token).changes !== 1)
      return false;
    statementOf(conn, EVENT).run(event.orderId, event.status, v(event.at));
    writeJournal(conn, j);
    return true;
  });
}

/** The journal plan's rows, in postJournal's order (lib/ledger/ledger.ts, applyJournalPlan). */
function writeJournal(conn: Database.Database, j: OpeningPlan["journal"]): void {
  const v = sqliteValue;
  const at = v(j.at);
  for (const b of j.balances) {
    const row = statementOf(conn, BALANCE).get(b.resellerId, b.currency, at) as { pending: string; available: string; reserved: string };
    const next = [new D(row.pending).plus(b.pending), new D(row.available).plus(b.available), new D(row.reserved).plus(b.reserved)];
    const r = statementOf(conn, BALANCE_SET).run(...next.map(text), at, b.resellerId, b.currency, row.pending, row.available, row.reserved);
    if (r.changes !== 1) changed(`balance of ${b.resellerId} in ${b.currency}`);
  }
  for (const d of j.daily) {
    const row = statementOf(conn, DAILY).get(d.resellerId, d.kind, d.bucket, d.day, d.currency) as { amount: string };
    const r = statementOf(conn, DAILY_SET).run(
      text(new D(row.amount).plus(d.amount)),
      d.resellerId,
      d.kind,
      d.bucket,
      d.day,
      d.currency,
      row.amount,
    );
    if (r.changes !== 1) changed(`rollup of ${d.resellerId} in ${d.currency}`);
  }
  for (const c of j.channels) {
    if (c.volume.isZero() && c.profit.isZero()) {
      statementOf(conn, CHANNEL_COUNTS).run(c.resellerId, c.day, c.channel, c.currency, c.orders, c.finished);
      continue;
    }
    const row = statementOf(conn, CHANNEL).get(c.resellerId, c.day, c.channel, c.currency) as { volume: string; profit: string };
    const sums = [text(new D(row.volume).plus(c.volume)), text(new D(row.profit).plus(c.profit))];
    const r = statementOf(conn, CHANNEL_SET).run(
      c.orders,
      c.finished,
      ...sums,
      c.resellerId,
      c.day,
      c.channel,
      c.currency,
      row.volume,
      row.profit,
    );
    if (r.changes !== 1) changed(`channel rollup of ${c.resellerId} in ${c.currency}`);
  }
  for (const e of j.entries)
    statementOf(conn, ENTRY).run(
      e.journalId,
      e.resellerId,
      e.orderId,
      e.withdrawalId,
      e.currency,
      e.bucket,
      e.kind,
      e.amount,
      v(e.createdAt),
    );
  for (const l of j.lines) statementOf(conn, LINE).run(l.journalId, l.account, l.currency, l.amount, v(l.createdAt));
  const jr = j.journal;
  if (jr) statementOf(conn, JOURNAL).run(jr.id, jr.kind, jr.orderId, jr.withdrawalId, jr.lines, v(jr.createdAt));
}
