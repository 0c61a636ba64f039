import "server-only";
import { type Db, dateParam, emptySql, providerOf, sql } from "@/lib/db/client";
import type { RequestLogView } from "./types";

// The Requests page's list: one reseller's request log, newest first, a keyset page at a time
// by (at, id), filtered by status class, route, key and time range. Always scoped to the
// reseller: a key id is looked up as the reseller's own first (another reseller's key answers
// an empty page at once, without reading that key's rows), and every statement has the
// reseller's condition too. Each filter has its index (prisma/schema.sqlite.prisma:
// (resellerId, at, id), (keyId, at, id), (resellerId, statusClass, at, id), (resellerId,
// route, at, id)): a page is the next rows of one index range from the cursor, with no OFFSET,
// so a deep page costs what the first does (bench/request-log.mjs).

export const REQUEST_LOG_PAGE_MAX = 100;
export const REQUEST_LOG_PAGE_DEFAULT = 50;

export interface RequestLogCursor {
  at: Date;
  id: number;
}

export interface RequestLogQuery {
  resellerId: string;
  /** 2 for 2xx, ... */
  statusClass?: number;
  route?: string;
  keyId?: string;
  /** From this time on (inclusive). */
  from?: Date;
  /** Before this time (exclusive). */
  to?: Date;
  /** The page after this row (the previous page's `older`). */
  older?: RequestLogCursor | null;
  pageSize?: number;
}

export const cursorText = (c: RequestLogCursor) => `${c.at.getTime()}_${c.id}`;

/** A cursor from the page's text (`<ms>_<id>`), or null when it is not one. */
export function parseCursor(text: string): RequestLogCursor | null {
  const m = /^(\d{1,15})_(\d{1,15})$/.exec(text);
  if (!m) return null;
  const at = new Date(Number(m[1]));
  const id = Number(m[2]);
  return Number.isNaN(at.getTime()) || !Number.isSafeInteger(id) ? null : { at, id };
}

export async function listRequestLog(db: Db, q: RequestLogQuery): Promise<{ items: RequestLogView[]; older: RequestLogCursor | null }> {
  const pageSize = Math.min(Math.max(q.pageSize ?? REQUEST_LOG_PAGE_DEFAULT, 1), REQUEST_LOG_PAGE_MAX);
  const none = { items: [], older: null };
  if (q.keyId !== undefined) {
    const own = await db.apiKey.findFirst({ where: { id: q.keyId, resellerId: q.resellerId }, select: { id: true } });
    if (!own) return none;
  }
  // One upper bound, not two: with both the range's end and the cursor, SQLite walked the index
  // from the end down to the range's start, filtering on the cursor (a deep page of a one-day
  // range: 110 ms p95 at 10M rows). The tighter one implies the other; a cursor before the
  // range's start leaves nothing.
  let to = q.to;
  let older = q.older;
  if (older && q.from && older.at < q.from) return none;
  if (older && to) {
    if (older.at < to) to = undefined;
    else older = undefined;
  }
  // SQLite has no statistics: with a key given, its index is the one to read, and the
  // reseller's equality (still checked) must not pull the planner onto the reseller's index.
  const reseller = q.keyId !== undefined && providerOf(db) === "sqlite" ? sql`+"resellerId"` : sql`"resellerId"`;
  const where = sql`${reseller} = ${q.resellerId}
    ${q.keyId !== undefined ? sql`AND "keyId" = ${q.keyId}` : emptySql}
    ${q.statusClass !== undefined ? sql`AND "statusClass" = ${q.statusClass}` : emptySql}
    ${q.route !== undefined ? sql`AND "route" = ${q.route}` : emptySql}
    ${q.from ? sql`AND "at" >= ${dateParam(db, q.from)}` : emptySql}
    ${to ? sql`AND "at" < ${dateParam(db, to)}` : emptySql}
    ${older ? sql`AND ("at", "id") < (${dateParam(db, older.at)}, ${older.id})` : emptySql}`;
  const ids = await db.$queryRaw<{ id: number | bigint }[]>(sql`
    SELECT "id" FROM "ApiRequestLog" WHERE ${where} ORDER BY "at" DESC, "id" DESC LIMIT ${pageSize + 1}`);
  if (!ids.length) return none;
  const page = ids.slice(0, pageSize).map((r) => Number(r.id));
  // By their key alone: with the reseller's equality beside it, SQLite (no statistics) read the
  // reseller's index instead, all of a big reseller's rows (~100 ms a page at 1M). The ids are
  // the reseller's already; checked once more here.
  const rows = (await db.apiRequestLog.findMany({ where: { id: { in: page } }, orderBy: [{ at: "desc" }, { id: "desc" }] })).filter(
    (r) => r.resellerId === q.resellerId,
  );
  const keyIds = [...new Set(rows.map((r) => r.keyId))];
  const keys = new Map(
    (
      await db.apiKey.findMany({ where: { id: { in: keyIds }, resellerId: q.resellerId }, select: { id: true, name: true, prefix: true } })
    ).map((k) => [k.id, k]),
  );
  const items = rows.map(
    (r): RequestLogView => ({
      id: r.id,
      at: r.at.toISOString(),
      method: r.method,
      route: r.route,
      path: r.path,
      status: r.status,
      errorCode: r.errorCode,
      latencyMs: r.latencyMs,
      requestId: r.requestId,
      key: keys.get(r.keyId) ?? null,
    }),
  );
  const last = rows[rows.length - 1];
  return { items, older: ids.length > pageSize && last ? { at: last.at, id: last.id } : null };
}
