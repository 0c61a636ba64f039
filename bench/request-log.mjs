#!/usr/bin/env node
// What the Requests page's reads cost over a big request log (issue 53): BENCH_ROWS requests
// (default 10,000,000) spread evenly over 30 days, stored as the app stores them: in batches
// (lib/request-log/write.ts), one per reseller per write of the buffer. The batch size is what a
// 1 s flush gives at that rate (BENCH_BATCH, default: requests a second, at least 1; 4 at 10M
// in 30 days: the worst case for a read, many small batches). One batch in 20 is a second
// reseller's (5%), the rest the big reseller's (four keys), with a realistic mix of routes
// (estimates most, then order reads, currencies, creations...) and statuses (about 93% 2xx, 6%
// 4xx, 0.3% 5xx). Seeded without the table's indexes, which are then built as the migration
// defines them: a recursive CTE on SQLite, generate_series on PostgreSQL.
//
// Then times, through the built lib/dist, the dashboard's read (getRequestLogPage: the page of
// 50 and its filter options) for the big reseller: the first page and a deep keyset page (a
// cursor 15 days back) with no filter and with each filter (status class 2xx, 4xx and the rare
// 5xx, a common and a rare route, a key, a one-day range), the other reseller's first page, and
// the big reseller asking with the other's key id. BENCH_CALLS calls each (default 40); prints
// p50 and p95 in ms, the slowest call, and what the page answered. Aim: p95 under 100 ms.
//
//   npm run build && node bench/request-log.mjs     BENCH_ROWS=10000000 BENCH_DB=sqlite,postgres BENCH_CALLS=40 BENCH_BATCH=4
//   BENCH_KEEP=1 keeps the database; BENCH_DB=<kind> BENCH_DB_URL=<url> measures it again (bench/support.mjs)
import { readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { ROOT, requireBuild, runPerDatabase } from "./support.mjs";

const ROWS = Number(process.env.BENCH_ROWS ?? 10_000_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 40);
const DBS = (process.env.BENCH_DB ?? "sqlite,postgres").split(",");
const NOW = new Date("2026-11-29T12:00:00.000Z");
const SPAN_MS = 30 * 86_400_000;
const START_MS = NOW.getTime() - SPAN_MS;
const BATCH = Number(process.env.BENCH_BATCH ?? Math.max(1, Math.round(ROWS / (SPAN_MS / 1000))));
const BATCHES = Math.ceil(ROWS / BATCH);
const WALLETS = { me: `0x${"ab".repeat(20)}`, other: `0x${"cd".repeat(20)}` };
const KEYS = [
  ["key-me-0", "me"],
  ["key-me-1", "me"],
  ["key-me-2", "me"],
  ["key-me-3", "me"],
  ["key-other", "other"],
];

requireBuild();

// The i-th request as SQL over an integer i, in batch j = i / BATCH (the same text on both
// databases). Buckets by multiplicative hashes of i, so that route, status and key vary
// independently along the log.
const bucket = (mul, add, mod) => `((i * ${mul} + ${add}) % ${mod})`;
const isOther = `(i / ${BATCH}) % 20 = 0`;
const reseller = `CASE WHEN (j % 20) = 0 THEN 'other' ELSE 'me' END`;
const key = `CASE WHEN ${isOther} THEN 'key-other' ELSE 'key-me-' || (${bucket(13, 3, 4)}) END`;
const r = bucket(7919, 11, 1000);
const route = `CASE WHEN ${r} < 480 THEN '/api/v1/estimate' WHEN ${r} < 680 THEN '/api/v1/exchange/:id' WHEN ${r} < 830 THEN '/api/v1/currencies'
  WHEN ${r} < 930 THEN '/api/v1/exchange' WHEN ${r} < 975 THEN '/api/v1/range' WHEN ${r} < 985 THEN '/api/v1/sandbox/exchange/:id/deposit'
  WHEN ${r} < 995 THEN '/api/v1/exchange/:id/refund-address' ELSE 'unmatched' END`;
const method = `CASE WHEN ${r} >= 830 AND ${r} < 930 OR ${r} >= 975 AND ${r} < 995 THEN 'POST' ELSE 'GET' END`;
const path_ = `CASE WHEN ${r} >= 480 AND ${r} < 680 THEN '/api/v1/exchange/3f9a1c…' || substr('0000' || (i % 10000), -4)
  WHEN ${r} >= 995 THEN '/api/v1/nope' ELSE replace(${route}, ':id', '3f9a1c…b7e2') END`;
const s = bucket(104729, 13, 10000);
const status = `CASE WHEN ${s} < 9300 THEN CASE WHEN ${r} >= 830 AND ${r} < 930 THEN 201 ELSE 200 END
  WHEN ${s} < 9700 THEN 422 WHEN ${s} < 9850 THEN 404 WHEN ${s} < 9920 THEN 400 WHEN ${s} < 9970 THEN 429 ELSE 503 END`;
const code = `CASE WHEN ${s} < 9300 THEN NULL WHEN ${s} < 9700 THEN 'AMOUNT_TOO_LOW' WHEN ${s} < 9850 THEN 'ORDER_NOT_FOUND'
  WHEN ${s} < 9920 THEN 'INVALID_REQUEST' WHEN ${s} < 9970 THEN 'RATE_LIMITED' ELSE 'ENGINE_UNAVAILABLE' END`;
// An entry as lib/request-log/entries.ts encodes it: [atMs, keyId, method, route, path, status, errorCode, latencyMs, requestId].
const ms = `(${START_MS} + (i * ${SPAN_MS}) / ${ROWS})`;
const entry = (arr) => `${arr}(${ms}, ${key}, ${method}, ${route}, ${path_}, ${status}, ${code}, 5 + i % 120, 'req-' || i)`;
const COLUMNS = `"resellerId", "firstAt", "lastAt", "count", "entries"`;

/** The table's indexes as the migration makes them (dropped for the load, built after it). */
function indexes(kind) {
  const dir = kind === "sqlite" ? "sqlite" : "postgresql";
  const file = path.join(ROOT, "prisma/migrations", dir, "20261129200324_request_log_batches/migration.sql");
  const sql = readFileSync(file, "utf8");
  return [...sql.matchAll(/CREATE INDEX "([^"]+)" ON [^;]+;/g)].map((m) => ({ name: m[1], create: m[0] }));
}

async function fill(kind, url) {
  const idx = indexes(kind);
  if (kind === "sqlite") {
    const db = new Database(url.slice("file:".length));
    db.pragma("synchronous = OFF"); // loading only; the app opens it with its own settings
    db.pragma("cache_size = -262144");
    for (const [w, wallet] of Object.entries(WALLETS))
      db.prepare(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES (?, ?, CURRENT_TIMESTAMP)`).run(w, wallet);
    for (const [id, owner] of KEYS)
      db.prepare(`INSERT INTO "ApiKey" ("id", "resellerId", "name", "prefix", "hash") VALUES (?, ?, ?, ?, ?)`).run(
        id,
        owner,
        `bench ${id}`,
        id.slice(-6),
        `hash-${id}`,
      );
    for (const i of idx) db.exec(`DROP INDEX "${i.name}"`);
    // Dates as the app stores them on SQLite: ISO text in UTC with "+00:00".
    const at = (x) => `strftime('%Y-%m-%dT%H:%M:%f', (${x}) / 1000.0, 'unixepoch') || '+00:00'`;
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ${ROWS}),
      e AS (SELECT i, i / ${BATCH} AS j, ${ms} AS ms, ${entry("json_array")} AS entry FROM n)
      INSERT INTO "ApiRequestBatch" (${COLUMNS})
      SELECT ${reseller}, ${at("min(ms)")}, ${at("max(ms)")}, count(*), '[' || group_concat(entry, ',' ORDER BY i DESC) || ']'
      FROM e GROUP BY j ORDER BY j`);
    for (const i of idx) db.exec(i.create);
    // No ANALYZE: the app never gathers statistics on SQLite, so its plans are made without them.
    db.close();
    return true;
  }
  const c = new pg.Client(url);
  await c.connect();
  for (const [w, wallet] of Object.entries(WALLETS))
    await c.query(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ($1, $2, now())`, [w, wallet]);
  for (const [id, owner] of KEYS)
    await c.query(`INSERT INTO "ApiKey" ("id", "resellerId", "name", "prefix", "hash") VALUES ($1, $2, $3, $4, $5)`, [
      id,
      owner,
      `bench ${id}`,
      id.slice(-6),
      `hash-${id}`,
    ]);
  for (const i of idx) await c.query(`DROP INDEX "${i.name}"`);
  await c.query(`SET maintenance_work_mem = '256MB'`);
  await c.query(`SET work_mem = '256MB'`);
  const at = (x) => `to_timestamp((${x}) / 1000.0) AT TIME ZONE 'UTC'`;
  await c.query(
    `INSERT INTO "ApiRequestBatch" (${COLUMNS})
     SELECT ${reseller}, ${at("min(ms)")}, ${at("max(ms)")}, count(*), json_agg(entry ORDER BY i DESC)::text
     FROM (SELECT i, i / ${BATCH} AS j, ${ms} AS ms, ${entry("json_build_array")} AS entry
           FROM generate_series(0::bigint, ${ROWS - 1}::bigint) i) e
     GROUP BY j ORDER BY j`,
  );
  for (const i of idx) await c.query(i.create);
  await c.query(`ANALYZE "ApiRequestBatch"`); // as autovacuum would after such a load
  await c.end();
  return true;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function time(kind, label, fn) {
  const times = [];
  let last;
  for (let k = 0; k < CALLS; k++) {
    const t = performance.now();
    last = await fn();
    times.push(performance.now() - t);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const f = (x) => x.toFixed(1);
  const p95 = pct(sorted, 95);
  console.log(
    `${kind}: ${label.padEnd(44)} p50 ${f(pct(sorted, 50)).padStart(6)} ms  p95 ${f(p95).padStart(6)} ms  max ${f(sorted.at(-1)).padStart(6)} ms${p95 >= 100 ? "  (over 100 ms)" : ""}  [${last}]`,
  );
}

await runPerDatabase({
  script: import.meta.filename,
  dbs: DBS,
  what: `${ROWS} request log entries in ${BATCHES} batches of ${BATCH}`,
  fill,
  measure: async ({ kind, lib, db }) => {
    // A cursor 15 days back: the first entry of the batch in the middle of the log (ids follow the load's order).
    const mid = Math.floor(BATCHES / 2);
    const lastI = BigInt(Math.min(ROWS, (mid + 1) * BATCH) - 1);
    const midLast = START_MS + Number((lastI * BigInt(SPAN_MS)) / BigInt(ROWS)); // as the SQL computes it, exactly
    const deep = `${midLast}_${mid + 1}_0`;
    const read =
      (resellerId, f = {}) =>
      async () => {
        const p = await lib.getRequestLogPage(db, resellerId, f);
        return `${p.items.length} rows${p.older ? ", more" : ""}`;
      };
    const day = new Date(NOW.getTime() - 10 * 86_400_000);
    const filters = [
      ["no filter", {}],
      ["2xx", { status: "2xx" }],
      ["4xx", { status: "4xx" }],
      ["5xx (rare)", { status: "5xx" }],
      ["route /exchange/:id", { route: "/api/v1/exchange/:id" }],
      ["route refund-address (rare)", { route: "/api/v1/exchange/:id/refund-address" }],
      ["key", { key: "key-me-2" }],
      ["one day", { from: day.toISOString(), to: new Date(day.getTime() + 86_400_000).toISOString() }],
      ["key + 4xx", { key: "key-me-1", status: "4xx" }],
    ];
    for (const [name, f] of filters) {
      await time(kind, `first page, ${name}`, read("me", f));
      await time(kind, `deep page, ${name}`, read("me", { ...f, older: deep }));
    }
    await time(kind, "other reseller (5%), first page", read("other"));
    await time(kind, "other reseller's key id asked by me", read("me", { key: "key-other" }));
  },
});
