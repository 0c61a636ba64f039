"use server";

import { z } from "zod";
import {
  AppError,
  found,
  getDb,
  getEarningsSeries,
  getOverview,
  getResellerOrder,
  getSettingsView,
  getWithdrawalsView,
  listDeliveries,
  listEndpoints,
  listKeyRows,
  listResellerOrders,
  parseOrderQuery,
} from "@/app/_server/lib";
import { forSessionReseller } from "@/app/_server/session";
import type {
  ActionResult,
  ApiKeyRow,
  DeliveryView,
  EarningsSeries,
  EndpointView,
  OrderDetail,
  OrderList,
  Overview,
  SettingsView,
  WithdrawalsView,
} from "@/lib/dashboard/types";

// The dashboard's reads, as server actions its react-query hooks call (queryFn -> action).
// Like the writes in actions.ts, each one re-checks the session, scopes by the session's
// reseller alone (never by an id the browser sends), validates its input, and answers plain
// data or an error as data. Another reseller's order is NOT_FOUND, like an id that does not exist.

const days = z.number().int().min(1).max(366);
const orderQuery = z
  .object({ status: z.string().max(20).optional(), q: z.string().max(100).optional(), page: z.number().int().min(1).max(1e6).optional() })
  .strict();
const keyQuery = z.object({ includeRevoked: z.boolean().optional() }).strict();

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) throw new AppError("INVALID_REQUEST", "The request is not valid.");
  return r.data;
}

export async function getOverviewAction(periodDays: unknown): Promise<ActionResult<Overview>> {
  return forSessionReseller((me) => getOverview(getDb(), { resellerId: me.resellerId, days: parse(days, periodDays) }));
}

export async function getEarningsAction(periodDays: unknown): Promise<ActionResult<EarningsSeries>> {
  return forSessionReseller((me) => getEarningsSeries(getDb(), { resellerId: me.resellerId, days: parse(days, periodDays) }));
}

export async function listOrdersAction(query: unknown): Promise<ActionResult<OrderList>> {
  return forSessionReseller(async (me) => {
    const q = parse(orderQuery, query ?? {});
    return listResellerOrders(
      getDb(),
      parseOrderQuery(me.resellerId, { status: q.status, q: q.q, page: q.page ? String(q.page) : undefined }),
    );
  });
}

export async function getOrderAction(orderId: unknown): Promise<ActionResult<OrderDetail>> {
  return forSessionReseller(async (me) =>
    found(await getResellerOrder(getDb(), { resellerId: me.resellerId, orderId: parse(z.string().max(100), orderId) })),
  );
}

export async function listKeysAction(query: unknown): Promise<ActionResult<ApiKeyRow[]>> {
  return forSessionReseller(async (me) => {
    const { includeRevoked } = parse(keyQuery, query ?? {});
    return listKeyRows(getDb(), { resellerId: me.resellerId, includeRevoked: includeRevoked ?? false });
  });
}

export async function listWebhookEndpointsAction(): Promise<ActionResult<EndpointView[]>> {
  return forSessionReseller((me) => listEndpoints(getDb(), me.resellerId));
}

export async function listWebhookDeliveriesAction(endpointId: unknown): Promise<ActionResult<DeliveryView[]>> {
  return forSessionReseller((me) =>
    listDeliveries(getDb(), { resellerId: me.resellerId, endpointId: typeof endpointId === "string" ? endpointId.slice(0, 100) : "" }),
  );
}

export async function getSettingsAction(): Promise<ActionResult<SettingsView>> {
  return forSessionReseller((me) => getSettingsView(getDb(), { resellerId: me.resellerId }));
}

export async function getWithdrawalsAction(): Promise<ActionResult<WithdrawalsView>> {
  return forSessionReseller((me) => getWithdrawalsView(getDb(), { resellerId: me.resellerId }));
}
