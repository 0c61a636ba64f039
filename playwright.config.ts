import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

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
const chromium = process.env.E2E_CHROMIUM ?? "/usr/bin/chromium";

export default defineConfig({
  testDir: "tests/e2e",
  globalTeardown: process.env.E2E_BASE_URL ? undefined : "./tests/e2e/global-teardown.ts",
  // Files run side by side on two workers (tests within a file in order): every test signs in
  // with its own fresh wallets, so no two share a reseller.
  fullyParallel: false,
  workers: 2,
  // Guards against a hang, not measures of speed: on a machine loaded by other builds a page
  // took many times longer to answer than alone.
  timeout: 300_000,
  expect: { timeout: 60_000 },
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : "list",
  use: {
    baseURL,
    browserName: "chromium",
    viewport: { width: 1280, height: 800 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: process.env.E2E_BASE_URL
    ? undefined
    : {
        command: "node scripts/ensure-build.mjs && node dist/server.mjs",
        url: `${baseURL}/healthz`,
        reuseExistingServer: false,
        gracefulShutdown: { signal: "SIGTERM", timeout: 5_000 },
        timeout: 600_000,
        stdout: "ignore",
        stderr: "pipe",
        env: {
          NODE_ENV: "production",
          PORT: process.env.E2E_PORT!,
          APP_URL: baseURL,
          NEXTAUTH_URL: "",
          // No NEXTAUTH_SECRET: the server generates one into the data dir, like a fresh clone.
          NEXTAUTH_SECRET: "",
          DATABASE_URL: `file:${path.join(process.env.E2E_DATA_DIR!, "e2e.db")}`,
          SANDBOX: "true",
          SIM_STEP_SECONDS: "0.2",
          WORKER_POLL_MS: "100",
          PLATFORM_FEE_BPS: "25",
          MARKUP_CAP_BPS: "1000",
          LOG_LEVEL: "warn",
          // Every test signs in from 127.0.0.1, several times a minute; the limit itself is
          // tested in tests/http/dashboard-http.test.ts.
          RATE_LIMIT_SIGNIN_PER_MINUTE: "1000",
          // The webhook test's receiver listens on 127.0.0.1.
          WEBHOOK_ALLOW_PRIVATE: "true",
        },
      },
});
