import "server-only";
import type { Db, Order } from "@/lib/db/client";
import { sqliteValue, statementOf, writeOnSqlite } from "@/lib/db/sqlite-direct";
import { newId } from "@/lib/ids";
import { providerPending } from "@/lib/ledger/accounts";
import { channelKey } from "@/lib/ledger/channel-daily";
import { dayOf } from "@/lib/ledger/daily";
import { D, formatAmount } from "@/lib/money/decimal";
import { orderInsert } from "./reserve-order";

const OPEN = `UPDATE "Order" SET
    "rate" = ?, "rawToAmount" = ?, "toAmount" = ?, "profit" = ?, "provider" = ?, "upstreamId" = ?, "upstreamData" = ?,
    "expiresAt" = ?, "payinAddress" = ?, "payinExtraId" = ?, "leaseToken" = NULL, "leaseUntil" = NULL,
    "nextActionAt" = ?, "updatedAt" = ?
  WHERE "id" = ? AND "leaseToken" = ? AND "payinAddress" IS NULL
    AND NOT EXISTS (SELECT 1 FROM "WebhookEndpoint" w WHERE w."resellerId" = ? AND w."enabled")`;
// A new order (token null): the conditions its insert takes (open-order-postgres.ts tells why).
const HOOKS = `SELECT 1 FROM "WebhookEndpoint" w WHERE w."resellerId" = ? AND w."enabled"`;
const COMMIT_INTENT = `UPDATE "UpstreamIntent" SET "outcome" = 'committed', "resolvedAt" = ?
  WHERE "orderId" = ? AND "provider" = ? AND "upstreamId" = ? AND "outcome" IS NULL`;
const ANY_INTENT = `SELECT 1 FROM "UpstreamIntent" WHERE "orderId" = ?`;
const EVENT = `INSERT INTO "OrderEvent" ("orderId", "status", "at") VALUES (?, 'waiting', ?)`;
// Creates the balance row when missing and returns it (the no-op update makes RETURNING give an existing row too).
const BALANCE = `INSERT INTO "Balance" ("resellerId", "currency", "updatedAt") VALUES (?, ?, ?)
  ON CONFLICT ("resellerId", "currency") DO UPDATE SET "updatedAt" = "updatedAt" RETURNING "pending"`;
const PENDING = `UPDATE "Balance" SET "pending" = ?, "updatedAt" = ? WHERE "resellerId" = ? AND "currency" = ? AND "pending" = ?`;
// The entry's daily rollup row (lib/ledger/daily.ts), created when missing and returned, then added to.
const DAILY = `INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency") VALUES (?, 'order_profit_pending', 'pending', ?, ?)
  ON CONFLICT ("resellerId", "kind", "bucket", "day", "currency") DO UPDATE SET "amount" = "amount" RETURNING "amount"`;
const DAILY_ADD = `UPDATE "LedgerDaily" SET "amount" = ?
  WHERE "resellerId" = ? AND "kind" = 'order_profit_pending' AND "bucket" = 'pending' AND "day" = ? AND "currency" = ? AND "amount" = ?`;
// The order's channel rollup row (lib/ledger/channel-daily.ts): a count, exact in SQLite's integers.
const CHANNEL = `INSERT INTO "ChannelDaily" ("resellerId", "day", "channel", "currency", "orders") VALUES (?, ?, ?, ?, 1)
  ON CONFLICT ("resellerId", "day", "channel", "currency") DO UPDATE SET "orders" = "orders" + 1`;
// The pending profit's journal (lib/ledger's pendingProfitJournal): the entry, the provider's pending
// commission against it, then the journal row, last (its trigger sums the two lines).
const ENTRY = `INSERT INTO "LedgerEntry" ("journalId", "resellerId", "orderId", "currency", "bucket", "kind", "amount", "createdAt")
  VALUES (?, ?, ?, ?, 'pending', 'order_profit_pending', ?, ?)`;
const LINE = `INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt") VALUES (?, ?, ?, ?, ?)`;
const JOURNAL = `INSERT INTO "Journal" ("id", "kind", "orderId", "lines", "createdAt") VALUES (?, 'order_created', ?, 2, ?)`;

/**
 * SQLite: opens an order in one synchronous transaction on the writer connection
 * (lib/db/sqlite-direct.ts), where the general path (create-order.ts, commitOpened) takes an
 * interactive Prisma transaction of eight statements. The same outcome, as
 * open-order-postgres.ts gives on PostgreSQL:
 *
 * - the order gets its deposit and engine terms: a reserved order's claim (`token`) is cleared
 *   (only while it holds and no deposit was set: the same conditions as the general path); a
 *   new order (`token` null) is inserted opened, only if the provider exchange it opens with
 *   is still an open intent (marked committed here) or none was written for it;
 * - its first timeline event, "waiting" at its creation time;
 * - the reseller's pending profit: its journal (the entry, the provider's pending commission
 *   against it, the journal row), its Balance row and its daily rollup row, as lib/ledger's recordPendingProfit books it on SQLite
 *   (and the order counted in its channel rollup row, lib/ledger/channel-daily.ts) (the sum made with decimal.js: SQLite's
 *   own arithmetic goes through floats; a positive amount cannot take the bucket below zero).
 *
 * It applies only when there is nothing to announce: a reseller with an enabled webhook
 * endpoint gets the general path, which writes the order.created message in the same
 * transaction. False when it did not apply (that, the claim lost, or the intent settled); the
 * caller then takes the general path, which tells them apart.
 */
export async function openOrderSqlite(db: Db, order: Order, token: string | null, now: Date): Promise<boolean> {
  const v = sqliteValue;
  const profit = new D(order.profit);
  return writeOnSqlite(db, (conn) => {
    if (token === null) {
      if (statementOf(conn, HOOKS).get(order.resellerId)) return false;
      // Without a provider's exchange there is no intent to look for (the engine writes one only before it makes one).
      if (
        order.upstreamId !== null &&
        statementOf(conn, COMMIT_INTENT).run(v(now), order.id, order.provider, order.upstreamId).changes !== 1 &&
        statementOf(conn, ANY_INTENT).get(order.id)
      )
        return false;
      statementOf(conn, orderInsert(Object.keys(order)).sqlite).run(...Object.values(order).map(v));
    } else if (
      statementOf(conn, OPEN).run(
        order.rate,
        order.rawToAmount,
        order.toAmount,
        order.profit,
        order.provider,
        order.upstreamId,
        order.upstreamData,
        v(order.expiresAt),
        order.payinAddress,
        order.payinExtraId,
        v(order.nextActionAt),
        v(now),
        order.id,
        token,
        order.resellerId,
      ).changes !== 1
    )
      return false;
    statementOf(conn, EVENT).run(order.id, v(order.createdAt));
    // Keyless orders carry no markup, hence no profit; a zero profit posts nothing, as post() skips it.
    if (order.resellerId !== null && profit.gt(0)) {
      const { pending } = statementOf(conn, BALANCE).get(order.resellerId, order.toCurrency, v(now)) as { pending: string };
      const moved = statementOf(conn, PENDING).run(
        formatAmount(new D(pending).plus(profit)),
        v(now),
        order.resellerId,
        order.toCurrency,
        pending,
      );
      // The write lock is ours since BEGIN IMMEDIATE: nobody changed the row since it was read.
      if (moved.changes !== 1) throw new Error(`balance of ${order.resellerId} in ${order.toCurrency} changed under a write lock`);
      const day = dayOf(now);
      const daily = statementOf(conn, DAILY).get(order.resellerId, day, order.toCurrency) as { amount: string };
      const sum = new D(daily.amount).plus(profit);
      const added = statementOf(conn, DAILY_ADD).run(
        sum.isZero() ? "0" : formatAmount(sum),
        order.resellerId,
        day,
        order.toCurrency,
        daily.amount,
      );
      if (added.changes !== 1) throw new Error(`rollup of ${order.resellerId} in ${order.toCurrency} changed under a write lock`);
      const journalId = newId();
      statementOf(conn, ENTRY).run(journalId, order.resellerId, order.id, order.toCurrency, order.profit, v(now));
      statementOf(conn, LINE).run(journalId, providerPending(order.provider), order.toCurrency, formatAmount(profit.neg()), v(now));
      statementOf(conn, JOURNAL).run(journalId, order.id, v(now));
    }
    // After the Balance and LedgerDaily rows, as every change takes them.
    if (order.resellerId !== null)
      statementOf(conn, CHANNEL).run(order.resellerId, dayOf(order.createdAt), channelKey(order.channel), order.fromCurrency);
    return true;
  });
}
