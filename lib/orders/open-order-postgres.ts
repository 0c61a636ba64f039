import "server-only";
import { type Db, type Order, queryOnPool } from "@/lib/db/client";
import { queryInLane } from "@/lib/db/pg-group-commit";
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
  const columns = token === null ? (Object.keys(order) as (keyof Order)[]) : null;
  const ofReseller = order.resellerId !== null;
  const statement = openStatement(columns, ofReseller);
  // Its journal's id (lib/ledger's pendingProfitJournal): only a reseller's order has a journal to write.
  const at: OpenValues = { order, token, now, journalId: ofReseller ? newId() : "" };
  // On the pool, not through Prisma: its CPU per statement was half of what a POST /exchange cost (bench/README.md).
  const query = { name: statement.name, text: statement.text, values: statement.values.map((v) => v(at)) };
  if (!ofReseller) return (await queryOnPool<{ id: number }>(db, query.name, query)).length === 1;
  // A reseller's orders lock its Balance, LedgerDaily and ChannelDaily rows until their commit:
  // those of the same rows wait for one another anyway, so they commit together (group commit,
  // lib/db/pg-group-commit.ts). The lane names every row the statement locks.
  return (await queryInLane<{ id: number }>(db, hotRowsOf(order, now), query)).length === 1;
}

/** The reseller's rows an opening locks: its Balance and LedgerDaily rows (of the paid currency, today) and its ChannelDaily row. */
function hotRowsOf(order: Order, now: Date): string {
  return [order.resellerId, order.toCurrency, dayOf(now), dayOf(order.createdAt), channelKey(order.channel), order.fromCurrency].join("\n");
}

/** What one opening's parameters are read from. */
interface OpenValues {
  order: Order;
  token: string | null;
  now: Date;
  journalId: string;
}

interface OpenStatement {
  name: string;
  text: string;
  /** Each parameter's value, $1 first. */
  values: ((at: OpenValues) => unknown)[];
}

/**
 * Each statement's text, made once per kind of opening: a reserved order or a new one (by its
 * column list), of a reseller or keyless. Built with Prisma's `sql` on every request, the text
 * took 11 to 13 µs and carried each repeated value as a parameter of its own (about 90, where
 * the statement has 60 distinct ones); now a request only reads its values.
 */
const statements = new Map<string, OpenStatement>();

function openStatement(columns: (keyof Order)[] | null, ofReseller: boolean): OpenStatement {
  const key = `${columns ? orderInsert(columns).pg.name : "reserved"}:${ofReseller ? "reseller" : "keyless"}`;
  let statement = statements.get(key);
  if (!statement) {
    statement = buildOpenStatement(columns, ofReseller, `open-${key}`);
    statements.set(key, statement);
  }
  return statement;
}

/**
 * The statement's text, each parameter named once: `p(name, value)` gives its `$n` (the same
 * one each time the name comes back) and records how a request reads its value. A name keeps
 * one cast wherever it is used (PostgreSQL infers one type per parameter).
 */
function buildOpenStatement(columns: (keyof Order)[] | null, ofReseller: boolean, name: string): OpenStatement {
  const values: OpenStatement["values"] = [];
  const numbers = new Map<string, string>();
  const p = (param: string, value: (at: OpenValues) => unknown): string => {
    let n = numbers.get(param);
    if (n === undefined) {
      values.push(value);
      n = `$${values.length}`;
      numbers.set(param, n);
    }
    return n;
  };
  const col = (c: keyof Order) => p(c, (at) => at.order[c]);
  const now = `${p("now", (at) => at.now)}::timestamp(3)`;
  // Made when first used: a parameter the text does not use would have no type.
  const reseller = () => `${col("resellerId")}::text`;
  // The reseller has an enabled webhook endpoint: its order.created is for the general path to
  // write. A keyless order has no reseller, so no endpoint.
  const noHooks = ofReseller
    ? `NOT EXISTS (SELECT 1 FROM "WebhookEndpoint" w WHERE w."resellerId" = ${reseller()} AND w."enabled")`
    : "true";
  const opened = columns
    ? insertOpened(columns, col, now, noHooks)
    : `o AS (
      UPDATE "Order" SET
        "rate" = ${col("rate")}::numeric, "rawToAmount" = ${col("rawToAmount")}::numeric,
        "toAmount" = ${col("toAmount")}::numeric, "profit" = ${col("profit")}::numeric,
        "provider" = ${col("provider")}::text, "upstreamId" = ${col("upstreamId")}::text, "upstreamData" = ${col("upstreamData")}::text,
        "expiresAt" = ${col("expiresAt")}::timestamp, "payinAddress" = ${col("payinAddress")}::text, "payinExtraId" = ${col("payinExtraId")}::text,
        "leaseToken" = NULL, "leaseUntil" = NULL, "nextActionAt" = ${col("nextActionAt")}::timestamp, "updatedAt" = ${now}
      WHERE "id" = ${col("id")}::text AND "leaseToken" = ${p("token", (at) => at.token)}::text AND "payinAddress" IS NULL
        AND ${noHooks}
      RETURNING "id"
    )`;
  const event = `ev AS (
      INSERT INTO "OrderEvent" ("orderId", "status", "at") SELECT "id", 'waiting', ${col("createdAt")}::timestamp FROM o RETURNING "id"
    )`;
  if (!ofReseller) return checked({ name, text: `WITH ${opened}, ${event} SELECT "id" FROM ev`, values });

  // The reseller's pending profit: its journal (the entry and the provider's pending commission
  // against it, then the journal row), its Balance row and its daily rollup row, as lib/ledger's
  // recordPendingProfit books it; and the order counted in its channel rollup row. Profit is
  // rawToAmount - toAmount, never negative (Balance's CHECK would refuse the statement if it
  // were): a positive delta cannot take a bucket below zero, so the upsert needs no guard; a
  // zero profit posts nothing, as post() skips it.
  const journal = `${p("journalId", (at) => at.journalId)}::text`;
  const profit = `${col("profit")}::numeric`;
  const currency = `${col("toCurrency")}::text`;
  const pending = `${p("pending", (at) => new D(at.order.profit).gt(0))}::boolean`;
  const text = `WITH ${opened}, ${event}, entry AS (
      INSERT INTO "LedgerEntry" ("journalId", "resellerId", "orderId", "currency", "bucket", "kind", "amount", "createdAt")
      SELECT ${journal}, ${reseller()}, "id", ${currency}, 'pending', 'order_profit_pending', ${profit}, ${now}
      FROM o WHERE ${pending}
      RETURNING 1
    ), line AS (
      INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
      SELECT ${journal}, ${p("account", (at) => providerPending(at.order.provider))}::text, ${currency}, -(${profit}), ${now}
      FROM o WHERE ${pending}
      RETURNING 1
    ), journal AS (
      -- Reading entry's and line's rows makes them run first: the journal row comes after its lines.
      INSERT INTO "Journal" ("id", "kind", "orderId", "lines", "createdAt")
      SELECT ${journal}, 'order_created', o."id", 2, ${now}
      FROM o, entry, line
      RETURNING 1
    ), bal AS (
      -- The reseller's rows last (reading journal's row orders them): every order of a reseller
      -- waits for these rows' locks, held to the commit, so the less that runs after them the
      -- more orders a reseller can open at once.
      INSERT INTO "Balance" ("resellerId", "currency", "pending", "updatedAt")
      SELECT ${reseller()}, ${currency}, ${profit}, ${now} FROM journal
      ON CONFLICT ("resellerId", "currency")
        DO UPDATE SET "pending" = "Balance"."pending" + EXCLUDED."pending", "updatedAt" = EXCLUDED."updatedAt"
      RETURNING 1
    ), daily AS (
      -- The entry's daily rollup row (lib/ledger/daily.ts), after the balance (reading bal's row
      -- orders them): every posting locks the balance, then the rollup rows.
      INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency", "amount")
      SELECT ${reseller()}, 'order_profit_pending', 'pending', ${p("day", (at) => dayOf(at.now))}::text, ${currency}, ${profit}
      FROM bal
      ON CONFLICT ("resellerId", "kind", "bucket", "day", "currency")
        DO UPDATE SET "amount" = "LedgerDaily"."amount" + EXCLUDED."amount"
      RETURNING 1
    ), chan AS (
      -- The order's channel rollup row (lib/ledger/channel-daily.ts), after the LedgerDaily row
      -- (reading daily's rows orders them; the count is one row whether or not it wrote one).
      INSERT INTO "ChannelDaily" ("resellerId", "day", "channel", "currency", "orders")
      SELECT ${reseller()}, ${p("createdDay", (at) => dayOf(at.order.createdAt))}::text, ${p("channelKey", (at) => channelKey(at.order.channel))}::text, ${col("fromCurrency")}::text, 1
      FROM o, (SELECT count(*) FROM daily) d
      ON CONFLICT ("resellerId", "day", "channel", "currency") DO UPDATE SET "orders" = "ChannelDaily"."orders" + 1
      RETURNING 1
    )
    SELECT "id" FROM ev`;
  return checked({ name, text, values });
}

/** A statement whose every parameter its text uses (PostgreSQL could not type one it does not); checked once per statement. */
function checked(statement: OpenStatement): OpenStatement {
  for (let n = 1; n <= statement.values.length; n++)
    if (!new RegExp(`\\$${n}(?!\\d)`).test(statement.text)) throw new Error(`${statement.name}: parameter $${n} is not used`);
  return statement;
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
 * Its values go through a SELECT, where a parameter's type is not inferred from its column: each
 * is cast (ORDER_COLUMN_TYPES).
 */
function insertOpened(columns: (keyof Order)[], col: (c: keyof Order) => string, now: string, noHooks: string): string {
  const cast = (c: keyof Order) => `${col(c)}::${ORDER_COLUMN_TYPES[c] ?? "text"}`;
  return `i AS (
      UPDATE "UpstreamIntent" SET "outcome" = 'committed', "resolvedAt" = ${now}
      WHERE "orderId" = ${cast("id")} AND "provider" = ${cast("provider")} AND "upstreamId" = ${cast("upstreamId")}
        AND "outcome" IS NULL AND ${noHooks}
      RETURNING 1
    ), o AS (
      INSERT INTO "Order" (${columns.map((c) => `"${c}"`).join(", ")})
      SELECT ${columns.map(cast).join(", ")}
      WHERE ${noHooks}
        AND (${cast("upstreamId")} IS NULL OR EXISTS (SELECT 1 FROM i) OR NOT EXISTS (SELECT 1 FROM "UpstreamIntent" x WHERE x."orderId" = ${cast("id")}))
      RETURNING "id"
    )`;
}
