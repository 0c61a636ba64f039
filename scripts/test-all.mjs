#!/usr/bin/env node
// `npm test`: every test, in the order that fails fastest. Builds the production app
// first (the HTTP and browser tests run against it), then unit tests, the HTTP suite on
// SQLite and on PostgreSQL, and the Playwright tests in Chromium.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

const run = (title, cmd, args, env = {}) => {
  console.log(`\n=== ${title}: ${cmd} ${args.join(" ")}`);
  const t = Date.now();
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } });
  console.log(`=== ${title}: ${r.status === 0 ? "ok" : `FAILED (exit ${r.status})`} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  if (r.status !== 0) process.exit(r.status ?? 1);
};

run("schema files in sync", "node", ["scripts/sync-schema.mjs", "--check"]);
run("typecheck", "npx", ["tsc", "--noEmit"]);
run("production build", "npm", ["run", "build"]);
run("unit + HTTP tests (SQLite, PostgreSQL)", "npx", ["vitest", "run"]);
if (fs.existsSync("playwright.config.ts")) run("browser tests (Chromium)", "npx", ["playwright", "test"]);
