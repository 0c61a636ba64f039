import "server-only";
import type Database from "better-sqlite3";
import { type Db, driverOf, emptySql, type Order, type OrderEvent, providerOf, queryOnPool, sql } from "@/lib/db/client";
import { sqliteDate, statementOf } from "@/lib/db/sqlite-direct";
import { isFinal, type OrderState } from "@/lib/domain/order-states";
import { AppError } from "@/lib/errors";
import type { Caller } from "@/lib/keys/api-keys";

export const ORDER_ID_RE = /^[0-9a-f]{24}$/;

/**
 * An order made with a key belongs to that key's reseller: other resellers (and keyless
 * callers) get the same 404 as for an id that does not exist. A keyless order is visible by its id.
 */
export async function getOrderForCaller(
  db: Db,
  opts: { orderId: string; caller: Pick<Caller, "resellerId"> | null },
): Promise<Order & { events: OrderEvent[] }> {
  const id = opts.orderId.toLowerCase();
  const order = ORDER_ID_RE.test(id) ? await findOrderWithEvents(db, id) : null;
  // An order still being opened with the engine (no payinAddress yet) is not there for anyone.
  if (!order || order.payinAddress === null || (order.resellerId !== null && order.resellerId !== opts.caller?.resellerId))
    throw new AppError("ORDER_NOT_FOUND", "No order with this id.");
  return order;
}

type OrderWithEvents = Order & { events: OrderEvent[] };

/**
 * An order and its timeline, read on the bare driver: GET /exchange/{id} is polled by every
 * client, and through Prisma (an include, or a raw query) its CPU per read was most of the
 * request's (bench/README.md). It gives exactly what Prisma's include gives
 * (tests/db/order-read.test.ts).
 */
function findOrderWithEvents(db: Db, id: string): Promise<OrderWithEvents | null> | OrderWithEvents | null {
  const driver = driverOf(db);
  return driver.kind === "postgresql" ? findOnPostgres(db, id) : findOnSqlite(driver.reader(), id);
}

/**
 * PostgreSQL: the order and its timeline in one statement on the pool (queryOnPool reads
 * timestamps and money as Prisma does). Events carry no money; their time comes as epoch ms.
 */
const FIND_PG = `SELECT o.*, (
    SELECT json_agg(json_build_object('id', e."id", 'orderId', e."orderId", 'status', e."status", 'note', e."note",
                                      'at', (extract(epoch FROM e."at") * 1000)::bigint) ORDER BY e."id")
    FROM "OrderEvent" e WHERE e."orderId" = o."id") AS "events"
  FROM "Order" o WHERE o."id" = $1`;

async function findOnPostgres(db: Db, id: string): Promise<OrderWithEvents | null> {
  type Row = Order & { events: (Omit<OrderEvent, "at"> & { at: number })[] | null };
  const [row] = await queryOnPool<Row>(db, "order-with-events", { text: FIND_PG, values: [id] });
  if (!row) return null;
  return { ...row, events: (row.events ?? []).map((e) => ({ ...e, at: new Date(e.at) })) };
}

/** The Order columns that Prisma reads as Dates; SQLite stores them as text (sqliteDate). */
const ORDER_DATES = [
  "expiresAt",
  "nextActionAt",
  "leaseUntil",
  "stuckAt",
  "fixedUntil",
  "depositedAt",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof Order)[];

/** SQLite: both reads in one read transaction on the reader connection, so the timeline matches the order. */
function findOnSqlite(conn: Database.Database, id: string): OrderWithEvents | null {
  statementOf(conn, "BEGIN").run();
  try {
    const row = statementOf(conn, `SELECT * FROM "Order" WHERE "id" = ?`).get(id) as Record<string, unknown> | undefined;
    if (!row) return null;
    for (const k of ORDER_DATES) row[k] = sqliteDate(row[k]);
    const events = statementOf(conn, `SELECT * FROM "OrderEvent" WHERE "orderId" = ? ORDER BY "id"`).all(id) as OrderEvent[];
    for (const e of events) e.at = sqliteDate(e.at) as Date;
    return { ...(row as unknown as Order), events };
  } finally {
    statementOf(conn, "COMMIT").run();
  }
}

/** For the dashboard: one of the reseller's orders with its state timeline. */
export async function getOrderForReseller(db: Db, opts: { resellerId: string; orderId: string }) {
  const order = await db.order.findFirst({
    where: { id: opts.orderId, resellerId: opts.resellerId, payinAddress: { not: null } },
    include: { events: { orderBy: { id: "asc" } } },
  });
  if (!order) throw new AppError("ORDER_NOT_FOUND", "No order with this id.");
  return order;
}

export interface ListOrdersOptions {
  resellerId: string;
  status?: string | null;
  /** Prefix of an order id. */
  search?: string | null;
  /** Only this channel's orders (lib/channels: key:<id>, widget:<id>, page). */
  channel?: string | null;
  page?: number;
  pageSize?: number;
  /** LIST_COUNT_CAP unless given (tests). */
  countCap?: number;
}

/**
 * How many orders a list counts and pages through: counting every order of a reseller with
 * 1M of them took 380 ms on SQLite (on the event loop, so every request of the process waited)
 * and an offset deep into them 180 ms. Past this many, the list says "more than 10,000" and its
 * pages stop; the state filter, the id search and the CSV export reach the rest.
 */
export const LIST_COUNT_CAP = 10_000;

/**
 * An id prefix at least this long is looked up by the primary key's range: ids are random, so
 * about one order in 65,536 (16^4), of all resellers, has it. A shorter one is matched while
 * reading the reseller's orders, newest first, which stops once the page and the capped count
 * are full.
 */
export const KEY_PREFIX_MIN = 4;

export async function listOrders(db: Db, opts: ListOrdersOptions) {
  const pageSize = Math.min(Math.max(opts.pageSize ?? 20, 1), 100);
  const cap = opts.countCap ?? LIST_COUNT_CAP;
  const search = opts.search?.trim().toLowerCase();
  if (search && !ORDER_ID_RE.test(search) && search.length >= KEY_PREFIX_MIN) return listByIdPrefix(db, opts, search, pageSize, cap);
  const wholeId = search !== undefined && ORDER_ID_RE.test(search);
  const where = {
    resellerId: opts.resellerId,
    payinAddress: { not: null },
    ...(opts.status ? { status: opts.status } : {}),
    ...(opts.channel ? { channel: opts.channel } : {}),
    // A whole id (pasted from a ticket, say) is found by the primary key; a short prefix is a
    // LIKE, which reads the reseller's orders until the page and the count are full.
    ...(search ? { id: wholeId ? search : { startsWith: search } } : {}),
  };
  // Counted up to one past the cap: that tells a capped total from an exact one. Not Prisma's
  // count({ take }): it orders the rows it counts by id, which sorted all 1M (1.2 s on SQLite).
  // The same conditions as `where` (tests/dashboard/read-models.test.ts checks that they agree).
  // An open state is rare among all orders (they finish or fail within hours), so its count
  // goes through the state's index: through the reseller's it read all 1M orders of a big
  // reseller (90 ms on SQLite, on the event loop).
  const byState = !!opts.status && !isFinal(opts.status as OrderState);
  const [{ n }] = await db.$queryRaw<{ n: number | bigint }[]>(sql`
    SELECT COUNT(*) AS "n" FROM (
      SELECT 1 FROM "Order" WHERE ${resellerCondition(db, { skipIndex: byState })} = ${opts.resellerId} AND "payinAddress" IS NOT NULL
      ${opts.status ? sql`AND "status" = ${opts.status}` : emptySql}
      ${opts.channel ? sql`AND "channel" = ${opts.channel}` : emptySql}
      ${search ? (wholeId ? sql`AND "id" = ${search}` : sql`AND substr("id", 1, ${search.length}) = ${search}`) : emptySql}
      LIMIT ${cap + 1}) AS "t"`);
  const p = paging(Number(n), cap, pageSize, opts.page);
  const orders = await db.order.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    skip: (p.page - 1) * pageSize,
    take: pageSize,
  });
  return { orders, pageSize, ...p };
}

/** The list's total (capped), whether it was capped, its pages, and the page shown. */
function paging(counted: number, cap: number, pageSize: number, asked: number | undefined) {
  const total = Math.min(counted, cap);
  const pages = Math.max(1, Math.ceil(total / pageSize));
  // A page past the end (a filter narrowed the list, or past the cap) is the last page.
  return { total, totalCapped: counted > cap, pages, page: Math.min(Math.max(asked ?? 1, 1), pages) };
}

/**
 * The reseller's condition's column, for a statement that another index serves better. SQLite
 * has no statistics here (the app gathers none), and its planner takes the reseller's index
 * for any equality on it, reading all of a big reseller's orders; written `+"resellerId"` the
 * term cannot use an index. PostgreSQL's statistics choose well by themselves.
 */
const resellerCondition = (db: Db, opts: { skipIndex: boolean }) =>
  opts.skipIndex && providerOf(db) === "sqlite" ? sql`+"resellerId"` : sql`"resellerId"`;

/**
 * An id prefix of KEY_PREFIX_MIN or more characters: the reseller's matching ids from the
 * primary key's range (ids are lower-case hex, so those starting with p are exactly the ones
 * from p up to, not including, p + "g"), then the page of those orders, newest first. Through
 * the reseller's index this read all 1M orders of a big reseller (720-900 ms on SQLite, on the
 * event loop), where the key's range reads a handful.
 */
async function listByIdPrefix(db: Db, opts: ListOrdersOptions, prefix: string, pageSize: number, cap: number) {
  const matched = await db.$queryRaw<{ id: string }[]>(sql`
    SELECT "id" FROM "Order"
    WHERE "id" >= ${prefix} AND "id" < ${`${prefix}g`} AND ${resellerCondition(db, { skipIndex: true })} = ${opts.resellerId}
      AND "payinAddress" IS NOT NULL
    ${opts.status ? sql`AND "status" = ${opts.status}` : emptySql}
    ${opts.channel ? sql`AND "channel" = ${opts.channel}` : emptySql}
    LIMIT ${cap + 1}`);
  const p = paging(matched.length, cap, pageSize, opts.page);
  // By id alone: these ids are the reseller's, and the key is the only index this can take.
  const orders = matched.length
    ? await db.order.findMany({
        where: { id: { in: matched.slice(0, cap).map((m) => m.id) } },
        orderBy: [{ createdAt: "desc" }, { id: "asc" }],
        skip: (p.page - 1) * pageSize,
        take: pageSize,
      })
    : [];
  return { orders, pageSize, ...p };
}
