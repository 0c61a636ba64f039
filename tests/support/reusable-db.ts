import Database from "better-sqlite3";
import { type TempDb, tempDatabase } from "./sqlite-db";

// One migrated database a test file reuses, emptied back to its template's state between tests
// (issue 49): on PostgreSQL a new clone (CREATE DATABASE ... TEMPLATE, then DROP) took 5 to 10 s
// on the loaded 2-core machine, a reset some milliseconds. It needs to disable triggers
// (the ledger's append-only ones refuse deletes): PostgreSQL's session_replication_role, which
// the test admin user (postgres) may set; on SQLite the triggers are dropped and made again.

export interface ReusableDb extends TempDb {
  /** Every table back to the rows the migrations left (most empty), and every sequence back to where it was. */
  reset(): Promise<void>;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A migrated database of either kind, cloned once from its template, with a reset(). */
export async function reusableDatabase(kind: "sqlite" | "postgres"): Promise<ReusableDb> {
  const t = await tempDatabase(kind);
  // postgresReset keeps a connection open, which t.cleanup then closes.
  const reset = kind === "sqlite" ? await sqliteReset(t.url) : await postgresReset(t);
  return { ...t, reset };
}

async function sqliteReset(url: string): Promise<() => Promise<void>> {
  const file = url.replace(/^file:/, "");
  const conn = new Database(file, { fileMustExist: true, timeout: 10_000 });
  const tables = (
    conn
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations'`)
      .all() as { name: string }[]
  ).map((r) => r.name);
  const rows = new Map(tables.map((name) => [name, conn.prepare(`SELECT * FROM ${quote(name)}`).all() as Record<string, unknown>[]]));
  const hasSequence = !!conn.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'`).get();
  const sequences = hasSequence ? (conn.prepare(`SELECT name, seq FROM sqlite_sequence`).all() as { name: string; seq: number }[]) : [];
  conn.close();
  return async () => {
    const c = new Database(file, { fileMustExist: true, timeout: 10_000 });
    try {
      // Every table is emptied, so no order of deletes is needed (and none is known here).
      c.pragma("foreign_keys = OFF");
      c.transaction(() => {
        // Triggers read now, not at the start: a test may not add any, but the reset must not lose one.
        const triggers = c.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`).all() as { name: string; sql: string }[];
        for (const tr of triggers) c.exec(`DROP TRIGGER ${quote(tr.name)}`);
        for (const name of tables) c.exec(`DELETE FROM ${quote(name)}`);
        for (const [name, list] of rows)
          for (const r of list) {
            const cols = Object.keys(r);
            c.prepare(`INSERT INTO ${quote(name)} (${cols.map(quote).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`).run(
              ...cols.map((k) => r[k]),
            );
          }
        if (hasSequence) {
          c.exec(`DELETE FROM sqlite_sequence`);
          for (const s of sequences) c.prepare(`INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)`).run(s.name, s.seq);
        }
        for (const tr of triggers) c.exec(tr.sql);
      })();
    } finally {
      c.close();
    }
  };
}

async function postgresReset(t: TempDb): Promise<() => Promise<void>> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  const tables = (
    await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations' ORDER BY 1`,
    )
  ).rows.map((r) => r.name);
  const rows = new Map<string, string>();
  for (const name of tables) {
    const r = await client.query<{ j: string | null }>(`SELECT json_agg(t)::text AS j FROM ${quote(name)} t`);
    if (r.rows[0].j) rows.set(name, r.rows[0].j);
  }
  // last_value is null for a sequence never used: RESTART puts it back there.
  const sequences = (
    await client.query<{ name: string; last: string | null }>(
      `SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename) AS name, last_value::text AS last FROM pg_sequences WHERE schemaname = current_schema()`,
    )
  ).rows;
  // One script, one round trip (simple protocol: no parameters, so the rows' JSON goes as a literal).
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  const script = [
    "BEGIN",
    // Triggers (the append-only ones, the foreign keys') do not fire in replica mode.
    "SET LOCAL session_replication_role = replica",
    ...tables.map((name) => `DELETE FROM ${quote(name)}`),
    ...[...rows].map(
      ([name, json]) => `INSERT INTO ${quote(name)} SELECT * FROM json_populate_recordset(NULL::${quote(name)}, ${literal(json)}::json)`,
    ),
    ...sequences.map((s) => (s.last === null ? `ALTER SEQUENCE ${s.name} RESTART` : `SELECT setval(${literal(s.name)}, ${s.last}, true)`)),
    "COMMIT",
  ].join(";\n");
  const cleanup = t.cleanup;
  t.cleanup = async () => {
    await client.end();
    await cleanup();
  };
  return async () => {
    await client.query(script);
  };
}
