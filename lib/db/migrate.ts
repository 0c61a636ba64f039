import "server-only";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "@/lib/root";
import { prepareSqliteFile } from "./sqlite-file";

// Applies prisma/migrations/<provider>/<name>/migration.sql in order, recording them in
// _prisma_migrations exactly as Prisma does (checksum = sha256 of the file), so the Prisma
// CLI could take over. Prisma's own migrate needs a native engine download, impossible
// offline; this runner needs only the database drivers. Safe to run from several
// processes at once: PostgreSQL takes an advisory lock, SQLite an exclusive transaction.

interface Conn {
  exec(sql: string): Promise<void>;
  all<T>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

const DDL = {
  sqlite: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME, "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`,
  postgresql: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" ("id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ, "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ, "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`,
};

async function connect(url: string): Promise<{ provider: "sqlite" | "postgresql"; conn: Conn }> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { default: pg } = await import("pg");
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    return {
      provider: "postgresql",
      conn: {
        exec: async (sql) => void (await c.query(sql)),
        all: async (sql, p = []) => (await c.query(sql, p)).rows,
        run: async (sql, p = []) => void (await c.query(sql, p)),
        close: () => c.end(),
      },
    };
  }
  const { default: Database } = await import("better-sqlite3");
  const file = path.resolve(url.replace(/^file:/, ""));
  prepareSqliteFile(file);
  const s = new Database(file, { timeout: 10_000 });
  // WAL lets the API, the dashboard and a CLI read while the worker writes.
  s.pragma("journal_mode = WAL");
  const q = (sql: string) => sql.replace(/\$\d+/g, "?");
  return {
    provider: "sqlite",
    conn: {
      exec: async (sql) => void s.exec(sql),
      all: async <T>(sql: string, p: unknown[] = []) => s.prepare(q(sql)).all(...p) as T[],
      run: async (sql, p = []) => void s.prepare(q(sql)).run(...p),
      close: async () => void s.close(),
    },
  };
}

export interface MigrateResult {
  applied: string[];
  pending: string[];
}

export function migrationsDir(provider: "sqlite" | "postgresql", root = projectRoot()) {
  return path.join(root, "prisma", "migrations", provider);
}

/** The migrations this build ships, by name, in order. */
export function migrationNames(provider: "sqlite" | "postgresql", root = projectRoot()): string[] {
  const dir = migrationsDir(provider, root);
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort();
}

export async function migrate(url: string, opts: { dryRun?: boolean; root?: string } = {}): Promise<MigrateResult> {
  const { provider, conn } = await connect(url);
  const dir = migrationsDir(provider, opts.root);
  const migrations = migrationNames(provider, opts.root).map((name) => {
    const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
    return { name, sql, checksum: crypto.createHash("sha256").update(sql).digest("hex") };
  });
  const applied: string[] = [];
  try {
    if (provider === "postgresql") await conn.exec("SELECT pg_advisory_lock(72707369)");
    else await conn.exec("BEGIN EXCLUSIVE; COMMIT;"); // waits for another migrator's write lock
    await conn.exec(DDL[provider]);
    const rows = await conn.all<{ migration_name: string; finished_at: unknown }>(
      `SELECT migration_name, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const failed = rows.filter((r) => !r.finished_at);
    if (failed.length) throw new Error(`failed migrations need manual resolution: ${failed.map((f) => f.migration_name).join(", ")}`);
    const done = new Set(rows.map((r) => r.migration_name));
    const pending = migrations.filter((m) => !done.has(m.name));
    if (opts.dryRun) return { applied, pending: pending.map((m) => m.name) };
    for (const m of pending) {
      const id = crypto.randomUUID();
      const now = new Date().toISOString();
      if (provider === "postgresql") {
        await conn.exec("BEGIN");
        try {
          await conn.exec(m.sql);
          await conn.run(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ($1, $2, $3, $4, $5, 1)`,
            [id, m.checksum, m.name, now, now],
          );
          await conn.exec("COMMIT");
        } catch (e) {
          await conn.exec("ROLLBACK").catch(() => {});
          throw new Error(`migration ${m.name} failed: ${(e as Error).message}`);
        }
      } else {
        // Prisma-generated SQLite migrations rebuild a table to change it (create new, copy,
        // DROP old, rename) between PRAGMA foreign_keys=OFF/ON. That pragma is a no-op inside a
        // transaction, and with enforcement on, the DROP cascades (ON DELETE CASCADE) to every
        // child row: switch enforcement off around the transaction instead, and check the
        // foreign keys before committing.
        await conn.exec("PRAGMA foreign_keys=OFF");
        await conn.exec("BEGIN IMMEDIATE");
        try {
          await conn.exec(m.sql);
          const broken = await conn.all<{ table: string }>("PRAGMA foreign_key_check");
          if (broken.length) throw new Error(`foreign keys broken in ${[...new Set(broken.map((b) => b.table))].join(", ")}`);
          await conn.run(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count) VALUES ($1, $2, $3, $4, $5, 1)`,
            [id, m.checksum, m.name, now, now],
          );
          await conn.exec("COMMIT");
        } catch (e) {
          await conn.exec("ROLLBACK").catch(() => {});
          throw new Error(`migration ${m.name} failed: ${(e as Error).message}`);
        } finally {
          await conn.exec("PRAGMA foreign_keys=ON");
        }
      }
      applied.push(m.name);
    }
    return { applied, pending: [] };
  } finally {
    if (provider === "postgresql") await conn.exec("SELECT pg_advisory_unlock(72707369)").catch(() => {});
    await conn.close();
  }
}
