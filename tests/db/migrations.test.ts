import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createDb } from "@/lib/db/client";
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

  it.each(["sqlite", "postgres"] as const)(
    "%s: money written by the first release survives the upgrade exactly",
    async (kind) => {
      // Apply only the first migration (a root holding just it), write money as that release did, then upgrade.
      const provider = kind === "sqlite" ? "sqlite" : "postgresql";
      const [first, ...later] = fs
        .readdirSync(`prisma/migrations/${provider}`)
        .filter((d) => !d.endsWith(".toml"))
        .sort();
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "first-release-"));
      fs.cpSync(`prisma/migrations/${provider}/${first}`, path.join(root, "prisma/migrations", provider, first), { recursive: true });
      const db = await createDatabase(kind);
      try {
        expect((await migrate(db.url, { root })).applied).toEqual([first]);
        const amount = "123456789.123456789012345678";
        const insert = [
          `INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('r1', '0x1', CURRENT_TIMESTAMP)`,
          `INSERT INTO "Order" ("id", "resellerId", "fromCurrency", "toCurrency", "fromAmount", "rate", "rawToAmount", "toAmount", "platformFeeBps", "markupBps", "profit", "payinAddress", "payoutAddress", "status", "expiresAt", "updatedAt") VALUES ('o1', 'r1', 'btc', 'eth', '${amount}', '0.0000000000000000000000000000012345', '2', '1.5', 25, 150, '0.5', 'x', 'y', 'finished', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
          `INSERT INTO "LedgerEntry" ("resellerId", "orderId", "currency", "bucket", "kind", "amount") VALUES ('r1', 'o1', 'eth', 'available', 'order_profit_settle', '${amount}')`,
        ];
        if (kind === "sqlite") {
          const s = new Database(db.url.slice("file:".length));
          for (const q of insert) s.exec(q);
          s.close();
        } else {
          const { default: pg } = await import("pg");
          const c = new pg.Client({ connectionString: db.url });
          await c.connect();
          for (const q of insert) await c.query(q);
          await c.end();
        }
        expect((await migrate(db.url)).applied).toEqual(later);
        const conn = createDb(db.url);
        const order = await conn.order.findUniqueOrThrow({ where: { id: "o1" } });
        expect([order.fromAmount, order.rate, order.profit]).toEqual([amount, "0.0000000000000000000000000000012345", "0.5"]);
        expect((await conn.ledgerEntry.findFirstOrThrow({ where: { orderId: "o1" } })).amount).toBe(amount);
        await conn.$disconnect();
      } finally {
        await db.drop();
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
    60_000,
  );
  it("SQLite: a migration that rebuilds a parent table the way Prisma writes it keeps the child rows", async () => {
    // Prisma's SQLite migrations change a table by create-copy-DROP-rename between PRAGMA
    // foreign_keys=OFF/ON; run inside a transaction with enforcement on, the DROP would
    // cascade to every ApiKey and LedgerEntry of every reseller.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "migrate-rebuild-"));
    try {
      const dir = path.join(root, "prisma/migrations/sqlite");
      fs.mkdirSync(dir, { recursive: true });
      const first = fs
        .readdirSync("prisma/migrations/sqlite")
        .filter((d) => !d.endsWith(".toml"))
        .sort()[0];
      fs.cpSync(path.join("prisma/migrations/sqlite", first), path.join(dir, first), { recursive: true });
      const url = `file:${path.join(root, "t.db")}`;
      await migrate(url, { root });
      const s = new Database(url.slice("file:".length));
      s.exec(`INSERT INTO "Reseller" (id, walletAddress, markupBps, updatedAt) VALUES ('r1', '0x01', 0, 0);
        INSERT INTO "ApiKey" (id, resellerId, name, prefix, hash) VALUES ('k1', 'r1', 'n', 'p', 'h');
        INSERT INTO "LedgerEntry" (resellerId, currency, bucket, kind, amount) VALUES ('r1', 'eth', 'pending', 'order_profit_pending', '1');`);
      s.close();
      fs.mkdirSync(path.join(dir, "29990101000000_rebuild"));
      fs.writeFileSync(
        path.join(dir, "29990101000000_rebuild", "migration.sql"),
        `PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Reseller" ("id" TEXT NOT NULL PRIMARY KEY, "walletAddress" TEXT NOT NULL, "markupBps" INTEGER NOT NULL DEFAULT 0,
  "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, "updatedAt" DATETIME NOT NULL, "note" TEXT);
INSERT INTO "new_Reseller" ("id", "walletAddress", "markupBps", "createdAt", "updatedAt") SELECT "id", "walletAddress", "markupBps", "createdAt", "updatedAt" FROM "Reseller";
DROP TABLE "Reseller";
ALTER TABLE "new_Reseller" RENAME TO "Reseller";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
`,
      );
      expect((await migrate(url, { root })).applied).toEqual(["29990101000000_rebuild"]);
      const after = new Database(url.slice("file:".length), { readonly: true });
      const count = (t: string) => (after.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n;
      expect([count("Reseller"), count("ApiKey"), count("LedgerEntry")]).toEqual([1, 1, 1]);
      after.close();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
