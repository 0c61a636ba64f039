#!/usr/bin/env node
// The request path's parts timed in one process, without sockets: bench/in-process.ts, built
// with the server's own esbuild settings (scripts/build-server.mjs) into the ignored
// bench/profiles/ and run once per database on a fresh one. What each part costs per call,
// wall time and user CPU, apart from the HTTP figures of production.mjs.
//
//   node bench/in-process.mjs
//   BENCH_DB=sqlite,postgres  BENCH_CALLS=100000 (per read case)  BENCH_ORDERS=6000
//   e.g. BENCH_ONLY=estimate,POST (only the cases whose label contains one of these)
//   REQUEST_LOG_ENABLED=false: keyed calls not logged (the request log's cost, against a run with it on)
import { spawnSync } from "node:child_process";
import path from "node:path";
import { build } from "esbuild";
import { options } from "../scripts/build-server.mjs";
import { createDatabase, ROOT, UNLIMITED_RATES } from "./support.mjs";

const out = path.join(ROOT, "bench/profiles/in-process.mjs");
await build({ ...options, entryPoints: { "bench/profiles/in-process": "bench/in-process.ts" }, sourcemap: false });
for (const kind of (process.env.BENCH_DB ?? "sqlite,postgres").split(",")) {
  const db = await createDatabase(kind);
  try {
    const r = spawnSync(process.execPath, [out], {
      cwd: ROOT,
      stdio: "inherit",
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        NODE_ENV: "production",
        LOG_LEVEL: "warn",
        ...UNLIMITED_RATES,
      },
    });
    if (r.status !== 0) process.exitCode = 1;
  } finally {
    await db.drop();
  }
}
