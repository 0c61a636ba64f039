#!/usr/bin/env node
// GET /api/v1/currencies on the production build (dist/server.mjs, with the dashboard and
// the worker running, as `npm start` runs it) against a bare node:http server that serves
// the same bytes, in the same run, with the same load generator. Prints both and the ratio.
//
//   npm run build && npm run bench            (BENCH_SECONDS=10 BENCH_CONNECTIONS=50 by default)
//
// The keyless limit (60/min per IP) would turn nearly every request into a 429, so the
// app runs with RATE_LIMIT_PUBLIC_PER_MINUTE raised: the limiter still runs on every request.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { freePort, productionEnv, requireBuild, waitFor } from "./support.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

function load(url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: SECONDS, pipelining: 1 }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

requireBuild();

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-"));
const appPort = await freePort();
const app = spawn(process.execPath, ["dist/server.mjs"], {
  env: { ...productionEnv(appPort, `file:${path.join(dir, "bench.db")}`), RATE_LIMIT_PUBLIC_PER_MINUTE: "1000000000" },
  stdio: ["ignore", "inherit", "inherit"],
});
const appUrl = `http://127.0.0.1:${appPort}/api/v1/currencies`;
await waitFor(appUrl, app, "app");
const sample = await fetch(appUrl);
const bytes = Buffer.from(await sample.arrayBuffer());

const barePort = await freePort();
const bareSrc = `
const http = require("node:http");
const body = Buffer.from(process.env.BODY_B64, "base64");
http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
  res.end(body);
}).listen(${barePort}, "127.0.0.1");`;
const bare = spawn(process.execPath, ["-e", bareSrc], { env: { ...process.env, BODY_B64: bytes.toString("base64") }, stdio: "inherit" });
const bareUrl = `http://127.0.0.1:${barePort}/api/v1/currencies`;
await waitFor(bareUrl, bare, "bare");

console.log(
  `GET /api/v1/currencies: ${bytes.length} bytes, ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds, ${os.cpus().length} cores`,
);
const results = { app: [], bare: [] };
try {
  await load(appUrl); // warm-up (JIT, caches), not counted
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, url] of [
      ["bare", bareUrl],
      ["app", appUrl],
    ]) {
      const r = await load(url);
      const ok = r["2xx"];
      const bad = r.non2xx + r.errors;
      results[name].push({ rps: ok / SECONDS, p99: r.latency.p99 });
      console.log(
        `  round ${round} ${name.padEnd(4)} ${(ok / SECONDS).toFixed(0).padStart(7)} req/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  non-2xx/errors ${bad}`,
      );
      if (bad) console.log(`    statuses ${JSON.stringify(r.statusCodeStats)}, errors ${r.errors}, timeouts ${r.timeouts}`);
    }
  }
} finally {
  app.kill("SIGTERM");
  bare.kill("SIGTERM");
}
const mean = (xs) => xs.reduce((s, x) => s + x.rps, 0) / xs.length;
const appRps = mean(results.app);
const bareRps = mean(results.bare);
console.log(`\nbare node:http   ${bareRps.toFixed(0)} req/s`);
console.log(`app (production) ${appRps.toFixed(0)} req/s`);
console.log(`ratio app/bare   ${(appRps / bareRps).toFixed(2)}`);
fs.rmSync(dir, { recursive: true, force: true });
