import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { migrate } from "@/lib/db/migrate";
import { createDatabase, type TestDatabase } from "./server";

// The tests of a data migration (tests/db/*-migration.test.ts): a fresh database migrated up to
// the migration named `suffix`, excluded; rows written in raw SQL as the previous release wrote
// them; then the rest of the migrations, as an upgrade applies them.

export interface DatabaseBefore {
  db: TestDatabase;
  /** The migration under test and those after it, as the upgrade must apply them. */
  later: string[];
  /** Runs SQL statements on the database, outside the app (the previous release's writes). */
  exec: (statements: string[]) => Promise<void>;
  /** Applies the rest; what it applied. */
  upgrade: () => Promise<string[]>;
  cleanup: () => Promise<void>;
}

export async function databaseBefore(kind: "sqlite" | "postgres", suffix: string): Promise<DatabaseBefore> {
  const provider = kind === "sqlite" ? "sqlite" : "postgresql";
  const all = fs
    .readdirSync(`prisma/migrations/${provider}`)
    .filter((d) => !d.endsWith(".toml"))
    .sort();
  const target = all.find((d) => d.endsWith(suffix));
  if (!target) throw new Error(`no migration ending in ${suffix}`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "migration-before-"));
  for (const d of all.filter((d) => d < target))
    fs.cpSync(`prisma/migrations/${provider}/${d}`, path.join(root, "prisma/migrations", provider, d), { recursive: true });
  const db = await createDatabase(kind);
  const cleanup = async () => {
    await db.drop();
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    await migrate(db.url, { root });
  } catch (e) {
    await cleanup();
    throw e;
  }
  return {
    db,
    later: all.filter((d) => d >= target),
    exec: async (statements) => {
      if (kind === "sqlite") {
        const s = new Database(db.url.slice("file:".length));
        s.exec(statements.join(";\n"));
        s.close();
        return;
      }
      const { default: pg } = await import("pg");
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      await c.query(statements.join(";\n"));
      await c.end();
    },
    upgrade: async () => (await migrate(db.url)).applied,
    cleanup,
  };
}
