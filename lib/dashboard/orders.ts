import "server-only";
import { parseChannel } from "@/lib/channels/channels";
import type { Db, Order } from "@/lib/db/client";
import { failureReasonOf, ORDER_STATES, orderStateOf } from "@/lib/domain/order-states";
import { AppError } from "@/lib/errors";
import { getOrderForReseller, listOrders, type OrderCursor } from "@/lib/orders/get-order";
import { getPrices, USD } from "@/lib/prices/prices";
import { priceScope } from "./prices";
import type { OrderDetail, OrderList, OrderRow } from "./types";

// Orders read models over lib/orders, always scoped by the reseller: an order of another
// reseller is simply not found.

export const ORDER_PAGE_SIZE = 20;
const ID_SEARCH_RE = /^[0-9a-zA-Z]{1,64}$/;

const toRow = (o: Order): OrderRow => ({
  id: o.id,
  status: orderStateOf(o.status),
  fromCurrency: o.fromCurrency,
  toCurrency: o.toCurrency,
  fromAmount: o.fromAmount,
  toAmount: o.toAmount,
  markupBps: o.markupBps,
  profit: o.profit,
  channel: o.channel,
  createdAt: o.createdAt.toISOString(),
  updatedAt: o.updatedAt.toISOString(),
});

export interface OrderQuery {
  resellerId: string;
  status?: string | null;
  search?: string | null;
  /** A channel (lib/channels); anything that is not one is ignored. */
  channel?: string | null;
  /** Cursors from a list's `older` / `newer` (the URL's `after` / `before`); at most one is used. */
  after?: string | null;
  before?: string | null;
  /** The oldest page (the list's last). */
  oldest?: boolean;
  pageSize?: number;
  /** lib/orders' LIST_COUNT_CAP unless given (tests). */
  countCap?: number;
}

/** A cursor in a URL: the row's createdAt in epoch milliseconds and its id, "1764072000000_<id>". */
const CURSOR_RE = /^(\d{1,15})_([0-9a-z]{1,64})$/;

export const encodeCursor = (c: OrderCursor): string => `${c.createdAt.getTime()}_${c.id}`;

/** The last millisecond of year 9999: a later date has no 4-digit ISO year (PostgreSQL refuses the text, SQLite's sorts wrong). */
const MAX_CURSOR_MS = 253_402_300_799_999;

/** A cursor from a URL, or null for anything that is not one (then the list starts from its first page). */
export function decodeCursor(text: string | null | undefined): OrderCursor | null {
  const m = CURSOR_RE.exec(text ?? "");
  if (!m || Number(m[1]) > MAX_CURSOR_MS) return null;
  return { createdAt: new Date(Number(m[1])), id: m[2] };
}

/** Normalises untrusted list parameters (from a query string) into a safe query. */
export function parseOrderQuery(resellerId: string, params: URLSearchParams | Record<string, string | undefined>): OrderQuery {
  const get = (k: string) => (params instanceof URLSearchParams ? params.get(k) : params[k]) ?? null;
  const status = get("status");
  const after = decodeCursor(get("after")) ? get("after") : null;
  const before = !after && decodeCursor(get("before")) ? get("before") : null;
  return {
    resellerId,
    status: status && (ORDER_STATES as readonly string[]).includes(status) ? status : null,
    search: get("q")?.trim() || null,
    channel: parseChannel(get("channel")) ? get("channel") : null,
    after,
    before,
    oldest: !after && !before && get("oldest") === "1",
  };
}

export async function listResellerOrders(db: Db, q: OrderQuery): Promise<OrderList> {
  const pageSize = Math.min(Math.max(q.pageSize ?? ORDER_PAGE_SIZE, 1), 100);
  const search = q.search?.trim() ?? "";
  const none = { items: [], pageSize, total: 0, totalCapped: false, newer: null, older: null, searchTooShort: false };
  if (search && !ID_SEARCH_RE.test(search)) return none;
  const after = decodeCursor(q.after);
  const r = await listOrders(db, {
    resellerId: q.resellerId,
    status: q.status,
    channel: q.channel,
    search,
    after,
    before: after ? null : decodeCursor(q.before),
    oldest: q.oldest,
    pageSize,
    countCap: q.countCap,
  });
  return {
    items: r.orders.map(toRow),
    pageSize: r.pageSize,
    total: r.total,
    totalCapped: r.totalCapped,
    newer: r.newer && encodeCursor(r.newer),
    older: r.older && encodeCursor(r.older),
    searchTooShort: r.searchTooShort,
  };
}

export async function getResellerOrder(db: Db, opts: { resellerId: string; orderId: string }): Promise<OrderDetail | null> {
  if (!ID_SEARCH_RE.test(opts.orderId)) return null;
  let o: Awaited<ReturnType<typeof getOrderForReseller>>;
  try {
    o = await getOrderForReseller(db, { resellerId: opts.resellerId, orderId: opts.orderId.toLowerCase() });
  } catch (e) {
    if (e instanceof AppError && e.code === "ORDER_NOT_FOUND") return null;
    throw e;
  }
  const widgetId = parseChannel(o.channel)?.type === "widget" ? parseChannel(o.channel)?.id : null;
  const [apiKey, widget, ledger, price] = await Promise.all([
    o.apiKeyId
      ? db.apiKey.findFirst({ where: { id: o.apiKeyId, resellerId: opts.resellerId }, select: { id: true, name: true, prefix: true } })
      : null,
    widgetId ? db.widget.findFirst({ where: { id: widgetId, resellerId: opts.resellerId }, select: { id: true, name: true } }) : null,
    // By the order alone (its unique (orderId, kind) index; the order is the reseller's, found above): with the
    // reseller's condition too, SQLite's planner took the (resellerId, currency) index and read the reseller's
    // whole ledger (135 ms at 100,000 orders, bench/README.md).
    db.ledgerEntry.findMany({ where: { orderId: o.id }, select: { kind: true, amount: true } }),
    getPrices().tryPrice(o.toCurrency, USD, { scope: priceScope(opts.resellerId) }),
  ]);
  const settle = ledger.find((e) => e.kind === "order_profit_settle");
  const reversed = ledger.some((e) => e.kind === "order_profit_reverse");
  return {
    ...toRow(o),
    rate: o.rate,
    rawToAmount: o.rawToAmount,
    platformFeeBps: o.platformFeeBps,
    payinAddress: o.payinAddress ?? "",
    payinExtraId: o.payinExtraId,
    payoutAddress: o.payoutAddress,
    payoutExtraId: o.payoutExtraId,
    refundAddress: o.refundAddress,
    refundExtraId: o.refundExtraId,
    amountReceived: o.amountReceived,
    payinHash: o.payinHash,
    payoutHash: o.payoutHash,
    refund: o.refundState ? { state: o.refundState, hash: o.refundHash, amount: o.refundAmount } : null,
    failureReason: failureReasonOf(o.failureReason),
    expiresAt: o.expiresAt.toISOString(),
    viaKey: apiKey,
    viaWidget: widget,
    profitState: settle ? "available" : reversed || o.status === "failed" ? "reversed" : "pending",
    realisedProfit: settle ? settle.amount : null,
    toPriceUsd: price?.rate ?? null,
    toPriceDate: price?.at.toISOString() ?? null,
    toPriceSource: price?.source ?? null,
    events: o.events.map((e) => ({ status: e.status, note: e.note, at: e.at.toISOString() })),
  };
}
