import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, driverOf, queryOnPool, sql } from "@/lib/db/client";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// Statements run on the pool (lib/db/client.ts, queryOnPool) write timestamps as Prisma does:
// UTC in a timestamp(3) column, whatever the process's time zone. pg alone would send local time.
let t: TempDb;
let db: Db;
beforeAll(async () => {
  t = await tempDatabase("postgres");
  db = t.db;
});
afterAll(() => t?.cleanup());

describe("queryOnPool", () => {
  it("stores a Date as its UTC time outside UTC too, as Prisma reads it back", async () => {
    const tz = process.env.TZ;
    process.env.TZ = "America/New_York"; // Node applies a changed TZ at once
    try {
      const at = new Date("2026-11-23T06:40:01.234Z");
      const [row] = await queryOnPool<{ t: string }>(
        db,
        "tz-check",
        sql`SELECT to_char(${at}::timestamp(3), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t`,
      );
      expect(row.t).toBe(at.toISOString());
      const [back] = await db.$queryRaw<{ t: Date }[]>`SELECT ${row.t}::timestamp(3) AS t`;
      expect(back.t.getTime()).toBe(at.getTime());
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it("is for PostgreSQL only", async () => {
    const s = await tempDatabase("sqlite");
    try {
      await expect(queryOnPool(s.db, "x", sql`SELECT 1`)).rejects.toThrow(/PostgreSQL/);
    } finally {
      await s.cleanup();
    }
  });

  // pg emits a lost idle connection's error on the pool: with no listener, an uncaught
  // exception (vitest fails the run on one). The pool drops the connection; the next query opens one.
  it("survives the server closing an idle connection: the next query works", async () => {
    const own = await tempDatabase("postgres");
    try {
      const { pool } = driverOf(own.db) as { pool: pg.Pool };
      const [{ pid }] = await queryOnPool<{ pid: number }>(own.db, "pid", sql`SELECT pg_backend_pid() AS pid`);
      // Prisma never connected here: the only listener is the pool's own (lib/db/client.ts, newPool).
      expect(pool.listenerCount("error")).toBe(1);
      const admin = new pg.Client({ connectionString: own.url });
      await admin.connect();
      try {
        await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      } finally {
        await admin.end();
      }
      // The pool drops the lost connection when its error arrives.
      while (pool.totalCount > 0) await new Promise((r) => setTimeout(r, 10));
      const [{ pid: next }] = await queryOnPool<{ pid: number }>(own.db, "pid", sql`SELECT pg_backend_pid() AS pid`);
      expect(next).not.toBe(pid);
    } finally {
      await own.cleanup();
    }
  });
});
