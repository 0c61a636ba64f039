import Database from "better-sqlite3";
import { createDb, type Db } from "@/lib/db/client";
import { migratedDatabase } from "./server";

export interface TempDb {
  db: Db;
  url: string;
  cleanup: () => Promise<void>;
}

/** A migrated SQLite database in a temp folder (a copy of the migrated template), for unit tests of service functions. */
export async function tempSqlite(): Promise<TempDb> {
  return tempDatabase("sqlite");
}

/** A migrated database of either kind, cloned from its template: a SQLite file, or a PostgreSQL database dropped afterwards. */
export async function tempDatabase(kind: "sqlite" | "postgres"): Promise<TempDb> {
  const created = await migratedDatabase(kind);
  const db = createDb(created.url);
  return {
    db,
    url: created.url,
    cleanup: async () => {
      await db.$disconnect();
      await created.drop();
    },
  };
}

/** The statements `fn` runs, values filled in, through a tracing client of the SQLite database at `url`. */
export async function tracedStatements(url: string, fn: (db: Db) => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const traced = createDb(url, undefined, { trace: (q) => statements.push(q) });
  try {
    await fn(traced);
  } finally {
    await traced.$disconnect();
  }
  return statements;
}

/**
 * SQLite's query plan of `statement` on the database at `url`, one step per line, from a
 * read-only connection of its own (`prepare` adds what the statement needs, e.g. a function).
 */
export function queryPlan(url: string, statement: string, params: unknown[] = [], prepare = (c: Database.Database) => c): string {
  const conn = new Database(url.replace(/^file:/, ""), { readonly: true });
  try {
    return (
      prepare(conn)
        .prepare(`EXPLAIN QUERY PLAN ${statement}`)
        .all(...params) as { detail: string }[]
    )
      .map((r) => r.detail)
      .join("\n");
  } finally {
    conn.close();
  }
}
