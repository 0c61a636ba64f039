import { describe, expect, it } from "vitest";
import { createDb } from "@/lib/db/client";
import { decodeEntries } from "@/lib/request-log/entries";
import { listRequestLog } from "@/lib/request-log/list";
import { databaseBefore } from "../support/migration-before";

// Migration request_log_batches moves the request log from a row per request to batches
// (lib/request-log/write.ts) and keeps what was logged: each old row becomes a batch of one
// entry, its time exact to the millisecond (either side of a second and of midnight), its
// error code null or not, and the list reads them back as the app wrote them.

const TARGET = "_request_log_batches";
const TIMES = ["2026-11-20T23:59:59.999Z", "2026-11-21T00:00:00.000Z", "2026-11-21T13:30:00.500Z", "2026-11-21T13:30:00.001Z"];

describe.each(["sqlite", "postgres"] as const)("the request_log_batches migration on %s", (kind) => {
  it("carries every logged request over as an entry, exactly", async () => {
    const before = await databaseBefore(kind, TARGET);
    const db = before.db;
    try {
      // As the app wrote them before: SQLite's dates as ISO text with "+00:00", PostgreSQL's zone-less UTC.
      const at = (iso: string) => (kind === "sqlite" ? `'${iso.replace("Z", "+00:00")}'` : `'${iso.slice(0, 23)}'::timestamp`);
      const rows = [
        `INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('r1', '0x01', CURRENT_TIMESTAMP), ('r2', '0x02', CURRENT_TIMESTAMP)`,
        `INSERT INTO "ApiKey" ("id", "resellerId", "name", "prefix", "hash") VALUES ('k1', 'r1', 'one', 'rk_one', 'h1'), ('k2', 'r2', 'two', 'rk_two', 'h2')`,
      ];
      TIMES.forEach((t, i) => {
        const r = i === 3 ? "r2" : "r1";
        rows.push(
          `INSERT INTO "ApiRequestLog" ("resellerId", "keyId", "at", "method", "route", "path", "status", "statusClass", "errorCode", "latencyMs", "requestId")
           VALUES ('${r}', '${r === "r1" ? "k1" : "k2"}', ${at(t)}, '${i % 2 ? "POST" : "GET"}', '/api/v1/exchange/:id', '/api/v1/exchange/012345…${i}567',
                   ${i % 2 ? 422 : 200}, ${i % 2 ? 4 : 2}, ${i % 2 ? "'SOME_CODE'" : "NULL"}, ${10 + i}, 'req-${i}')`,
        );
      });
      await before.exec(rows);
      expect(await before.upgrade()).toEqual(before.later);
      const conn = createDb(db.url);
      try {
        const batches = await conn.apiRequestBatch.findMany({ orderBy: { id: "asc" } });
        expect(batches.map((b) => [b.resellerId, b.count, b.firstAt.toISOString(), b.lastAt.toISOString()])).toEqual(
          // Oldest first, each its own batch.
          [...TIMES.keys()]
            .sort((x, y) => Date.parse(TIMES[x]) - Date.parse(TIMES[y]))
            .map((i) => [i === 3 ? "r2" : "r1", 1, TIMES[i], TIMES[i]]),
        );
        const entries = batches.flatMap((b) => decodeEntries(b.entries));
        expect(entries.sort((x, y) => x!.requestId.localeCompare(y!.requestId))).toEqual(
          TIMES.map((t, i) => ({
            at: Date.parse(t),
            keyId: i === 3 ? "k2" : "k1",
            method: i % 2 ? "POST" : "GET",
            route: "/api/v1/exchange/:id",
            path: `/api/v1/exchange/012345…${i}567`,
            status: i % 2 ? 422 : 200,
            errorCode: i % 2 ? "SOME_CODE" : null,
            latencyMs: 10 + i,
            requestId: `req-${i}`,
          })),
        );
        // The list reads them: r1's three, newest first, with their key.
        const page = await listRequestLog(conn, { resellerId: "r1" });
        expect(page.items.map((r) => [r.requestId, r.at, r.key?.name])).toEqual([
          ["req-2", TIMES[2], "one"],
          ["req-1", TIMES[1], "one"],
          ["req-0", TIMES[0], "one"],
        ]);
        const old = await conn.$queryRawUnsafe<{ n: unknown }[]>(
          kind === "sqlite"
            ? `SELECT count(*) AS n FROM sqlite_master WHERE name = 'ApiRequestLog'`
            : `SELECT count(*) AS n FROM pg_tables WHERE tablename = 'ApiRequestLog'`,
        );
        expect(Number(old[0].n)).toBe(0);
      } finally {
        await conn.$disconnect();
      }
    } finally {
      await before.cleanup();
    }
  }, 120_000);
});
