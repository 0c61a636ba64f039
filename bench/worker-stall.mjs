#!/usr/bin/env node
// What a big order table costs the API: the production build (`npm start`'s server, with its
// in-process worker polling every WORKER_POLL_MS) on a database holding BENCH_ORDERS waiting
// orders (an hour of a busy service), answering GET /currencies at a steady, modest rate. Every
// worker statement that reads a whole table shows here: on SQLite it runs on the event loop and
// every request waiting behind it is late (p99, max); on PostgreSQL the database's CPU is the
// app's too on one machine. The worker's pass is timed by its own log-free proxy: the latency.
//
//   node bench/worker-stall.mjs       BENCH_ORDERS=200000 BENCH_SECONDS=10 BENCH_RATE=500 BENCH_DB=sqlite,postgres
//                                     BENCH_PROFILE=1: the app under --cpu-prof (bench/profiles/stall-<db>/)
import { spawn } from "node:child_process";
import autocannon from "autocannon";
import Database from "better-sqlite3";
import pg from "pg";
import { createDatabase, freePort, productionEnv, ROOT, requireBuild, waitFor } from "./support.mjs";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 200_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const DBS = (process.env.BENCH_DB ?? "sqlite,postgres").split(",");

requireBuild();

/**
 * Waiting orders made in the last 55 minutes, as POST /exchange leaves them (opened, nothing due
 * before their deadline an hour after creation): none expires during the run, so what the
 * worker costs here is finding that nothing is due, not work.
 */
async function fill(kind, url) {
  if (kind === "sqlite") {
    const s = new Database(url.slice("file:".length));
    const now = Date.now();
    const iso = (ms) => new Date(ms).toISOString().replace("Z", "+00:00");
    const insert = s.prepare(
      `INSERT INTO "Order" ("id", "fromCurrency", "toCurrency", "fromAmount", "rate", "rawToAmount", "toAmount", "platformFeeBps",
         "markupBps", "profit", "payinAddress", "payoutAddress", "status", "expiresAt", "createdAt", "updatedAt")
       VALUES (?, 'btc', 'eth', '0.1', '1', '1', '1', 25, 0, '0', ?, '0x52908400098527886E0F7030069857D2E4169EE7', 'waiting', ?, ?, ?)`,
    );
    s.transaction(() => {
      for (let i = 0; i < ORDERS; i++) {
        const created = now - (i * 3_300_000) / ORDERS;
        insert.run(i.toString(16).padStart(24, "0"), `bc1q${i}`, iso(created + 3_600_000), iso(created), iso(created));
      }
    })();
    s.close();
    return;
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(
    `INSERT INTO "Order" ("id", "fromCurrency", "toCurrency", "fromAmount", "rate", "rawToAmount", "toAmount", "platformFeeBps",
       "markupBps", "profit", "payinAddress", "payoutAddress", "status", "expiresAt", "createdAt", "updatedAt")
     SELECT lpad(to_hex(i), 24, '0'), 'btc', 'eth', 0.1, 1, 1, 1, 25, 0, 0, 'bc1q' || i, '0x52908400098527886E0F7030069857D2E4169EE7',
       'waiting', t + interval '1 hour', t, t
     FROM generate_series(0, $1::int - 1) i, LATERAL (SELECT (now() AT TIME ZONE 'UTC') - i * (interval '55 minutes' / $1::int) AS t) x`,
    [ORDERS],
  );
  await c.query("ANALYZE");
  await c.end();
}

async function run(kind) {
  const db = await createDatabase(kind);
  const port = await freePort();
  const profile = process.env.BENCH_PROFILE === "1" ? ["--cpu-prof", `--cpu-prof-dir=${ROOT}/bench/profiles/stall-${kind}`] : [];
  const app = spawn(process.execPath, [...profile, "dist/server.mjs"], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...productionEnv(port, db.url), RATE_LIMIT_PUBLIC_PER_MINUTE: "1000000000" },
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/healthz`, app, "app"); // migrated by now
    await fill(kind, db.url);
    const load = (duration) =>
      new Promise((resolve, reject) =>
        autocannon({ url: `${base}/api/v1/currencies`, connections: 10, overallRate: RATE, duration }, (e, r) =>
          e ? reject(e) : resolve(r),
        ),
      );
    // The event loop's delay as the app's /metrics reports it (prom-client's monitorEventLoopDelay,
    // reset at every scrape): a scrape after the warm-up starts the window, one after the run reads it.
    const lag = async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      const ms = (name) => (Number(new RegExp(`^nodejs_eventloop_lag_${name}_seconds (\\S+)$`, "m").exec(text)?.[1]) * 1000).toFixed(1);
      return `event loop delay p99 ${ms("p99")} ms, max ${ms("max")} ms`;
    };
    await load(3); // warm-up (JIT, the first worker passes over the full table), not counted
    await lag();
    const res = await load(SECONDS);
    const l = res.latency;
    console.log(
      `${kind.padEnd(8)} ${ORDERS.toLocaleString("en-US")} waiting orders: ${await lag()}; GET /currencies at ${RATE}/s ` +
        `(autocannon sends each second's requests in a burst): p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms, errors ${res.errors + res.non2xx}`,
    );
  } finally {
    app.kill("SIGTERM");
    await new Promise((r) => app.once("exit", r));
    await db.drop();
  }
}

for (const kind of DBS) await run(kind);
