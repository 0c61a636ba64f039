import "server-only";
import { type Db, type Order, queryOnPool } from "@/lib/db/client";
import { queryInLane } from "@/lib/db/pg-group-commit";
import type { JournalPlan } from "@/lib/ledger/ledger";
import { type Dec, formatAmount } from "@/lib/money/decimal";
import { OPENED_COLUMNS, type OpenedColumn, type OpeningPlan, oneStepApplies } from "./opening";
import { orderInsert } from "./reserve-order";

/** Canonical text of a sum ("0", never "-0"). */
const text = (x: Dec) => (x.isZero() ? "0" : formatAmount(x));

/**
 * PostgreSQL: writes an order's opening plan (opening.ts) in one statement, where the general
 * path (open-order-prisma.ts) takes an interactive transaction of seven round trips.
 * Data-modifying CTEs run once each, all or nothing, so this is that transaction's outcome in
 * one trip:
 *
 * - the order gets its deposit and engine terms: a reserved order (`token`, its claim) is
 *   updated and its claim cleared, only while the claim holds and no deposit was set (the same
 *   conditions as the general path); a new order (`token` null: a request without an
 *   Idempotency-Key, create-order.ts) is inserted opened, in one write where a reservation
 *   took an insert and an update, and only while the provider's exchange it opens with is
 *   still an open intent, which the statement marks committed (so that a crash recovery
 *   that settled the intent first, lib/orders/recover-intents.ts, leaves no order behind it,
 *   and one that comes after finds it committed);
 * - its first timeline event;
 * - its journal's rows (lib/ledger's orderCreatedJournal, planned by planJournal): the entries
 *   and the operator's lines, then the journal row, then the Balance rows, the daily rollup
 *   rows and the channel rollup rows, each list as arrays unnested, so that the statement's text
 *   does not depend on how many rows the plan has (an upsert adds to a row: the plan's changes
 *   only add, oneStepApplies, so none needs a guard; Balance's CHECK would refuse one that did not).
 *
 * It applies only when there is nothing to announce: a reseller with an enabled webhook endpoint
 * gets the general path, which writes the order.created message in the same transaction. False
 * when it did not apply (that, the claim lost, or the intent settled); the caller then takes the
 * general path, which tells them apart.
 */
export async function openOrderPostgres(db: Db, plan: OpeningPlan): Promise<boolean> {
  if (!oneStepApplies(plan)) return false;
  const { order, write, journal: j } = plan;
  const columns = write.token === null ? (Object.keys(order) as (keyof Order)[]) : null;
  const withJournal = j.journal !== null || j.channels.length > 0;
  const statement = openStatement(columns, plan.ofReseller, withJournal);
  // On the pool, not through Prisma: its CPU per statement was half of what a POST /exchange cost (bench/README.md).
  const query = { name: statement.name, text: statement.text, values: statement.values.map((v) => v(plan)) };
  if (!withJournal) return (await queryOnPool<{ id: number }>(db, query.name, query)).length === 1;
  // A reseller's orders lock its Balance, LedgerDaily and ChannelDaily rows until their commit:
  // those of the same rows wait for one another anyway, so they commit together (group commit,
  // lib/db/pg-group-commit.ts). The lane names every row the statement locks.
  return (await queryInLane<{ id: number }>(db, hotRowsOf(j), query)).length === 1;
}

/** The rows a journal's plan locks: its Balance, LedgerDaily and ChannelDaily rows, in the order it locks them. */
function hotRowsOf(j: JournalPlan): string {
  return JSON.stringify([
    j.balances.map((b) => [b.resellerId, b.currency]),
    j.daily.map((d) => [d.resellerId, d.kind, d.bucket, d.day, d.currency]),
    j.channels.map((c) => [c.resellerId, c.day, c.channel, c.currency]),
  ]);
}

interface OpenStatement {
  name: string;
  text: string;
  /** Each parameter's value, $1 first, read from the plan. */
  values: ((plan: OpeningPlan) => unknown)[];
}

/**
 * Each statement's text, made once per kind of opening: a reserved order or a new one (by its
 * column list), of a reseller or keyless, with a journal or without. Built with Prisma's `sql`
 * on every request, the text took 11 to 13 µs and carried each repeated value as a parameter of
 * its own; now a request only reads its values.
 */
const statements = new Map<string, OpenStatement>();

function openStatement(columns: (keyof Order)[] | null, ofReseller: boolean, withJournal: boolean): OpenStatement {
  const key = `${columns ? orderInsert(columns).pg.name : "reserved"}:${ofReseller ? "reseller" : "keyless"}:${withJournal ? "journal" : "none"}`;
  let statement = statements.get(key);
  if (!statement) {
    statement = buildOpenStatement(columns, ofReseller, withJournal, `open-${key}`);
    statements.set(key, statement);
  }
  return statement;
}

/** A column of a list of the plan's rows, as one array parameter. */
const column =
  <T>(rows: (plan: OpeningPlan) => T[], of: (row: T) => unknown) =>
  (plan: OpeningPlan) =>
    rows(plan).map(of);

/**
 * The statement's text, each parameter named once: `p(name, value)` gives its `$n` (the same
 * one each time the name comes back) and records how a request reads its value from the plan.
 * A name keeps one cast wherever it is used (PostgreSQL infers one type per parameter).
 */
function buildOpenStatement(columns: (keyof Order)[] | null, ofReseller: boolean, withJournal: boolean, name: string): OpenStatement {
  const values: OpenStatement["values"] = [];
  const numbers = new Map<string, string>();
  const p = (param: string, value: (plan: OpeningPlan) => unknown): string => {
    let n = numbers.get(param);
    if (n === undefined) {
      values.push(value);
      n = `$${values.length}`;
      numbers.set(param, n);
    }
    return n;
  };
  const col = (c: keyof Order) => p(c, (plan) => plan.order[c]);
  const cast = (c: keyof Order) => `${col(c)}::${ORDER_COLUMN_TYPES[c] ?? "text"}`;
  // Made when first used: a parameter the text does not use would have no type.
  const now = () => `${p("now", (plan) => plan.now)}::timestamp(3)`;
  // The reseller has an enabled webhook endpoint: its order.created is for the general path to
  // write. A keyless order has no reseller, so no endpoint.
  const noHooks = ofReseller
    ? `NOT EXISTS (SELECT 1 FROM "WebhookEndpoint" w WHERE w."resellerId" = ${col("resellerId")}::text AND w."enabled")`
    : "true";
  const set = (c: OpenedColumn) =>
    `${p(`set.${c}`, (plan) => (plan.write.token === null ? null : plan.write.set[c]))}::${ORDER_COLUMN_TYPES[c] ?? "text"}`;
  const opened = columns
    ? insertOpened(columns, p, cast, now, noHooks)
    : `o AS (
      UPDATE "Order" SET ${OPENED_COLUMNS.map((c) => `"${c}" = ${set(c)}`).join(", ")}
      WHERE "id" = ${cast("id")} AND "leaseToken" = ${p("token", (plan) => plan.write.token)}::text AND "payinAddress" IS NULL
        AND ${noHooks}
      RETURNING "id"
    )`;
  const event = `ev AS (
      INSERT INTO "OrderEvent" ("orderId", "status", "at")
      SELECT "id", ${p("event.status", (plan) => plan.event.status)}::text, ${p("event.at", (plan) => plan.event.at)}::timestamp FROM o RETURNING "id"
    )`;
  if (!withJournal) return checked({ name, text: `WITH ${opened}, ${event} SELECT "id" FROM ev`, values });

  // The journal's rows (JournalPlan), each list unnested from one array per column. The
  // journal's own columns are single values; `at` is every row's createdAt.
  const at = `${p("at", (plan) => plan.journal.at)}::timestamp(3)`;
  const list = <T>(prefix: string, rows: (plan: OpeningPlan) => T[], cols: [string, string, (row: T) => unknown][]) =>
    `unnest(${cols.map(([c, type, of]) => `${p(`${prefix}.${c}`, column(rows, of))}::${type}[]`).join(", ")}) AS ${prefix}(${cols.map(([c]) => `"${c}"`).join(", ")})`;
  const journal = (c: "id" | "kind" | "orderId" | "withdrawalId", type = "text") =>
    `${p(`journal.${c}`, (plan) => plan.journal.journal?.[c] ?? null)}::${type}`;
  const entries = list("e", (plan) => plan.journal.entries, [
    ["journalId", "text", (e) => e.journalId],
    ["resellerId", "text", (e) => e.resellerId],
    ["orderId", "text", (e) => e.orderId],
    ["withdrawalId", "text", (e) => e.withdrawalId],
    ["currency", "text", (e) => e.currency],
    ["bucket", "text", (e) => e.bucket],
    ["kind", "text", (e) => e.kind],
    ["amount", "numeric", (e) => e.amount],
  ]);
  const lines = list("l", (plan) => plan.journal.lines, [
    ["journalId", "text", (l) => l.journalId],
    ["account", "text", (l) => l.account],
    ["currency", "text", (l) => l.currency],
    ["amount", "numeric", (l) => l.amount],
  ]);
  const balances = list("b", (plan) => plan.journal.balances, [
    ["resellerId", "text", (b) => b.resellerId],
    ["currency", "text", (b) => b.currency],
    ["pending", "numeric", (b) => text(b.pending)],
    ["available", "numeric", (b) => text(b.available)],
    ["reserved", "numeric", (b) => text(b.reserved)],
  ]);
  const daily = list("d", (plan) => plan.journal.daily, [
    ["resellerId", "text", (d) => d.resellerId],
    ["kind", "text", (d) => d.kind],
    ["bucket", "text", (d) => d.bucket],
    ["day", "text", (d) => d.day],
    ["currency", "text", (d) => d.currency],
    ["amount", "numeric", (d) => text(d.amount)],
  ]);
  const channels = list("c", (plan) => plan.journal.channels, [
    ["resellerId", "text", (c) => c.resellerId],
    ["day", "text", (c) => c.day],
    ["channel", "text", (c) => c.channel],
    ["currency", "text", (c) => c.currency],
    ["orders", "int4", (c) => c.orders],
    ["finished", "int4", (c) => c.finished],
    ["volume", "numeric", (c) => text(c.volume)],
    ["profit", "numeric", (c) => text(c.profit)],
  ]);
  const text_ = `WITH ${opened}, ${event}, entry AS (
      INSERT INTO "LedgerEntry" ("journalId", "resellerId", "orderId", "withdrawalId", "currency", "bucket", "kind", "amount", "createdAt")
      SELECT e."journalId", e."resellerId", e."orderId", e."withdrawalId", e."currency", e."bucket", e."kind", e."amount", ${at}
      FROM o, ${entries}
      RETURNING 1
    ), line AS (
      INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
      SELECT l."journalId", l."account", l."currency", l."amount", ${at}
      FROM o, ${lines}
      RETURNING 1
    ), journal AS (
      -- Reading entry's and line's rows makes them run first: the journal row comes after its lines.
      INSERT INTO "Journal" ("id", "kind", "orderId", "withdrawalId", "lines", "createdAt")
      SELECT ${journal("id")}, ${journal("kind")}, ${journal("orderId")}, ${journal("withdrawalId")},
        ${p("journal.lines", (plan) => plan.journal.journal?.lines ?? 0)}::int4, ${at}
      FROM o, (SELECT count(*) FROM entry) e, (SELECT count(*) FROM line) l
      WHERE ${journal("id")} IS NOT NULL
      RETURNING 1
    ), bal AS (
      -- The reseller's rows last (reading journal's row orders them): every order of a reseller
      -- waits for these rows' locks, held to the commit, so the less that runs after them the
      -- more orders a reseller can open at once. In key order, as the plan lists them.
      INSERT INTO "Balance" ("resellerId", "currency", "pending", "available", "reserved", "updatedAt")
      SELECT b."resellerId", b."currency", b."pending", b."available", b."reserved", ${at}
      FROM o, (SELECT count(*) FROM journal) j, ${balances}
      ON CONFLICT ("resellerId", "currency") DO UPDATE SET
        "pending" = "Balance"."pending" + EXCLUDED."pending", "available" = "Balance"."available" + EXCLUDED."available",
        "reserved" = "Balance"."reserved" + EXCLUDED."reserved", "updatedAt" = EXCLUDED."updatedAt"
      RETURNING 1
    ), daily AS (
      -- The daily rollup rows (lib/ledger/daily.ts), after the balances (reading bal's rows
      -- orders them): every posting locks the balances, then the rollup rows.
      INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency", "amount")
      SELECT d."resellerId", d."kind", d."bucket", d."day", d."currency", d."amount"
      FROM o, (SELECT count(*) FROM bal) b, ${daily}
      ON CONFLICT ("resellerId", "kind", "bucket", "day", "currency")
        DO UPDATE SET "amount" = "LedgerDaily"."amount" + EXCLUDED."amount"
      RETURNING 1
    ), chan AS (
      -- The channel rollup rows (lib/ledger/channel-daily.ts), after the LedgerDaily rows.
      INSERT INTO "ChannelDaily" ("resellerId", "day", "channel", "currency", "orders", "finished", "volume", "profit")
      SELECT c."resellerId", c."day", c."channel", c."currency", c."orders", c."finished", c."volume", c."profit"
      FROM o, (SELECT count(*) FROM daily) d, ${channels}
      ON CONFLICT ("resellerId", "day", "channel", "currency") DO UPDATE SET
        "orders" = "ChannelDaily"."orders" + EXCLUDED."orders", "finished" = "ChannelDaily"."finished" + EXCLUDED."finished",
        "volume" = "ChannelDaily"."volume" + EXCLUDED."volume", "profit" = "ChannelDaily"."profit" + EXCLUDED."profit"
      RETURNING 1
    )
    SELECT "id" FROM ev`;
  return checked({ name, text: text_, values });
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
function insertOpened(
  columns: (keyof Order)[],
  p: (param: string, value: (plan: OpeningPlan) => unknown) => string,
  cast: (c: keyof Order) => string,
  now: () => string,
  noHooks: string,
): string {
  // The intent as the plan names it (null: none was written for an exchange, or there is no exchange).
  const intent = (c: "provider" | "upstreamId") =>
    `${p(`intent.${c}`, (plan) => (plan.write.token === null ? (plan.write.intent?.[c] ?? null) : null))}::text`;
  return `i AS (
      UPDATE "UpstreamIntent" SET "outcome" = 'committed', "resolvedAt" = ${now()}
      WHERE "orderId" = ${cast("id")} AND "provider" = ${intent("provider")} AND "upstreamId" = ${intent("upstreamId")}
        AND "outcome" IS NULL AND ${noHooks}
      RETURNING 1
    ), o AS (
      INSERT INTO "Order" (${columns.map((c) => `"${c}"`).join(", ")})
      SELECT ${columns.map(cast).join(", ")}
      WHERE ${noHooks}
        AND (${intent("upstreamId")} IS NULL OR EXISTS (SELECT 1 FROM i) OR NOT EXISTS (SELECT 1 FROM "UpstreamIntent" x WHERE x."orderId" = ${cast("id")}))
      RETURNING "id"
    )`;
}
