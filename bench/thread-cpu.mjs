#!/usr/bin/env node
// The app's CPU per request, by thread, for a few GET paths: the production build on a fresh
// database, each path under autocannon (50 connections) in turn, and for each run the user and
// system CPU its main thread used per answered request (from /proc/<pid>/task/<tid>/stat),
// with the other threads' (GC helpers, libuv) summed. The main thread is where a request's
// JavaScript runs; this separates it from the kernel's share and from the helpers, which the
// per-process figure of production.mjs adds together. Extra settings for the app (e.g. another
// rate-limit store) come as JSON, so that two settings can be compared on one machine.
//
//   npm run build && node bench/thread-cpu.mjs
//   BENCH_DB=sqlite|postgres  BENCH_SECONDS=5  BENCH_ROUNDS=2 (the first is the warm-up)
//   BENCH_PATHS=/api/v1/currencies,/api/v1/estimate?from=btc&to=eth&amount=0.1
//   BENCH_APP_ENV='{"RATE_LIMIT_STORE":"memory"}'
import { spawn } from "node:child_process";
import fs from "node:fs";
import autocannon from "autocannon";
import { createDatabase, freePort, procCpu, productionEnv, ROOT, requireBuild, UNLIMITED_RATES, waitFor } from "./support.mjs";

requireBuild();
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PATHS = (process.env.BENCH_PATHS ?? "/api/v1/currencies,/api/v1/estimate?from=btc&to=eth&amount=0.1").split(",");
const APP_ENV = JSON.parse(process.env.BENCH_APP_ENV ?? "{}");

/** CPU seconds (user, system) each thread of `pid` has used so far. */
function threads(pid) {
  const out = new Map();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const cpu = procCpu(`/proc/${pid}/task/${tid}/stat`);
    if (cpu) out.set(tid, cpu); // else the thread ended meanwhile
  }
  return out;
}

const db = await createDatabase(process.env.BENCH_DB ?? "sqlite");
const port = await freePort();
const app = spawn(process.execPath, ["dist/server.mjs"], {
  cwd: ROOT,
  env: { ...productionEnv(port, db.url), ...UNLIMITED_RATES, ...APP_ENV },
  stdio: ["ignore", "inherit", "inherit"],
});
try {
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/healthz`, app, "app");
  console.log(`${db.url.split(":")[0]}, ${JSON.stringify(APP_ENV)}: µs of CPU per answered request`);
  for (const path of PATHS)
    for (let round = 0; round < ROUNDS; round++) {
      const before = threads(app.pid);
      const res = await new Promise((resolve, reject) =>
        autocannon({ url: base + path, connections: 50, duration: SECONDS }, (e, r) => (e ? reject(e) : resolve(r))),
      );
      const after = threads(app.pid);
      const n = res["2xx"];
      const per = (tid, k) => ((after.get(tid)[k] - (before.get(tid)?.[k] ?? 0)) * 1e6) / n;
      const main = String(app.pid);
      let others = 0;
      for (const tid of after.keys()) if (tid !== main) others += per(tid, "user") + per(tid, "system");
      console.log(
        `  ${path.slice(0, 48).padEnd(48)} round ${round + 1}: ${Math.round(n / SECONDS)} req/s, main thread user ${per(main, "user").toFixed(1)} system ${per(main, "system").toFixed(1)}, other threads ${others.toFixed(1)}`,
      );
    }
} finally {
  if (app.exitCode === null && app.signalCode === null) {
    const exited = new Promise((r) => app.once("exit", r));
    app.kill("SIGTERM");
    await exited;
  }
  await db.drop();
}
