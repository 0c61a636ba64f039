#!/usr/bin/env node
// `npm test`: every test, in the order that fails fastest. Builds the production app
// first (the HTTP and browser tests run against it), then unit tests, the HTTP suite on
// SQLite and on PostgreSQL, and the Playwright tests in Chromium. Ends with one line
// "N passed, N failed, N skipped" over all of them.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

// Not test-results/: Playwright empties that folder when it starts.
fs.mkdirSync("reports", { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };

const run = (title, cmd, args, env = {}) => {
  console.log(`\n=== ${title}: ${cmd} ${args.join(" ")}`);
  const t = Date.now();
  const r = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, ...env } });
  console.log(`=== ${title}: ${r.status === 0 ? "ok" : `FAILED (exit ${r.status})`} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  return r.status ?? 1;
};

const finish = (code) => {
  console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exit(code);
};

// The address differential tests compare the registry with about thirty reference libraries
// (262 packages, several wanting Node 22). They live in their own folder with their own lockfile
// so that `npm install` for running and building the product skips them; installed here when
// absent or older than that lockfile.
const REFS = "tests/currencies/differential";
const refsStamp = `${REFS}/node_modules/.package-lock.json`;
if (!fs.existsSync(refsStamp) || fs.statSync(refsStamp).mtimeMs < fs.statSync(`${REFS}/package-lock.json`).mtimeMs) {
  const code = run("reference libraries of the differential tests", "npm", [
    "ci",
    "--prefix",
    REFS,
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
  ]);
  if (code !== 0) finish(code);
}

for (const [title, cmd, args] of [
  ["lint, format, unused exports and import rules (biome, knip, dependency-cruiser)", "npm", ["run", "-s", "lint"]],
  ["schema files in sync", "node", ["scripts/sync-schema.mjs", "--check"]],
  ["typecheck", "npx", ["tsc", "--noEmit"]],
  ["typecheck of the differential tests", "npx", ["tsc", "--noEmit", "-p", REFS]],
  ["production build", "npm", ["run", "build"]],
]) {
  const code = run(title, cmd, args);
  if (code !== 0) finish(code);
}

const vitestJson = "reports/vitest.json";
let code = run("unit + HTTP tests (SQLite, PostgreSQL)", "npx", [
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${vitestJson}`,
]);
if (fs.existsSync(vitestJson)) {
  const v = JSON.parse(fs.readFileSync(vitestJson, "utf8"));
  totals.passed += v.numPassedTests;
  totals.failed += v.numFailedTests;
  totals.skipped += v.numPendingTests + (v.numTodoTests ?? 0);
}
if (code !== 0) finish(code);

const pwJson = "reports/playwright.json";
code = run("browser tests (Chromium)", "npx", ["playwright", "test", "--reporter=list,json"], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson });
if (fs.existsSync(pwJson)) {
  const s = JSON.parse(fs.readFileSync(pwJson, "utf8")).stats;
  totals.passed += s.expected + s.flaky;
  totals.failed += s.unexpected;
  totals.skipped += s.skipped;
}
finish(code);
