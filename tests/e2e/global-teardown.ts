import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Removes the temp folder of the test server (SQLite file and generated session secret) and the
 * PostgreSQL server's database (playwright.config.ts made it). E2E_KEEP_DATA=1 keeps them.
 */
export default async function globalTeardown() {
  const pgDb = process.env.E2E_PG_DB;
  if (pgDb && process.env.E2E_KEEP_DATA !== "1" && /^reseller_e2e_[0-9a-z_]+$/.test(pgDb)) {
    const { default: pg } = await import("pg");
    const admin = new pg.Client({ connectionString: process.env.E2E_PG_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${pgDb}" WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  }
  const dir = process.env.E2E_DATA_DIR;
  if (!dir || process.env.E2E_KEEP_DATA === "1") return;
  const resolved = path.resolve(dir);
  if (path.dirname(resolved) === path.resolve(os.tmpdir()) && path.basename(resolved).startsWith("reseller-e2e-"))
    fs.rmSync(resolved, { recursive: true, force: true });
}
