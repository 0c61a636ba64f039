import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { CHROMIUM_LAUNCH } from "./tests/support/chromium";

// End-to-end tests of the dashboard in Debian's Chromium (apt-get install -y chromium;
// never `npx playwright install`), against the production build: `npm run build`, then
// `npm run test:e2e`. The web server below starts dist/server.mjs (the v1 API, the worker
// and the dashboard in one process) on a free port with a fresh SQLite file in a temp dir.
// E2E_BASE_URL=http://host:port runs the tests against a server that is already running.

function freePort(): number {
  const script =
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  return Number(execFileSync(process.execPath, ["-e", script]).toString());
}

// Chosen once in the runner process; the worker processes inherit them through the environment.
if (!process.env.E2E_BASE_URL && !process.env.E2E_PORT) process.env.E2E_PORT = String(freePort());
if (!process.env.E2E_BASE_URL && !process.env.E2E_DATA_DIR)
  process.env.E2E_DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-e2e-"));
const baseURL = process.env.E2E_BASE_URL ?? `http://localhost:${process.env.E2E_PORT}`;

// A second server on PostgreSQL, for the specs that must pass on both databases (PG_SPECS):
// a fresh database made here, once, in the runner (the workers inherit its name), and dropped
// by the global teardown. E2E_PG=0 leaves it out (no PostgreSQL at hand); E2E_PG_ADMIN_URL
// names the server (default: postgres on 127.0.0.1:5432, trust auth, as the HTTP suites use).
const PG_SPECS = /hosted-nojs\.spec\.ts$/;
const withPg = !process.env.E2E_BASE_URL && process.env.E2E_PG !== "0";
const pgAdmin = process.env.E2E_PG_ADMIN_URL ?? process.env.TEST_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
if (withPg && !process.env.E2E_PG_DB) {
  process.env.E2E_PG_DB = `reseller_e2e_${process.pid}_${Date.now().toString(36)}`;
  process.env.E2E_PG_ADMIN_URL = pgAdmin;
  process.env.E2E_PG_PORT = String(freePort());
  process.env.E2E_PG_SECRET = crypto.randomBytes(32).toString("hex");
  const script = `const pg=require('pg');const c=new pg.Client({connectionString:process.argv[1]});c.connect().then(()=>c.query('CREATE DATABASE "'+process.argv[2]+'"')).then(()=>c.end(),e=>{console.error(e.message);process.exit(1)})`;
  execFileSync(process.execPath, ["-e", script, pgAdmin, process.env.E2E_PG_DB], { stdio: ["ignore", "ignore", "inherit"] });
}
const pgBaseURL = `http://localhost:${process.env.E2E_PG_PORT}`;
const pgDatabaseUrl = () => {
  const u = new URL(pgAdmin);
  u.pathname = `/${process.env.E2E_PG_DB}`;
  return u.toString();
};

/** A production server for the specs (dist/server.mjs, built once), on its port and database. */
function e2eServer(port: string, url: string, env: Record<string, string>) {
  return {
    command: "node scripts/ensure-build.mjs && node dist/server.mjs",
    url: `${url}/healthz`,
    reuseExistingServer: false,
    gracefulShutdown: { signal: "SIGTERM" as const, timeout: 5_000 },
    timeout: 600_000,
    stdout: "ignore" as const,
    stderr: "pipe" as const,
    env: {
      NODE_ENV: "production",
      PORT: port,
      APP_URL: url,
      NEXTAUTH_URL: "",
      SANDBOX: "true",
      SIM_STEP_SECONDS: "0.2",
      WORKER_POLL_MS: "100",
      PLATFORM_FEE_BPS: "25",
      MARKUP_CAP_BPS: "1000",
      LOG_LEVEL: "warn",
      // Every test signs in from 127.0.0.1, several times a minute; the limit itself is
      // tested in tests/http/dashboard-http.test.ts.
      RATE_LIMIT_SIGNIN_PER_MINUTE: "1000",
      // The end user's pages count against the IP's keyless budget (60 a minute), and the
      // axe spec opens dozens of them from 127.0.0.1 within a minute; the limits themselves
      // are tested in tests/http/rate-limits.test.ts.
      RATE_LIMIT_PUBLIC_PER_MINUTE: "1000",
      ...env,
    },
  };
}

export default defineConfig({
  testDir: "tests/e2e",
  globalTeardown: process.env.E2E_BASE_URL ? undefined : "./tests/e2e/global-teardown.ts",
  // Tests run side by side on two workers, those of one file too: every test signs in with its
  // own fresh wallets, so no two share a reseller. A file whose tests share a server's state says
  // so (test.describe.configure({ mode: "default" })).
  fullyParallel: true,
  workers: 2,
  // Guards against a hang, not measures of speed: on a machine loaded by other builds a page
  // took many times longer to answer than alone.
  timeout: 300_000,
  expect: { timeout: 60_000 },
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  use: {
    browserName: "chromium",
    viewport: { width: 1280, height: 800 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: CHROMIUM_LAUNCH,
  },
  projects: [
    // Every spec on the SQLite server.
    { name: "sqlite", use: { baseURL } },
    // The specs that must also pass on PostgreSQL.
    ...(withPg ? [{ name: "postgres", testMatch: PG_SPECS, use: { baseURL: pgBaseURL } }] : []),
  ],
  webServer: process.env.E2E_BASE_URL
    ? undefined
    : [
        e2eServer(process.env.E2E_PORT!, baseURL, {
          // No NEXTAUTH_SECRET: the server generates one into the data dir, like a fresh clone.
          NEXTAUTH_SECRET: "",
          DATABASE_URL: `file:${path.join(process.env.E2E_DATA_DIR!, "e2e.db")}`,
          // The webhook test's receiver listens on 127.0.0.1.
          WEBHOOK_ALLOW_PRIVATE: "true",
        }),
        ...(withPg
          ? [
              e2eServer(process.env.E2E_PG_PORT!, pgBaseURL, {
                // On PostgreSQL a generated secret would go to ./data of the worktree: one made per run instead.
                NEXTAUTH_SECRET: process.env.E2E_PG_SECRET!,
                DATABASE_URL: pgDatabaseUrl(),
              }),
            ]
          : []),
      ],
});
