import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { createDb, type Db } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { createDatabase } from "./server";

export interface TempDb {
  db: Db;
  url: string;
  cleanup: () => Promise<void>;
}

/** A migrated SQLite database in a temp folder, for unit tests of service functions. */
export async function tempSqlite(): Promise<TempDb> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-unit-"));
  const url = `file:${path.join(dir, "unit.db")}`;
  await migrate(url);
  const db = createDb(url);
  return {
    db,
    url,
    cleanup: async () => {
      await db.$disconnect();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A migrated database of either kind: a SQLite file, or a fresh PostgreSQL database dropped afterwards. */
export async function tempDatabase(kind: "sqlite" | "postgres"): Promise<TempDb> {
  if (kind === "sqlite") return tempSqlite();
  const created = await createDatabase("postgres");
  await migrate(created.url);
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
