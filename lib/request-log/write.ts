import "server-only";
import { type Db, driverOf, queryOnPool } from "@/lib/db/client";
import { sqliteValue, statementOf, writeOnSqlite } from "@/lib/db/sqlite-direct";
import type { RequestLogRow } from "./buffer";

// A batch of request log rows in one statement's worth of work, on the bare driver (Prisma's
// CPU per row would be the batch's cost, on the event loop the requests share):
// - PostgreSQL: one INSERT of the batch's columns as arrays, unnested; its text never changes,
//   so the statement is prepared once per connection and a batch binds twelve arrays;
// - SQLite: one prepared single-row INSERT run for each row, in one write transaction on the
//   app's writer connection (lib/db/sqlite-direct.ts: it commits beside the other writes of the
//   turn, and never busy-waits for the lock).

const COLUMNS = ["resellerId", "keyId", "at", "method", "route", "path", "status", "statusClass", "errorCode", "latencyMs", "requestId"];
const list = COLUMNS.map((c) => `"${c}"`).join(", ");

const PG_INSERT = `INSERT INTO "ApiRequestLog" (${list})
  SELECT * FROM unnest($1::text[], $2::text[], $3::timestamp(3)[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::text[], $10::int[], $11::text[])`;
const SQLITE_INSERT = `INSERT INTO "ApiRequestLog" (${list}) VALUES (${COLUMNS.map(() => "?").join(", ")})`;

/** The page's status filter is one indexed column: 2 for 2xx, 4 for 4xx... */
export const statusClassOf = (status: number) => Math.floor(status / 100);

export async function writeRequestLogRows(db: Db, rows: RequestLogRow[]): Promise<void> {
  if (!rows.length) return;
  const driver = driverOf(db);
  if (driver.kind === "postgresql") {
    const cols: unknown[][] = COLUMNS.map(() => new Array(rows.length));
    rows.forEach((r, i) => {
      cols[0][i] = r.resellerId;
      cols[1][i] = r.keyId;
      // UTC, zone-less, as the timestamp(3) column holds it (pg would send local time).
      cols[2][i] = r.at.toISOString().slice(0, 23);
      cols[3][i] = r.method;
      cols[4][i] = r.route;
      cols[5][i] = r.path;
      cols[6][i] = r.status;
      cols[7][i] = statusClassOf(r.status);
      cols[8][i] = r.errorCode;
      cols[9][i] = r.latencyMs;
      cols[10][i] = r.requestId;
    });
    await queryOnPool(db, "request-log-insert", { text: PG_INSERT, values: cols });
    return;
  }
  await writeOnSqlite(db, (conn) => {
    const insert = statementOf(conn, SQLITE_INSERT);
    for (const r of rows)
      insert.run(
        r.resellerId,
        r.keyId,
        sqliteValue(r.at),
        r.method,
        r.route,
        r.path,
        r.status,
        statusClassOf(r.status),
        r.errorCode,
        r.latencyMs,
        r.requestId,
      );
  });
}
