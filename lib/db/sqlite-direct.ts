import "server-only";
import { setTimeout as sleep } from "node:timers/promises";
import type Database from "better-sqlite3";
import { type Db, driverOf } from "./client";

// SQLite, for the few hot-path writes (opening an order): a write transaction run
// synchronously on a connection of our own, with statements prepared once. Through Prisma
// each statement of such a transaction went through its query interpreter and the adapter
// prepared it again; the transaction held the adapter's one connection across awaits, so
// every opening queued behind the others (README, Benchmarks).
//
// The transaction never awaits, so it holds the write lock only for its own few statements.
// When someone else holds the lock (this process's Prisma connection in a transaction, or
// another process) it does not wait in place, which would block the event loop that the
// holder may need to finish: it retries a little later, up to WRITE_DEADLINE_MS.

const WRITE_DEADLINE_MS = 10_000;

/** A value as Prisma's better-sqlite3 adapter writes it: dates as ISO text with "+00:00", booleans as 1/0. */
export function sqliteValue(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString().replace("Z", "+00:00");
  if (typeof v === "boolean") return v ? 1 : 0;
  return v;
}

/**
 * A DateTime column's stored value as Prisma's client reads it: epoch milliseconds, or ISO-like
 * text; text with no zone is UTC (SQLite's CURRENT_TIMESTAMP writes "YYYY-MM-DD HH:MM:SS"),
 * a "+HH" zone gets its minutes. Null stays null.
 */
export function sqliteDate(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "number" || typeof v === "bigint") return new Date(Number(v));
  let text = String(v).replace(" ", "T");
  const zone = /(Z|[+-]\d\d(:?\d\d)?)$/.exec(text.slice(10));
  if (!text.includes("T")) text = `${text}T00:00:00Z`;
  else if (!zone) text = `${text}Z`;
  else if (zone[1].length === 3) text = `${text}:00`;
  return new Date(text);
}

const prepared = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** A statement of `conn`, prepared once. */
export function statementOf(conn: Database.Database, sql: string): Database.Statement {
  let m = prepared.get(conn);
  if (!m) {
    m = new Map();
    prepared.set(conn, m);
  }
  let s = m.get(sql);
  if (!s) {
    s = conn.prepare(sql);
    m.set(sql, s);
  }
  return s;
}

const isBusy = (e: unknown) => typeof e === "object" && e !== null && /^SQLITE_BUSY/.test(String((e as { code?: string }).code));

/**
 * Runs `fn` in one IMMEDIATE transaction on the client's writer connection: committed when it
 * returns, rolled back when it throws. `fn` must be synchronous.
 */
export async function writeOnSqlite<T>(db: Db, fn: (conn: Database.Database) => T): Promise<T> {
  const driver = driverOf(db);
  if (driver.kind !== "sqlite") throw new Error("writeOnSqlite is for SQLite");
  const conn = driver.writer();
  const deadline = Date.now() + WRITE_DEADLINE_MS;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    try {
      statementOf(conn, "BEGIN IMMEDIATE").run();
    } catch (e) {
      if (!isBusy(e) || Date.now() > deadline) throw e;
      await sleep(wait);
      continue;
    }
    try {
      const result = fn(conn);
      statementOf(conn, "COMMIT").run();
      return result;
    } catch (e) {
      if (conn.inTransaction) statementOf(conn, "ROLLBACK").run();
      throw e;
    }
  }
}
