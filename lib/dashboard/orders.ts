import "server-only";
import { parseChannel } from "@/lib/channels/channels";
import type { Db, Order } from "@/lib/db/client";
import { failureReasonOf, ORDER_STATES, orderStateOf } from "@/lib/domain/order-states";
import { AppError } from "@/lib/errors";
import { getOrderForReseller, listOrders } from "@/lib/orders/get-order";
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
  page?: number;
  pageSize?: number;
  /** lib/orders' LIST_COUNT_CAP unless given (tests). */
  countCap?: number;
}

/** Normalises untrusted list parameters (from a query string) into a safe query. */
export function parseOrderQuery(resellerId: string, params: URLSearchParams | Record<string, string | undefined>): OrderQuery {
  const get = (k: string) => (params instanceof URLSearchParams ? params.get(k) : params[k]) ?? null;
  const status = get("status");
  const page = Number(get("page") ?? "1");
  return {
    resellerId,
    status: status && (ORDER_STATES as readonly string[]).includes(status) ? status : null,
    search: get("q")?.trim() || null,
    channel: parseChannel(get("channel")) ? get("channel") : null,
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
}

export async function listResellerOrders(db: Db, q: OrderQuery): Promise<OrderList> {
  const pageSize = Math.min(Math.max(q.pageSize ?? ORDER_PAGE_SIZE, 1), 100);
  const search = q.search?.trim() ?? "";
  if (search && !ID_SEARCH_RE.test(search)) return { items: [], page: 1, pageSize, total: 0, totalCapped: false, pageCount: 1 };
  const r = await listOrders(db, {
    resellerId: q.resellerId,
    status: q.status,
    channel: q.channel,
    search,
    page: q.page ?? 1,
    pageSize,
    countCap: q.countCap,
  });
  return { items: r.orders.map(toRow), page: r.page, pageSize: r.pageSize, total: r.total, totalCapped: r.totalCapped, pageCount: r.pages };
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
