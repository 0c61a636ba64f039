import "server-only";
import { type Db, joinSql, type Order, queryOnPool, rawSql, sql } from "@/lib/db/client";
import { newId } from "@/lib/ids";
import { providerPending } from "@/lib/ledger/accounts";
import { channelKey } from "@/lib/ledger/channel-daily";
import { dayOf } from "@/lib/ledger/daily";
import { D } from "@/lib/money/decimal";
import { orderInsert } from "./reserve-order";

/**
 * PostgreSQL: opens an order in one statement, where the general path (create-order.ts,
 * commitOpened) takes an interactive transaction of seven round trips. Data-modifying CTEs run
 * once each, all or nothing, so this is that transaction's outcome in one trip:
 *
 * - the order gets its deposit and engine terms: a reserved order (`token`, its claim) is
 *   updated and its claim cleared, only while the claim holds and no deposit was set (the same
 *   conditions as the general path); a new order (`token` null: a request without an
 *   Idempotency-Key, create-order.ts) is inserted opened, in one write where a reservation
 *   took an insert and an update, and only while the provider's exchange it opens with is
 *   still an open intent, which the statement marks committed (so that a crash recovery
 *   that settled the intent first, lib/orders/recover-intents.ts, leaves no order behind it,
 *   and one that comes after finds it committed);
 * - its first timeline event, "waiting" at its creation time;
 * - the reseller's pending profit: its journal (the entry, the provider's pending commission
 *   against it, the journal row), its Balance row and its daily rollup row, as lib/ledger's recordPendingProfit books it;
 *   and the order counted in its channel rollup row (lib/ledger/channel-daily.ts) (a positive delta cannot take a bucket below zero,
 *   so the upsert needs no guard; a zero profit posts nothing, as post() skips it).
 *
 * It applies only when there is nothing to announce: a reseller with an enabled webhook endpoint
 * gets the general path, which writes the order.created message in the same transaction. False
 * when it did not apply (that, the claim lost, or the intent settled); the caller then takes the
 * general path, which tells them apart.
 */
export async function openOrderPostgres(db: Db, order: Order, token: string | null, now: Date): Promise<boolean> {
  // Profit is rawToAmount - toAmount, never negative (and Balance's CHECK would refuse the
  // statement if it were); keyless orders carry no markup, hence no profit, and no reseller.
  const pending = order.resellerId !== null && new D(order.profit).gt(0);
  // Its journal (lib/ledger's pendingProfitJournal): the entry and the provider's pending commission
  // against it; the Journal row's AFTER trigger, at the end of the statement, sees both and sums them.
  const journalId = newId();
  // The reseller has an enabled webhook endpoint: its order.created is for the general path to write.
  const hooks = sql`EXISTS (SELECT 1 FROM "WebhookEndpoint" w WHERE w."resellerId" = ${order.resellerId}::text AND w."enabled")`;
  const columns = token === null ? (Object.keys(order) as (keyof Order)[]) : null;
  // On the pool, not through Prisma: its CPU per statement was half of what a POST /exchange cost (bench/README.md).
  const rows = await queryOnPool<{ id: number }>(
    db,
    // Named per column list: a prepared statement's name must always go with one text.
    columns ? `open-new-order-${orderInsert(columns).pg.name}` : "open-order",
    sql`
    WITH ${
      columns
        ? insertOpened(order, columns, hooks, now)
        : sql`o AS (
      UPDATE "Order" SET
        "rate" = ${order.rate}::numeric, "rawToAmount" = ${order.rawToAmount}::numeric,
        "toAmount" = ${order.toAmount}::numeric, "profit" = ${order.profit}::numeric,
        "provider" = ${order.provider}, "upstreamId" = ${order.upstreamId}, "upstreamData" = ${order.upstreamData},
        "expiresAt" = ${order.expiresAt}, "payinAddress" = ${order.payinAddress}, "payinExtraId" = ${order.payinExtraId},
        "leaseToken" = NULL, "leaseUntil" = NULL, "nextActionAt" = ${order.nextActionAt}, "updatedAt" = ${now}
      WHERE "id" = ${order.id} AND "leaseToken" = ${token} AND "payinAddress" IS NULL
        AND NOT ${hooks}
      RETURNING "id"`
    }
    ), ev AS (
      INSERT INTO "OrderEvent" ("orderId", "status", "at") SELECT "id", 'waiting', ${order.createdAt}::timestamp(3) FROM o RETURNING "id"
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
    ), bal AS (
      -- The reseller's rows last (reading journal's row orders them): every order of a reseller
      -- waits for these rows' locks, held to the commit, so the less that runs after them the
      -- more orders a reseller can open at once.
      INSERT INTO "Balance" ("resellerId", "currency", "pending", "updatedAt")
      SELECT ${order.resellerId}::text, ${order.toCurrency}::text, ${order.profit}::numeric, ${now}::timestamp(3) FROM journal
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
    )
    SELECT "id" FROM ev`,
  );
  return rows.length === 1;
}

/**
 * The Order's columns that are not text, with their PostgreSQL types: the new order's values
 * go through a SELECT (for its conditions), where a parameter's type is not inferred from
 * its column as in VALUES. tests/db/open-order-in-one.test.ts holds this against the schema.
 */
export const ORDER_COLUMN_TYPES: Partial<Record<keyof Order, string>> = {
  fromAmount: "numeric",
  rate: "numeric",
  rawToAmount: "numeric",
  toAmount: "numeric",
  profit: "numeric",
  amountReceived: "numeric",
  refundAmount: "numeric",
  platformFeeBps: "int4",
  markupBps: "int4",
  attempts: "int4",
  expiresAt: "timestamp",
  nextActionAt: "timestamp",
  createdAt: "timestamp",
  updatedAt: "timestamp",
  leaseUntil: "timestamp",
  stuckAt: "timestamp",
  depositedAt: "timestamp",
  fixedUntil: "timestamp",
};

/**
 * The `o` CTE of a new order (openOrderPostgres, `token` null), after an `i` CTE that marks its
 * provider exchange's intent committed. The order is inserted when no enabled webhook endpoint
 * waits for its order.created, and, when an intent was written for it, only if its exchange's
 * intent was still open (the UPDATE waits for a recovery that holds the row, then finds it settled).
 */
function insertOpened(order: Order, columns: (keyof Order)[], hooks: ReturnType<typeof sql>, now: Date) {
  return sql`i AS (
      UPDATE "UpstreamIntent" SET "outcome" = 'committed', "resolvedAt" = ${now}::timestamp(3)
      WHERE "orderId" = ${order.id}::text AND "provider" = ${order.provider}::text AND "upstreamId" = ${order.upstreamId}::text
        AND "outcome" IS NULL AND NOT ${hooks}
      RETURNING 1
    ), o AS (
      INSERT INTO "Order" (${rawSql(columns.map((c) => `"${c}"`).join(", "))})
      SELECT ${joinSql(columns.map((c) => sql`${order[c]}::${rawSql(ORDER_COLUMN_TYPES[c] ?? "text")}`))}
      WHERE NOT ${hooks}
        AND (${order.upstreamId === null}::boolean OR EXISTS (SELECT 1 FROM i) OR NOT EXISTS (SELECT 1 FROM "UpstreamIntent" x WHERE x."orderId" = ${order.id}::text))
      RETURNING "id"`;
}
