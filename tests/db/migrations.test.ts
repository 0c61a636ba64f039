import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrate } from "@/lib/db/migrate";
import { createDatabase } from "../support/server";

describe("migrations", () => {
  it("the migrations of both providers produce exactly the Prisma schema (no drift)", () => {
    const out = execFileSync(process.execPath, ["scripts/migrate-dev.mjs", "check"], { encoding: "utf8" });
    expect(out).toContain("sqlite: migrations match the schema");
    expect(out).toContain("postgresql: migrations match the schema");
  }, 120_000);

  it("the PostgreSQL schema is generated from the SQLite one", () => {
    expect(() => execFileSync(process.execPath, ["scripts/sync-schema.mjs", "--check"])).not.toThrow();
  });

  it("SQLite: a fresh file is created and migrated once; a second run applies nothing", async () => {
    const db = await createDatabase("sqlite");
    try {
      const first = await migrate(db.url);
      const dirs = fs
        .readdirSync("prisma/migrations/sqlite")
        .filter((d) => !d.endsWith(".toml"))
        .sort();
      expect(first.applied).toEqual(dirs);
      expect((await migrate(db.url)).applied).toEqual([]);
      const s = new Database(db.url.slice("file:".length), { readonly: true });
      const rows = s.prepare(`SELECT migration_name, checksum FROM _prisma_migrations`).all() as {
        migration_name: string;
        checksum: string;
      }[];
      s.close();
      // Prisma's own bookkeeping: sha256 of migration.sql, so the Prisma CLI could take over.
      for (const r of rows) {
        const sql = fs.readFileSync(path.join("prisma/migrations/sqlite", r.migration_name, "migration.sql"));
        expect(r.checksum).toBe(crypto.createHash("sha256").update(sql).digest("hex"));
      }
    } finally {
      await db.drop();
    }
  });

  it("PostgreSQL: four instances starting at once apply each migration exactly once", async () => {
    const db = await createDatabase("postgres");
    try {
      const results = await Promise.all([1, 2, 3, 4].map(() => migrate(db.url)));
      const applied = results.flatMap((r) => r.applied);
      expect(applied.sort()).toEqual(
        fs
          .readdirSync("prisma/migrations/postgresql")
          .filter((d) => !d.endsWith(".toml"))
          .sort(),
      );
    } finally {
      await db.drop();
    }
  }, 60_000);
});
