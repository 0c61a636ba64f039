import "server-only";
import { getConfig } from "@/lib/config";
import { type Db, dateParam, emptySql, sql } from "@/lib/db/client";
import { lockReseller } from "@/lib/db/reseller-lock";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from "./events";
import { enqueueEvent, newWebhookSecret, parseEventFilter } from "./outbox";
import { checkWebhookUrl } from "./ssrf";
import type { DeliveryPage, DeliveryView, EndpointView } from "./types";

// A reseller's webhook endpoints, as the dashboard manages them: add (the secret is shown
// once), rotate the secret, disable and enable, send a test event, read the delivery log.

const MAX_ENDPOINTS = 10;
/** After a rotation the old secret keeps signing (a second signature) this long. */
const ROTATION_GRACE_MS = 24 * 3600 * 1000;

type EndpointRow = Awaited<ReturnType<Db["webhookEndpoint"]["findFirstOrThrow"]>>;

const view = (e: EndpointRow): EndpointView => ({
  id: e.id,
  url: e.url,
  events: parseEventFilter(e.events),
  enabled: e.enabled,
  disabledReason: e.disabledReason,
  disabledAt: e.disabledAt?.toISOString() ?? null,
  consecutiveFailures: e.consecutiveFailures,
  createdAt: e.createdAt.toISOString(),
  previousSecretUntil: e.previousSecretUntil && e.previousSecretUntil > new Date() ? e.previousSecretUntil.toISOString() : null,
});

function checkEvents(events: unknown): string[] {
  const list = Array.isArray(events) ? [...new Set(events.filter((e): e is string => typeof e === "string"))] : [];
  const known = new Set<string>(["*", ...WEBHOOK_EVENT_TYPES]);
  if (!list.length || list.some((e) => !known.has(e)))
    throw new AppError("INVALID_REQUEST", `Choose the events: "*" or some of ${WEBHOOK_EVENT_TYPES.join(", ")}.`, { field: "events" });
  return list.includes("*") ? ["*"] : list;
}

async function ownEndpoint(db: Db, resellerId: string, endpointId: string): Promise<EndpointRow> {
  const e = await db.webhookEndpoint.findFirst({ where: { id: String(endpointId), resellerId } });
  if (!e) throw new AppError("NOT_FOUND", "No webhook endpoint with this id.");
  return e;
}

export async function listEndpoints(db: Db, resellerId: string): Promise<EndpointView[]> {
  return (await db.webhookEndpoint.findMany({ where: { resellerId }, orderBy: { createdAt: "asc" } })).map(view);
}

/** Adds an endpoint; its secret is in the answer and never shown again. */
export async function createEndpoint(
  db: Db,
  opts: { resellerId: string; url: unknown; events: unknown; allowPrivate?: boolean },
): Promise<{ endpoint: EndpointView; secret: string }> {
  const url = checkWebhookUrl(String(opts.url ?? ""), opts.allowPrivate ?? getConfig().WEBHOOK_ALLOW_PRIVATE);
  const events = checkEvents(opts.events);
  const secret = newWebhookSecret();
  // The count and the insert behind the reseller's row lock: creations at once never pass MAX_ENDPOINTS.
  const e = await db.$transaction(async (tx) => {
    if (!(await lockReseller(tx, opts.resellerId))) throw new AppError("NOT_FOUND", "No such reseller.");
    if ((await tx.webhookEndpoint.count({ where: { resellerId: opts.resellerId } })) >= MAX_ENDPOINTS)
      throw new AppError("INVALID_REQUEST", `At most ${MAX_ENDPOINTS} webhook endpoints.`);
    return tx.webhookEndpoint.create({
      data: { id: `ep_${newId()}`, resellerId: opts.resellerId, url: url.toString(), events: JSON.stringify(events), secret },
    });
  });
  return { endpoint: view(e), secret };
}

/** A new secret, shown once; the old one also signs for 24 hours so receivers can switch over. */
export async function rotateEndpointSecret(db: Db, opts: { resellerId: string; endpointId: string; now?: Date }) {
  const e = await ownEndpoint(db, opts.resellerId, opts.endpointId);
  const now = opts.now ?? new Date();
  const secret = newWebhookSecret();
  const updated = await db.webhookEndpoint.update({
    where: { id: e.id },
    data: { secret, previousSecret: e.secret, previousSecretUntil: new Date(now.getTime() + ROTATION_GRACE_MS) },
  });
  return { endpoint: view(updated), secret };
}

/** Disables an endpoint (its deliveries wait), or enables it again (its failure count starts over). */
export async function setEndpointEnabled(db: Db, opts: { resellerId: string; endpointId: string; enabled: boolean; now?: Date }) {
  const e = await ownEndpoint(db, opts.resellerId, opts.endpointId);
  const data = opts.enabled
    ? { enabled: true, disabledReason: null, disabledAt: null, consecutiveFailures: 0 }
    : { enabled: false, disabledReason: "Disabled in the dashboard.", disabledAt: opts.now ?? new Date() };
  return view(await db.webhookEndpoint.update({ where: { id: e.id }, data }));
}

export async function sendTestEvent(db: Db, opts: { resellerId: string; endpointId: string; now?: Date }): Promise<string> {
  const e = await ownEndpoint(db, opts.resellerId, opts.endpointId);
  if (!e.enabled) throw new AppError("INVALID_REQUEST", "Enable the endpoint first.");
  const now = opts.now ?? new Date();
  const id = await db.$transaction((tx) =>
    enqueueEvent(tx, {
      resellerId: opts.resellerId,
      type: TEST_EVENT_TYPE,
      subject: null,
      endpointId: e.id,
      data: { endpointId: e.id, message: "A test event from the dashboard." },
      now,
    }),
  );
  if (!id) throw new Error("test event not enqueued");
  return id;
}

/** Deliveries the dashboard's log shows a page at a time. */
export const DELIVERIES_PAGE = 20;

/** A page's cursor: its last delivery's createdAt in epoch milliseconds and its id. */
const DELIVERY_CURSOR_RE = /^(\d{1,15})_(\d{1,15})$/;

/**
 * An endpoint's deliveries, newest first, each with its attempts: `limit` of them (50 unless
 * given, at most 200) from the cursor `older` on (the createdAt and id of the delivery before
 * them). The page is a range of the (endpointId, createdAt) index, whose entries end with the id
 * on both databases: no sort, and nothing read past the page however long the log.
 */
export async function listDeliveries(
  db: Db,
  opts: { resellerId: string; endpointId: string; limit?: number; older?: string | null },
): Promise<DeliveryView[]> {
  const e = await ownEndpoint(db, opts.resellerId, opts.endpointId);
  const c = opts.older ? DELIVERY_CURSOR_RE.exec(opts.older) : null;
  if (opts.older && (!c || Number(c[1]) > 253_402_300_799_999)) throw new AppError("INVALID_REQUEST", "Not a page of this delivery log.");
  const keyset = c ? sql`AND ("createdAt", "id") < (${dateParam(db, new Date(Number(c[1])))}, ${Number(c[2])})` : emptySql;
  const ids = await db.$queryRaw<{ id: number | bigint }[]>(sql`
    SELECT "id" FROM "WebhookDelivery" WHERE "endpointId" = ${e.id} ${keyset}
    ORDER BY "createdAt" DESC, "id" DESC LIMIT ${Math.min(Math.max(opts.limit ?? 50, 1), 200)}`);
  const rows = await db.webhookDelivery.findMany({
    where: { id: { in: ids.map((r) => Number(r.id)) } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    include: { message: { select: { type: true, subject: true } }, log: { orderBy: { id: "asc" } } },
  });
  return rows.map((d) => ({
    id: d.id,
    messageId: d.messageId,
    type: d.message.type,
    subject: d.message.subject,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    lastLatencyMs: d.lastLatencyMs,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: d.status === "pending" ? (d.nextAttemptAt?.toISOString() ?? null) : null,
    createdAt: d.createdAt.toISOString(),
    log: d.log.map((a) => ({ at: a.at.toISOString(), statusCode: a.statusCode, latencyMs: a.latencyMs, error: a.error })),
  }));
}

/** The dashboard's delivery log: DELIVERIES_PAGE deliveries from the cursor `older` on, and the next page's cursor. */
export async function deliveryPage(db: Db, opts: { resellerId: string; endpointId: string; older?: string | null }): Promise<DeliveryPage> {
  const rows = await listDeliveries(db, { ...opts, limit: DELIVERIES_PAGE + 1 });
  const items = rows.slice(0, DELIVERIES_PAGE);
  const last = items[items.length - 1];
  return { items, older: rows.length > DELIVERIES_PAGE && last ? `${Date.parse(last.createdAt)}_${last.id}` : null };
}
