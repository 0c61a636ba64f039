import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { assertLedgerConsistent } from "./helpers";

/**
 * The full ledger check (as `ledger:check --full`) on the shared servers' databases, once after
 * every spec has written to them: files and their tests run side by side, so a check after each
 * file would read the others' writes anyway. Then removes the temp folder of the test server
 * (SQLite file and generated session secret) and the PostgreSQL server's database
 * (playwright.config.ts made it). E2E_KEEP_DATA=1 keeps them; a failed check keeps them too.
 */
export default async function globalTeardown() {
  const pgDb = process.env.E2E_PG_DB;
  const sqliteFile = process.env.E2E_DATA_DIR ? path.join(process.env.E2E_DATA_DIR, "e2e.db") : "";
  const checks: Promise<void>[] = [];
  if (sqliteFile && fs.existsSync(sqliteFile)) checks.push(assertLedgerConsistent(`file:${sqliteFile}`));
  if (process.env.E2E_PG !== "0" && process.env.E2E_PG_ADMIN_URL && pgDb) {
    const u = new URL(process.env.E2E_PG_ADMIN_URL);
    u.pathname = `/${pgDb}`;
    checks.push(assertLedgerConsistent(u.toString()));
  }
  await Promise.all(checks);
  if (process.env.E2E_PG !== "0" && process.env.E2E_PG_ADMIN_URL && process.env.E2E_KEEP_DATA !== "1") {
    const { default: pg } = await import("pg");
    const admin = new pg.Client({ connectionString: process.env.E2E_PG_ADMIN_URL });
    await admin.connect();
    try {
      // This run's database, and any a run that is gone left (named after its runner's pid:
      // a config loaded without a run, as `playwright test --list` does, makes one too).
      const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'reseller_e2e_%'");
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (const { datname } of rows) {
        const m = /^reseller_e2e_(\d+)_[0-9a-z]+$/.exec(datname);
        if (m && (datname === pgDb || !alive(Number(m[1])))) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
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
