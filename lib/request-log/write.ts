import "server-only";
import { type Db, driverOf, queryOnPool } from "@/lib/db/client";
import { sqliteValue, statementOf, writeOnSqlite } from "@/lib/db/sqlite-direct";
import type { RequestLogRow } from "./buffer";
import { encodeEntries } from "./entries";

// A write of the app's buffer (lib/request-log/buffer.ts): its rows grouped by reseller, each
// group one ApiRequestBatch row, its entries newest first as compact JSON. The database does
// one insert per reseller per write, not one per request into five indexes: that cost the
// cheap reads 15 to 25% of their throughput (bench/README.md, Request log), this about what
// JSON.stringify takes for the rows. On the bare driver, as the hot path's other writes:
// - PostgreSQL: an INSERT of up to eight batches as rows of scalar parameters (prepared once per connection);
// - SQLite: a prepared INSERT per batch, in one write transaction on the app's writer connection
//   (lib/db/sqlite-direct.ts: it commits beside the other writes of the turn, never busy-waits).

/**
 * The longest time one batch spans, oldest entry to newest. A page's upper time bound then
 * starts its index range at `to + MAX_SPAN_MS` (lib/request-log/list.ts), and the retention
 * keeps an entry at most this long past its day.
 */
export const MAX_SPAN_MS = 60_000;

interface Batch {
  resellerId: string;
  firstAt: Date;
  lastAt: Date;
  rows: RequestLogRow[];
}

/** The rows as batches: by reseller, newest first, each spanning at most MAX_SPAN_MS. */
export function toBatches(rows: readonly RequestLogRow[]): Batch[] {
  const byReseller = new Map<string, RequestLogRow[]>();
  for (const r of rows) {
    const list = byReseller.get(r.resellerId);
    if (list) list.push(r);
    else byReseller.set(r.resellerId, [r]);
  }
  const out: Batch[] = [];
  for (const [resellerId, arrived] of byReseller) {
    // Newest first. Rows come in the order their requests ended, so reversed they are almost
    // sorted by start time already: an insertion sort on the times is about linear here (a
    // comparator sort of 2,000 rows showed in the request path's CPU profile).
    const list = arrived.reverse();
    const times = list.map((r) => r.at);
    for (let i = 1; i < list.length; i++) {
      const row = list[i];
      const t = times[i];
      let j = i - 1;
      while (j >= 0 && times[j] < t) {
        list[j + 1] = list[j];
        times[j + 1] = times[j];
        j--;
      }
      list[j + 1] = row;
      times[j + 1] = t;
    }
    let start = 0;
    for (let i = 1; i <= list.length; i++) {
      if (i < list.length && times[start] - times[i] <= MAX_SPAN_MS) continue;
      const part = list.slice(start, i);
      out.push({ resellerId, lastAt: new Date(part[0].at), firstAt: new Date(part[part.length - 1].at), rows: part });
      start = i;
    }
  }
  return out;
}

/**
 * PostgreSQL: up to PG_ROWS batches an INSERT, each a row of scalar parameters, prepared once per
 * connection for each count. (Arrays of the batches, unnested, made pg escape every character
 * of the entries' JSON into the array's text form: the most costly part of the log's request
 * path in a CPU profile.)
 */
const PG_ROWS = 8;
const pgInsert = (n: number) =>
  `INSERT INTO "ApiRequestBatch" ("resellerId", "firstAt", "lastAt", "count", "entries") VALUES ${Array.from(
    { length: n },
    (_, i) => `($${i * 5 + 1}, $${i * 5 + 2}::timestamp(3), $${i * 5 + 3}::timestamp(3), $${i * 5 + 4}::int, $${i * 5 + 5})`,
  ).join(", ")}`;
const PG_INSERTS = Array.from({ length: PG_ROWS + 1 }, (_, n) => (n ? pgInsert(n) : ""));
const SQLITE_INSERT = `INSERT INTO "ApiRequestBatch" ("resellerId", "firstAt", "lastAt", "count", "entries") VALUES (?, ?, ?, ?, ?)`;

// UTC, zone-less, as the timestamp(3) columns hold it (pg would send local time).
const pgTime = (d: Date) => d.toISOString().slice(0, 23);

export async function writeRequestLogRows(db: Db, rows: RequestLogRow[]): Promise<void> {
  if (!rows.length) return;
  const batches = toBatches(rows).map((b) => ({ ...b, entries: encodeEntries(b.rows) }));
  const driver = driverOf(db);
  if (driver.kind === "postgresql") {
    for (let i = 0; i < batches.length; i += PG_ROWS) {
      const part = batches.slice(i, i + PG_ROWS);
      await queryOnPool(db, `request-log-insert-${part.length}`, {
        text: PG_INSERTS[part.length],
        values: part.flatMap((b) => [b.resellerId, pgTime(b.firstAt), pgTime(b.lastAt), b.rows.length, b.entries]),
      });
    }
    return;
  }
  await writeOnSqlite(db, (conn) => {
    const insert = statementOf(conn, SQLITE_INSERT);
    for (const b of batches) insert.run(b.resellerId, sqliteValue(b.firstAt), sqliteValue(b.lastAt), b.rows.length, b.entries);
  });
}
