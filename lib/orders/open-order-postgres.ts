import "server-only";
import { type Db, type Order, queryOnPool, sql } from "@/lib/db/client";
import { newId } from "@/lib/ids";
import { providerPending } from "@/lib/ledger/accounts";
import { channelKey } from "@/lib/ledger/channel-daily";
import { dayOf } from "@/lib/ledger/daily";
import { D } from "@/lib/money/decimal";

/**
 * PostgreSQL: opens a reserved order in one statement, where the general path (create-order.ts,
 * openOrder) takes an interactive transaction of seven round trips. Data-modifying CTEs run
 * once each, all or nothing, so this is that transaction's outcome in one trip:
 *
 * - the order gets its deposit and engine terms, and its claim is cleared (only while the
 *   caller's claim holds and no deposit was set: the same conditions as the general path);
 * - its first timeline event, "waiting" at its creation time;
 * - the reseller's pending profit: its journal (the entry, the provider's pending commission
 *   against it, the journal row), its Balance row and its daily rollup row, as lib/ledger's recordPendingProfit books it;
 *   and the order counted in its channel rollup row (lib/ledger/channel-daily.ts) (a positive delta cannot take a bucket below zero,
 *   so the upsert needs no guard; a zero profit posts nothing, as post() skips it).
 *
 * It applies only when there is nothing to announce: a reseller with an enabled webhook endpoint
 * gets the general path, which writes the order.created message in the same transaction. False
 * when it did not apply (that, or the claim was lost); the caller then takes the general path,
 * which tells the two apart.
 */
export async function openOrderPostgres(db: Db, order: Order, token: string, now: Date): Promise<boolean> {
  // Profit is rawToAmount - toAmount, never negative (and Balance's CHECK would refuse the
  // statement if it were); keyless orders carry no markup, hence no profit, and no reseller.
  const pending = order.resellerId !== null && new D(order.profit).gt(0);
  // Its journal (lib/ledger's pendingProfitJournal): the entry and the provider's pending commission
  // against it; the Journal row's AFTER trigger, at the end of the statement, sees both and sums them.
  const journalId = newId();
  // On the pool, not through Prisma: its CPU per statement was half of what a POST /exchange cost (bench/README.md).
  const rows = await queryOnPool<{ id: number }>(
    db,
    "open-order",
    sql`
    WITH o AS (
      UPDATE "Order" SET
        "rate" = ${order.rate}::numeric, "rawToAmount" = ${order.rawToAmount}::numeric,
        "toAmount" = ${order.toAmount}::numeric, "profit" = ${order.profit}::numeric,
        "provider" = ${order.provider}, "upstreamId" = ${order.upstreamId}, "upstreamData" = ${order.upstreamData},
        "expiresAt" = ${order.expiresAt}, "payinAddress" = ${order.payinAddress}, "payinExtraId" = ${order.payinExtraId},
        "leaseToken" = NULL, "leaseUntil" = NULL, "nextActionAt" = ${order.nextActionAt}, "updatedAt" = ${now}
      WHERE "id" = ${order.id} AND "leaseToken" = ${token} AND "payinAddress" IS NULL
        AND NOT EXISTS (SELECT 1 FROM "WebhookEndpoint" w WHERE w."resellerId" = ${order.resellerId}::text AND w."enabled")
      RETURNING "id"
    ), ev AS (
      INSERT INTO "OrderEvent" ("orderId", "status", "at") SELECT "id", 'waiting', ${order.createdAt}::timestamp(3) FROM o RETURNING "id"
    ), bal AS (
      INSERT INTO "Balance" ("resellerId", "currency", "pending", "updatedAt")
      SELECT ${order.resellerId}::text, ${order.toCurrency}::text, ${order.profit}::numeric, ${now}::timestamp(3) FROM o WHERE ${pending}
      ON CONFLICT ("resellerId", "currency")
        DO UPDATE SET "pending" = "Balance"."pending" + EXCLUDED."pending", "updatedAt" = EXCLUDED."updatedAt"
      RETURNING 1
    ), daily AS (
      -- The entry's daily rollup row (lib/ledger/daily.ts), after the balance (reading bal's row
      -- orders them): every posting locks the balance, then the rollup rows.
      INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency", "amount")
      SELECT ${order.resellerId}::text, 'order_profit_pending', 'pending', ${dayOf(now)}::text, ${order.toCurrency}::text, ${order.profit}::numeric
      FROM bal
      ON CONFLICT ("resellerId", "kind", "bucket", "day", "currency")
        DO UPDATE SET "amount" = "LedgerDaily"."amount" + EXCLUDED."amount"
      RETURNING 1
    ), chan AS (
      -- The order's channel rollup row (lib/ledger/channel-daily.ts), after the LedgerDaily row
      -- (reading daily's rows orders them; the count is one row whether or not it wrote one).
      INSERT INTO "ChannelDaily" ("resellerId", "day", "channel", "currency", "orders")
      SELECT ${order.resellerId}::text, ${dayOf(order.createdAt)}::text, ${channelKey(order.channel)}::text, ${order.fromCurrency}::text, 1
      FROM o, (SELECT count(*) FROM daily) d WHERE ${order.resellerId !== null}
      ON CONFLICT ("resellerId", "day", "channel", "currency") DO UPDATE SET "orders" = "ChannelDaily"."orders" + 1
      RETURNING 1
    ), entry AS (
      INSERT INTO "LedgerEntry" ("journalId", "resellerId", "orderId", "currency", "bucket", "kind", "amount", "createdAt")
      SELECT ${journalId}::text, ${order.resellerId}::text, "id", ${order.toCurrency}::text, 'pending', 'order_profit_pending', ${order.profit}::numeric, ${now}::timestamp(3)
      FROM o WHERE ${pending}
      RETURNING 1
    ), line AS (
      INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
      SELECT ${journalId}::text, ${providerPending(order.provider)}::text, ${order.toCurrency}::text, -(${order.profit}::numeric), ${now}::timestamp(3)
      FROM o WHERE ${pending}
      RETURNING 1
    ), journal AS (
      -- Reading entry's and line's rows makes them run first: the journal row comes after its lines.
      INSERT INTO "Journal" ("id", "kind", "orderId", "lines", "createdAt")
      SELECT ${journalId}::text, 'order_created', o."id", 2, ${now}::timestamp(3)
      FROM o, entry, line
      RETURNING 1
    )
    SELECT "id" FROM ev`,
  );
  return rows.length === 1;
}
