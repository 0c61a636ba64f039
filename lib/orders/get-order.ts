import "server-only";
import { type Db, type Order, type OrderEvent, providerOf } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import type { Caller } from "@/lib/keys/api-keys";

export const ORDER_ID_RE = /^[0-9a-f]{24}$/;

/**
 * An order made with a key belongs to that key's reseller: other resellers (and keyless
 * callers) get the same 404 as for an id that does not exist. A keyless order is visible by its id.
 */
export async function getOrderForCaller(
  db: Db,
  opts: { orderId: string; caller: Caller | null },
): Promise<Order & { events: OrderEvent[] }> {
  const id = opts.orderId.toLowerCase();
  const order = !ORDER_ID_RE.test(id)
    ? null
    : providerOf(db) === "postgresql"
      ? await findWithEventsPostgres(db, id)
      : await db.order.findUnique({ where: { id }, include: { events: { orderBy: { id: "asc" } } } });
  // An order still being opened with the engine (no payinAddress yet) is not there for anyone.
  if (!order || order.payinAddress === null || (order.resellerId !== null && order.resellerId !== opts.caller?.resellerId))
    throw new AppError("ORDER_NOT_FOUND", "No order with this id.");
  return order;
}

/**
 * PostgreSQL: the order and its timeline in one statement, where Prisma's include takes two
 * round trips (GET /exchange/{id} is polled by every client; README, Benchmarks). Prisma's own
 * join strategy (relationJoins) is not used: it reads nested NUMERIC through a float
 * (tests/db/nested-money.test.ts). Events carry no money; their time comes as epoch ms.
 */
async function findWithEventsPostgres(db: Db, id: string): Promise<(Order & { events: OrderEvent[] }) | null> {
  const [row] = await db.$queryRaw<(Order & { events: (Omit<OrderEvent, "at"> & { at: number })[] | null })[]>`
    SELECT o.*, (
      SELECT json_agg(json_build_object('id', e."id", 'orderId', e."orderId", 'status', e."status", 'note', e."note",
                                        'at', (extract(epoch FROM e."at") * 1000)::bigint) ORDER BY e."id")
      FROM "OrderEvent" e WHERE e."orderId" = o."id") AS "events"
    FROM "Order" o WHERE o."id" = ${id}`;
  if (!row) return null;
  return { ...row, events: (row.events ?? []).map((e) => ({ ...e, at: new Date(Number(e.at)) })) };
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
  page?: number;
  pageSize?: number;
}

export async function listOrders(db: Db, opts: ListOrdersOptions) {
  const pageSize = Math.min(Math.max(opts.pageSize ?? 20, 1), 100);
  const page = Math.max(opts.page ?? 1, 1);
  const search = opts.search?.trim().toLowerCase();
  const where = {
    resellerId: opts.resellerId,
    payinAddress: { not: null },
    ...(opts.status ? { status: opts.status } : {}),
    ...(search ? { id: { startsWith: search } } : {}),
  };
  const [total, orders] = await Promise.all([
    db.order.count({ where }),
    db.order.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "asc" }], skip: (page - 1) * pageSize, take: pageSize }),
  ]);
  return { orders, total, page, pageSize, pages: Math.max(1, Math.ceil(total / pageSize)) };
}
