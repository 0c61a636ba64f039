"use server";

import { z } from "zod";
import { args, noArgs, sessionAction } from "@/app/_server/action";
import {
  deliveryPage,
  found,
  getChannelStats,
  getDb,
  getEarningsSeries,
  getOverview,
  getResellerOrder,
  getSettingsView,
  getStatements,
  getWithdrawalsView,
  listEndpoints,
  listKeyRows,
  listResellerOrders,
  listWidgets,
  parseOrderQuery,
} from "@/app/_server/lib";

// The dashboard's reads, as server actions its react-query hooks call (queryFn -> action).
// Like the writes in actions.ts, each one re-checks the session, scopes by the session's
// reseller alone (never by an id the browser sends), validates its input, and answers plain
// data or an error as data. Another reseller's order is NOT_FOUND, like an id that does not exist.

const days = z.number().int().min(1).max(366);
const orderQuery = z
  .object({
    status: z.string().max(20).optional(),
    q: z.string().max(100).optional(),
    channel: z.string().max(80).optional(),
    after: z.string().max(100).optional(),
    before: z.string().max(100).optional(),
    oldest: z.boolean().optional(),
  })
  .strict()
  .nullish();
/** Which list of keys (the active ones, or the revoked ones), and the page (older: the cursor the previous page answered). */
const keyQuery = z
  .object({ revoked: z.boolean().optional(), older: z.string().max(100).nullish() })
  .strict()
  .nullish();

export const getOverviewAction = sessionAction(args(days), ([d], me) => getOverview(getDb(), { resellerId: me.resellerId, days: d }));

export const getChannelStatsAction = sessionAction(args(days), ([d], me) =>
  getChannelStats(getDb(), { resellerId: me.resellerId, days: d }),
);

export const listWidgetsAction = sessionAction(noArgs, (_, me) => listWidgets(getDb(), { resellerId: me.resellerId }));

export const getEarningsAction = sessionAction(args(days), ([d], me) => getEarningsSeries(getDb(), { resellerId: me.resellerId, days: d }));

export const listOrdersAction = sessionAction(args(orderQuery), ([query], me) => {
  const q = query ?? {};
  return listResellerOrders(
    getDb(),
    parseOrderQuery(me.resellerId, {
      status: q.status,
      q: q.q,
      channel: q.channel,
      after: q.after,
      before: q.before,
      oldest: q.oldest ? "1" : undefined,
    }),
  );
});

export const getOrderAction = sessionAction(args(z.string().max(100)), async ([orderId], me) =>
  found(await getResellerOrder(getDb(), { resellerId: me.resellerId, orderId })),
);

export const listKeysAction = sessionAction(args(keyQuery), ([query], me) =>
  listKeyRows(getDb(), { resellerId: me.resellerId, revoked: query?.revoked ?? false, older: query?.older ?? null }),
);

export const listWebhookEndpointsAction = sessionAction(noArgs, (_, me) => listEndpoints(getDb(), me.resellerId));

/** An endpoint id: not a string reads as "" and a longer one is cut to 100 characters (either then matches no endpoint of this reseller). */
const endpointId = z
  .string()
  .catch("")
  .transform((id) => id.slice(0, 100));

/** A page of an endpoint's delivery log (older: the cursor the previous page answered; none for the newest). */
export const listWebhookDeliveriesAction = sessionAction(args(endpointId, z.string().max(40).nullish()), ([id, older], me) =>
  deliveryPage(getDb(), { resellerId: me.resellerId, endpointId: id, older: older ?? null }),
);

export const getSettingsAction = sessionAction(noArgs, (_, me) => getSettingsView(getDb(), { resellerId: me.resellerId }));

export const getWithdrawalsAction = sessionAction(noArgs, (_, me) => getWithdrawalsView(getDb(), { resellerId: me.resellerId }));

export const getStatementsAction = sessionAction(noArgs, (_, me) => getStatements(getDb(), { resellerId: me.resellerId }));
