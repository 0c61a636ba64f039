import "server-only";
import { type Db, driverOf, queryOnPool } from "@/lib/db/client";
import { sqliteDate, sqliteValue, statementOf } from "@/lib/db/sqlite-direct";
import { type Encoded, entryOf, isEncoded, parseEntries, type RequestLogEntry } from "./entries";
import type { RequestLogView } from "./types";
import { MAX_SPAN_MS } from "./write";

// The Requests page's list: one reseller's request log, newest first, a keyset page at a time,
// filtered by status class, route, key and time range. The log is stored in batches (one row
// per reseller per write, lib/request-log/write.ts), so a page is read as: the batches of the
// reseller, newest first, from the cursor on, on one index ((resellerId, lastAt, id, firstAt)),
// their entries decoded and filtered here. Order: batches by (lastAt, id), each batch's entries
// newest first; entries of two batches written a moment apart can interleave by up to the
// buffer's flush interval (documented in docs/api.md, Request log).
//
// A filter that matches little could otherwise read the reseller's whole log for one page: a
// page examines at most `scanLimit` entries, and when it stops there it answers the matches it
// found (perhaps none) with a cursor from where it stopped, so that "More" goes on. Every
// statement is scoped to the reseller: a key id is looked up as the reseller's own first
// (another reseller's key answers an empty page at once), and every batch read has the
// reseller's condition.

/** The page's status filter: 2 for 2xx, 4 for 4xx... */
const statusClassOf = (status: number) => Math.floor(status / 100);

export const REQUEST_LOG_PAGE_MAX = 100;
export const REQUEST_LOG_PAGE_DEFAULT = 50;
/** The most entries one page examines, and the most batches it reads (bench/request-log.mjs). */
export const REQUEST_LOG_SCAN_LIMIT = 20_000;
export const REQUEST_LOG_SCAN_BATCHES = 2_000;

/** A position in the log: the entry `index` of batch `batchId` (whose newest entry is at `lastAt`). */
export interface RequestLogCursor {
  lastAt: Date;
  batchId: number;
  index: number;
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
  /** The page after this position (the previous page's `older`). */
  older?: RequestLogCursor | null;
  pageSize?: number;
  /** The most entries this page examines (default REQUEST_LOG_SCAN_LIMIT). */
  scanLimit?: number;
  /** The most batches this page reads (default REQUEST_LOG_SCAN_BATCHES). */
  scanBatches?: number;
}

const MAX_BATCH_ID = 2 ** 31 - 1;

export const cursorText = (c: RequestLogCursor) => `${c.lastAt.getTime()}_${c.batchId}_${c.index}`;

/** A cursor from the page's text (`<ms>_<batch>_<index>`), or null when it is not one. */
export function parseCursor(text: string): RequestLogCursor | null {
  const m = /^(\d{1,15})_(\d{1,10})_(\d{1,6})$/.exec(text);
  if (!m) return null;
  const lastAt = new Date(Number(m[1]));
  const batchId = Number(m[2]);
  // A batch id is a 32-bit integer column: a larger one is no cursor (PostgreSQL would refuse it).
  return Number.isNaN(lastAt.getTime()) || batchId > MAX_BATCH_ID ? null : { lastAt, batchId, index: Number(m[3]) };
}

interface BatchRow {
  id: number;
  lastAt: Date;
  entries: string;
}

interface BatchRange {
  resellerId: string;
  /** lastAt >= from */
  from?: Date;
  /** lastAt < before */
  before?: Date;
  /** firstAt < firstBefore */
  firstBefore?: Date;
  /** (lastAt, id) < after */
  after: { lastAt: Date; id: number } | null;
  take: number;
}

/**
 * The reseller's batches in a range, newest first, on the bare driver: through Prisma's raw
 * queries the rows' conversion cost ten times the read itself for a rare filter's 2,000 batches
 * (a CPU profile of bench/request-log.mjs). One statement text per set of conditions, prepared
 * once (named on PostgreSQL).
 */
async function readBatches(db: Db, r: BatchRange): Promise<BatchRow[]> {
  const driver = driverOf(db);
  const pg = driver.kind === "postgresql";
  const values: unknown[] = [];
  const param = (v: unknown) => {
    values.push(v instanceof Date && !pg ? sqliteValue(v) : v);
    return pg ? `$${values.length}` : "?";
  };
  const where = [`"resellerId" = ${param(r.resellerId)}`];
  // The statement's name on PostgreSQL: which conditions it has (one text per name).
  let shape = "";
  if (r.from) {
    where.push(`"lastAt" >= ${param(r.from)}`);
    shape += "f";
  }
  if (r.before) {
    where.push(`"lastAt" < ${param(r.before)}`);
    shape += "b";
  }
  if (r.firstBefore) {
    where.push(`"firstAt" < ${param(r.firstBefore)}`);
    shape += "t";
  }
  if (r.after) {
    where.push(`("lastAt", "id") < (${param(r.after.lastAt)}, ${param(r.after.id)})`);
    shape += "a";
  }
  const text = `SELECT "id", "lastAt", "entries" FROM "ApiRequestBatch" WHERE ${where.join(" AND ")}
    ORDER BY "lastAt" DESC, "id" DESC LIMIT ${param(r.take)}`;
  if (driver.kind === "postgresql") {
    return queryOnPool<BatchRow>(db, `request-log-batches-${shape}`, { text, values });
  }
  const rows = statementOf(driver.reader(), text).all(...values) as { id: number; lastAt: unknown; entries: string }[];
  return rows.map((row) => ({ id: row.id, lastAt: sqliteDate(row.lastAt) ?? new Date(Number.NaN), entries: row.entries }));
}

export async function listRequestLog(db: Db, q: RequestLogQuery): Promise<{ items: RequestLogView[]; older: RequestLogCursor | null }> {
  const pageSize = Math.min(Math.max(q.pageSize ?? REQUEST_LOG_PAGE_DEFAULT, 1), REQUEST_LOG_PAGE_MAX);
  const scanLimit = Math.max(q.scanLimit ?? REQUEST_LOG_SCAN_LIMIT, 1);
  const scanBatches = Math.max(q.scanBatches ?? REQUEST_LOG_SCAN_BATCHES, 1);
  const none = { items: [], older: null };
  if (q.keyId !== undefined) {
    const own = await db.apiKey.findFirst({ where: { id: q.keyId, resellerId: q.resellerId }, select: { id: true } });
    if (!own) return none;
  }
  const from = q.from?.getTime();
  const to = q.to?.getTime();
  if (from !== undefined && to !== undefined && from >= to) return none;
  // Tested on the stored tuple ([atMs, keyId, method, route, path, status, ...]), so that only
  // the page's entries become objects: a rare filter examines thousands.
  const matches = (e: Encoded) =>
    (q.statusClass === undefined || statusClassOf(e[5]) === q.statusClass) &&
    (q.route === undefined || e[3] === q.route) &&
    (q.keyId === undefined || e[1] === q.keyId) &&
    (from === undefined || e[0] >= from) &&
    (to === undefined || e[0] < to);

  const found: { entry: RequestLogEntry; at: RequestLogCursor }[] = [];
  /** How many entries were examined, and the last one (`last` null once the whole log was). */
  const seen = { count: 0, last: null as RequestLogCursor | null };
  /** Examines a batch's entries from `start`; false once the page is full or its scan is spent. */
  const scan = (batchId: number, lastAt: Date, json: string, start: number): boolean => {
    const entries = parseEntries(json);
    const end = Math.min(entries.length, start + scanLimit - seen.count);
    for (let index = start; index < end; index++) {
      const e = entries[index];
      // One more than the page: whether an older page exists.
      if (isEncoded(e) && matches(e) && found.push({ entry: entryOf(e), at: { lastAt, batchId, index } }) > pageSize) {
        seen.count += index + 1 - start;
        seen.last = { lastAt, batchId, index };
        return false;
      }
    }
    if (end > start) {
      seen.count += end - start;
      seen.last = { lastAt, batchId, index: end - 1 };
    }
    return seen.count < scanLimit;
  };

  let going = true;
  let after: { lastAt: Date; id: number } | null = null;
  if (q.older) {
    after = { lastAt: q.older.lastAt, id: q.older.batchId };
    // The rest of the cursor's batch (none if the retention has deleted it since).
    const b = await db.apiRequestBatch.findFirst({
      where: { id: q.older.batchId, resellerId: q.resellerId },
      select: { id: true, lastAt: true, entries: true },
    });
    if (b) going = scan(b.id, b.lastAt, b.entries, q.older.index + 1);
  }
  // Then the batches after it, a few at first (a page of the unfiltered log is one batch, or a
  // few on a quiet day), more at each round for a filter that matches little.
  let take = 4;
  let read = 0;
  // A batch holding entries before `to` ends before to + MAX_SPAN_MS.
  const toBound = q.to ? new Date(q.to.getTime() + MAX_SPAN_MS) : null;
  while (going) {
    take = Math.min(take, scanBatches - read);
    // One upper bound for the index range, the lower of the cursor's and the time filter's: given
    // both, SQLite ranged on the filter's and tested the cursor on every batch of it (a deep page
    // of a one-day filter read a day of batches to answer none: bench/request-log.mjs).
    const byCursor = after !== null && (toBound === null || after.lastAt < toBound);
    const batches = await readBatches(db, {
      resellerId: q.resellerId,
      from: q.from,
      before: toBound && !byCursor ? toBound : undefined,
      firstBefore: q.to,
      after: byCursor ? after : null,
      take,
    });
    read += batches.length;
    for (const b of batches) {
      after = { lastAt: b.lastAt, id: b.id };
      going = scan(after.id, after.lastAt, b.entries, 0);
      if (!going) break;
    }
    if (going && batches.length < take) {
      // The whole log examined: no older page.
      seen.last = null;
      break;
    }
    // The page's batches are read: it answers what it found, with a cursor to go on.
    if (read >= scanBatches) break;
    take = Math.min(take * 4, 500);
  }

  const page = found.slice(0, pageSize);
  // The next page starts after the last entry shown when the page filled, else after the last
  // entry examined (the scan stopped short: there may be more further back).
  const older = found.length > pageSize ? page[page.length - 1].at : seen.last;
  const keyIds = [...new Set(page.map((p) => p.entry.keyId))];
  const keys = new Map(
    (
      await db.apiKey.findMany({ where: { id: { in: keyIds }, resellerId: q.resellerId }, select: { id: true, name: true, prefix: true } })
    ).map((k) => [k.id, k]),
  );
  const items = page.map(
    ({ entry: e, at }): RequestLogView => ({
      id: `${at.batchId}.${at.index}`,
      at: new Date(e.at).toISOString(),
      method: e.method,
      route: e.route,
      path: e.path,
      status: e.status,
      errorCode: e.errorCode,
      latencyMs: e.latencyMs,
      requestId: e.requestId,
      key: keys.get(e.keyId) ?? null,
    }),
  );
  return { items, older };
}
