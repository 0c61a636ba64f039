import "server-only";
import { z } from "zod";
import { listWidgets } from "@/lib/channels/channels";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { getPayoutsView } from "@/lib/payouts/instructions";
import { STATUS_CLASSES } from "@/lib/request-log/types";
import { getBrandSettings } from "@/lib/resellers/brand";
import { getTeamView, requirePermission } from "@/lib/teams/team";
import { deliveryPage, listEndpoints } from "@/lib/webhooks/endpoints";
import { found, parseInput } from "./actions-core";
import { getChannelStats } from "./channels";
import { getEarningsSeries } from "./earnings";
import { listKeyRows } from "./keys";
import { getResellerOrder, listResellerOrders, parseOrderQuery } from "./orders";
import { getOverview } from "./overview";
import { getRequestLogPage } from "./requests";
import { dashboardError, jsonResponse, PRIVATE, unauthorizedResponse } from "./route";
import { getSettingsView } from "./settings";
import { getStatements } from "./statements";
import type { DashboardReadName, DashboardReads } from "./types";
import { getWithdrawalsView } from "./withdrawals";

// The dashboard's reads, served as GET /dashboard/api/<name> (app/dashboard/api/[read]/route.ts)
// and fetched by its react-query hooks (app/dashboard/read.ts). Plain GETs, not server actions:
// React runs a client's server actions one at a time, so polls made as actions queued the
// writes (a withdrawal's confirmation) behind them, and an action's id dies with its build.
// Each read: the session re-checked per request, scoped by the session's reseller alone
// (never by an id the browser sends; another reseller's order is NOT_FOUND), its query string
// checked against its schema (a wrong one: 400 INVALID_REQUEST), answered private and uncached.

/** A number of days in the URL: digits, 1 to 366. */
const days = z
  .string()
  .regex(/^\d{1,3}$/)
  .transform(Number)
  .pipe(z.number().int().min(1).max(366));
/** A flag in the URL: "1" for true, absent for false. */
const flag = z
  .literal("1")
  .optional()
  .transform((v) => v === "1");
const text = (max: number) => z.string().max(max);
/** A time in the URL: ISO 8601 with its zone (Z or an offset), as the browser's toISOString() writes it. */
const instant = z.iso.datetime({ offset: true });
const period = z.object({ days }).strict();
const none = z.object({}).strict();

interface Read<K extends DashboardReadName> {
  /** The query string's schema (its values as strings): parses to the read's query (lib/dashboard/types.ts). */
  query: z.ZodType<DashboardReads[K]["query"]>;
  read: (db: Db, resellerId: string, query: DashboardReads[K]["query"]) => Promise<DashboardReads[K]["result"]>;
}

export const DASHBOARD_READS: { [K in DashboardReadName]: Read<K> } = {
  overview: { query: period, read: (db, resellerId, q) => getOverview(db, { resellerId, days: q.days }) },
  earnings: { query: period, read: (db, resellerId, q) => getEarningsSeries(db, { resellerId, days: q.days }) },
  channels: { query: period, read: (db, resellerId, q) => getChannelStats(db, { resellerId, days: q.days }) },
  widgets: { query: none, read: (db, resellerId) => listWidgets(db, { resellerId }) },
  brand: { query: none, read: (db, resellerId) => getBrandSettings(db, { resellerId }) },
  orders: {
    query: z
      .object({
        status: text(20).optional(),
        q: text(100).optional(),
        channel: text(80).optional(),
        after: text(100).optional(),
        before: text(100).optional(),
        oldest: flag,
      })
      .strict(),
    // The same normalising as the Orders page's first render and its CSV export.
    read: (db, resellerId, q) => listResellerOrders(db, parseOrderQuery(resellerId, { ...q, oldest: q.oldest ? "1" : undefined })),
  },
  order: {
    query: z.object({ id: text(100) }).strict(),
    read: async (db, resellerId, q) => found(await getResellerOrder(db, { resellerId, orderId: q.id })),
  },
  keys: {
    query: z.object({ revoked: flag, older: text(100).optional() }).strict(),
    read: (db, resellerId, q) => listKeyRows(db, { resellerId, revoked: q.revoked ?? false, older: q.older ?? null }),
  },
  "webhook-endpoints": { query: none, read: (db, resellerId) => listEndpoints(db, resellerId) },
  "webhook-deliveries": {
    query: z.object({ endpoint: text(100), older: text(40).optional() }).strict(),
    read: (db, resellerId, q) => deliveryPage(db, { resellerId, endpointId: q.endpoint, older: q.older ?? null }),
  },
  settings: { query: none, read: (db, resellerId) => getSettingsView(db, { resellerId }) },
  withdrawals: { query: none, read: (db, resellerId) => getWithdrawalsView(db, { resellerId }) },
  payouts: { query: none, read: (db, resellerId) => getPayoutsView(db, { resellerId }) },
  statements: { query: none, read: (db, resellerId) => getStatements(db, { resellerId }) },
  requests: {
    query: z
      .object({
        status: z.enum(STATUS_CLASSES).optional(),
        route: text(100).optional(),
        key: text(100).optional(),
        from: instant.optional(),
        to: instant.optional(),
        older: text(40).optional(),
      })
      .strict(),
    read: (db, resellerId, q) => getRequestLogPage(db, resellerId, q),
  },
  team: { query: none, read: (db, resellerId) => getTeamView(db, { resellerId }) },
};

/**
 * A query string as one value per name. An empty value counts as absent (a form's empty
 * field); a name given twice is refused, as the schemas take one value each.
 */
function queryObject(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) {
    if (Object.hasOwn(out, k))
      throw new AppError("INVALID_REQUEST", `The query parameter ${JSON.stringify(k.slice(0, 40))} is given twice.`);
    if (v !== "") out[k] = v;
  }
  return out;
}

/**
 * The answer to GET /dashboard/api/<name>?<params>: `session` gives the signed-in member of
 * this request (none: 401), whose role must allow the read (else 403 FORBIDDEN), then the read's query is checked (unknown read: 404; a wrong
 * query: 400) and the read runs for that reseller alone. Every answer, errors included, has
 * the v1 API's error shape (lib/http/errors.ts) and is private to the session, never cached.
 */
export async function serveDashboardRead(
  db: Db,
  request: { name: string; params: URLSearchParams; session: () => Promise<{ resellerId: string; role: string } | null> },
): Promise<Response> {
  try {
    const me = await request.session();
    if (!me) return unauthorizedResponse();
    if (!Object.hasOwn(DASHBOARD_READS, request.name)) throw new AppError("NOT_FOUND", "There is no such dashboard read.");
    // One entry of the table, whichever it is: its schema's output is its read's query.
    // The member's role, as the database says at this request, may do this read (lib/teams/roles.ts).
    requirePermission(me, `read:${request.name}`);
    const read = DASHBOARD_READS[request.name as DashboardReadName] as unknown as Read<DashboardReadName>;
    const query = parseInput(read.query, queryObject(request.params));
    return jsonResponse(await read.read(db, me.resellerId, query), { headers: PRIVATE });
  } catch (e) {
    return dashboardError(e, PRIVATE);
  }
}
