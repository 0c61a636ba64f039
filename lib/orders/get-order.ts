import "server-only";
import crypto from "node:crypto";
import type Database from "better-sqlite3";
import { type Db, dateParam, driverOf, emptySql, type Order, type OrderEvent, providerOf, queryOnPool, sql } from "@/lib/db/client";
import { sqliteDate, statementOf } from "@/lib/db/sqlite-direct";
import { ID_PREFIX_MIN } from "@/lib/domain/order-ids";
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

/** The stored form of an order's status link secret (the hosted page's X-Order-Token): its SHA-256. */
export const hashOrderToken = (token: string) => crypto.hash("sha256", token, "hex");

/**
 * The order for the holder of its status link's secret (the hosted page's X-Order-Token);
 * anyone else, a wrong or missing token included, gets the 404 of an unknown id.
 */
export async function getOrderForToken(db: Db, opts: { orderId: string; token: string | null }): Promise<Order & { events: OrderEvent[] }> {
  const orderId = opts.orderId.toLowerCase();
  const token = opts.token;
  const notFound = () => new AppError("ORDER_NOT_FOUND", "No order with this id.");
  if (!token || token.length > 100 || !ORDER_ID_RE.test(orderId)) throw notFound();
  const row = await db.order.findUnique({ where: { id: orderId }, select: { resellerId: true, accessTokenHash: true } });
  const want = row?.accessTokenHash;
  const got = hashOrderToken(token);
  if (!row?.resellerId || !want || want.length !== got.length || !crypto.timingSafeEqual(Buffer.from(want), Buffer.from(got)))
    throw notFound();
  return getOrderForCaller(db, { orderId, caller: { resellerId: row.resellerId } });
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
  // Set on the row, not spread into a copy (as in findOnSqlite, where the copy was a sixth of the read).
  const events = (row.events ?? []) as unknown as OrderEvent[];
  for (const e of events) e.at = new Date(e.at as unknown as number);
  return Object.assign(row, { events });
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
    // Set on the row, not spread into a copy: a copy of its forty-odd columns made a read 22.3 µs instead of 18.7 (in isolation).
    row.events = events;
    return row as unknown as OrderWithEvents;
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

/** A row's place in the Orders list, which is ordered by (createdAt, id), newest first. */
export interface OrderCursor {
  createdAt: Date;
  id: string;
}

export interface ListOrdersOptions {
  resellerId: string;
  status?: string | null;
  /** Prefix of an order id (ID_PREFIX_MIN characters or more), or a whole id. */
  search?: string | null;
  /** Only this channel's orders (lib/channels: key:<id>, widget:<id>, page). */
  channel?: string | null;
  /** The page of orders older than this one (Next). */
  after?: OrderCursor | null;
  /** The page of orders newer than this one (Previous); when fewer than a page are newer, the first page. */
  before?: OrderCursor | null;
  /** The page of the oldest orders (the list's last page). */
  oldest?: boolean;
  pageSize?: number;
  /** LIST_COUNT_CAP unless given (tests). */
  countCap?: number;
}

/**
 * How many orders a list counts: counting every order of a reseller with 1M of them took 380
 * ms on SQLite (on the event loop, so every request of the process waited). Past this many,
 * the list says "more than 10,000". The pages do not stop there: they are keyset pages (each
 * starts at its cursor in an index), as quick at the millionth order as at the first.
 */
export const LIST_COUNT_CAP = 10_000;

/**
 * The list's conditions (and the count's): the reseller's opened orders, filtered. The list's
 * indexes hold only opened orders (partial, `WHERE "payinAddress" IS NOT NULL`; prisma/schema):
 * a statement can use them only with that term, so the count and the page's ids are read from
 * the index alone (tests/orders/list-index-only.test.ts).
 */
function listConditions(db: Db, opts: ListOrdersOptions, search: string) {
  const wholeId = ORDER_ID_RE.test(search);
  // An id search reads the primary key: with the reseller's condition on an index SQLite would
  // read all of a big reseller's orders instead (720-900 ms at 1M, on the event loop).
  return sql`${resellerCondition(db, { skipIndex: !!search })} = ${opts.resellerId} AND "payinAddress" IS NOT NULL
    ${opts.status ? sql`AND "status" = ${opts.status}` : emptySql}
    ${opts.channel ? sql`AND "channel" = ${opts.channel}` : emptySql}
    ${search ? (wholeId ? sql`AND "id" = ${search}` : sql`AND "id" >= ${search} AND "id" < ${`${search}g`}`) : emptySql}`;
}

/**
 * The reseller's orders, a keyset page at a time, newest first: the page after a cursor is the
 * next pageSize rows of an index on (…, createdAt, id) from the cursor on, with no OFFSET, so a
 * deep page costs what the first does and an order created during a walk moves no row across
 * pages. Two statements for the page (its ids by the index, then those rows by the key) and one
 * capped count.
 */
export async function listOrders(db: Db, opts: ListOrdersOptions) {
  const pageSize = Math.min(Math.max(opts.pageSize ?? 20, 1), 100);
  const cap = opts.countCap ?? LIST_COUNT_CAP;
  const search = opts.search?.trim().toLowerCase() ?? "";
  const empty = {
    orders: [] as Order[],
    pageSize,
    total: 0,
    totalCapped: false,
    newer: null as OrderCursor | null,
    older: null as OrderCursor | null,
    searchTooShort: false,
  };
  if (search && search.length < ID_PREFIX_MIN) return { ...empty, searchTooShort: true };
  const where = listConditions(db, opts, search);
  // Counted up to one past the cap: that tells a capped total from an exact one. Not Prisma's
  // count({ take }): it orders the rows it counts by id, which sorted all 1M (1.2 s on SQLite).
  // Index entries only: when each counted entry read its row as well (for payinAddress, before the
  // indexes were partial), SQLite held the event loop 28-48 ms at 100,000 orders.
  const [{ n }] = await db.$queryRaw<{ n: number | bigint }[]>(sql`
    SELECT COUNT(*) AS "n" FROM (SELECT 1 FROM "Order" WHERE ${where} LIMIT ${cap + 1}) AS "t"`);
  const counted = Number(n);
  const base = { pageSize, total: Math.min(counted, cap), totalCapped: counted > cap };
  if (!counted) return { ...empty, ...base };

  const upward = !!opts.before || (!!opts.oldest && !opts.after);
  const cursor = opts.before ?? opts.after ?? null;
  const keyset = cursor
    ? sql`AND ("createdAt", "id") ${upward ? sql`>` : sql`<`} (${dateParam(db, cursor.createdAt)}, ${cursor.id})`
    : emptySql;
  const order = upward ? sql`"createdAt" ASC, "id" ASC` : sql`"createdAt" DESC, "id" DESC`;
  const ids = await db.$queryRaw<{ id: string }[]>(sql`
    SELECT "id" FROM "Order" WHERE ${where} ${keyset} ORDER BY ${order} LIMIT ${pageSize + 1}`);
  const more = ids.length > pageSize;
  // Fewer than a page newer than the cursor: the first page, full.
  if (opts.before && !more && ids.length < pageSize) return listOrders(db, { ...opts, before: null, after: null, oldest: false });
  // By id alone: these ids are the reseller's, and the key is the only index this needs.
  const orders = await db.order.findMany({
    where: { id: { in: ids.slice(0, pageSize).map((r) => r.id) } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const at = (o: Order | undefined): OrderCursor | null => (o ? { createdAt: o.createdAt, id: o.id } : null);
  const hasNewer = upward ? more : !!opts.after;
  const hasOlder = upward ? !opts.oldest || !!opts.before : more;
  return {
    ...base,
    orders,
    searchTooShort: false,
    newer: hasNewer ? at(orders[0]) : null,
    older: hasOlder ? at(orders[orders.length - 1]) : null,
  };
}

/**
 * The reseller's condition's column, for a statement that another index serves better. SQLite
 * has no statistics here (the app gathers none), and its planner takes the reseller's index
 * for any equality on it, reading all of a big reseller's orders; written `+"resellerId"` the
 * term cannot use an index. PostgreSQL's statistics choose well by themselves.
 */
const resellerCondition = (db: Db, opts: { skipIndex: boolean }) =>
  opts.skipIndex && providerOf(db) === "sqlite" ? sql`+"resellerId"` : sql`"resellerId"`;
