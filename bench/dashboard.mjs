#!/usr/bin/env node
// Every dashboard read model over one big reseller, on each database: BENCH_ORDERS orders and
// BENCH_LINES ledger lines (LedgerEntry + JournalLine rows), seeded in bulk by bench/seed.mjs.
// Each read is called BENCH_CALLS times after every read has run once and after two warm-up
// calls of its own (not counted; the first statement of a process starts Prisma's client),
// through the built lib/dist, and the script
// prints its p50, p95 and max, and the longest the event loop went without a turn during any
// call (a 1 ms timer's lateness, so about 1 ms when nothing blocks it): on SQLite each statement
// runs on the event loop, so every request of the process waits that long.
//
//   node scripts/build-server.mjs && node bench/dashboard.mjs
//     BENCH_ORDERS=1000000 BENCH_LINES=10000000 BENCH_DB=sqlite,postgres BENCH_CALLS=20
//     BENCH_CHECK=1 (run `ledger:check` on the seeded books first; minutes at full size)
//     BENCH_ONLY=orders,channels (only the reads whose label contains one of these)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { NOW, orderId, STEP_MS, seed } from "./seed.mjs";
import { ROOT, runPerDatabase, wanted } from "./support.mjs";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const LINES = Number(process.env.BENCH_LINES ?? 10_000_000);
const DBS = (process.env.BENCH_DB ?? "sqlite,postgres").split(",");
const CALLS = Number(process.env.BENCH_CALLS ?? 20);
for (const f of ["lib/dist/index.mjs", "dist/cli.mjs"])
  if (!fs.existsSync(path.join(ROOT, f))) {
    console.error("run `node scripts/build-server.mjs` (or `npm run build`) first");
    process.exit(1);
  }

/** Reads a CSV stream until `rows` lines (the header included) have come, then cancels it. */
async function readCsv(stream, rows) {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += dec.decode(value).split("\r\n").length - 1;
    if (n >= rows) break;
  }
  await reader.cancel();
  return `${n} lines`;
}

const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

async function timeCalls(label, fn) {
  for (let k = 0; k < 2; k++) await fn();
  const times = [];
  let held = 0;
  let result;
  for (let k = 0; k < CALLS; k++) {
    let last = performance.now();
    const tick = setInterval(() => {
      const t = performance.now();
      held = Math.max(held, t - last);
      last = t;
    }, 1);
    const t = performance.now();
    result = await fn();
    times.push(performance.now() - t);
    clearInterval(tick);
    held = Math.max(held, performance.now() - last);
  }
  times.sort((a, b) => a - b);
  return { label, p50: pct(times, 50), p95: pct(times, 95), max: times[times.length - 1], held, result };
}

function reads(lib, db) {
  const list = (q) => async () => {
    const r = await lib.listResellerOrders(db, lib.parseOrderQuery("me", q));
    return `${r.totalCapped ? ">" : ""}${r.total} orders, ${r.items.length} shown${r.older ? ", more" : ""}`;
  };
  const mid = Math.floor(ORDERS / 2) + 5; // a finished order
  // The cursor of the nth order from the newest (bench/seed.mjs: one every STEP_MS up to NOW, ids by index).
  const cursorAt = (n) => `${NOW.getTime() - (n + 1) * STEP_MS}_${orderId(ORDERS - 1 - n)}`;
  const out = [];
  for (const days of [7, 30, 90]) {
    out.push([
      `overview ${days}d`,
      async () => {
        const o = await lib.getOverview(db, { resellerId: "me", days, now: NOW });
        return `${o.ordersInPeriod} orders`;
      },
    ]);
    out.push([`earnings ${days}d`, async () => `${(await lib.getEarningsSeries(db, { resellerId: "me", days, now: NOW })).totalUsd} USD`]);
    out.push([
      `channels ${days}d`,
      async () => {
        const c = await lib.getChannelStats(db, { resellerId: "me", days, now: NOW });
        const shown = c.channels.reduce((n, x) => n + x.orders, 0);
        return `${c.channels.length} channels${c.others ? ` and ${c.others.channels} others` : ""}, ${shown + (c.others?.orders ?? 0)} orders`;
      },
    ]);
  }
  out.push(
    ["orders page 1", list({})],
    // Keyset pages: a cursor halfway down the list (a deep Next) and the oldest page.
    ["orders page 2", list({ after: cursorAt(10) })],
    ["orders deep page (halfway)", list({ after: cursorAt(Math.floor(ORDERS / 2)) })],
    ["orders last page (oldest)", list({ oldest: "1" })],
    ["orders failed", list({ status: "failed" })],
    ["orders failed oldest page", list({ status: "failed", oldest: "1" })],
    ["orders confirming", list({ status: "confirming" })],
    ["orders channel key:k1", list({ channel: "key:k1" })],
    ["orders id prefix (6)", list({ q: orderId(mid).slice(0, 6) })],
    ["orders id prefix (4)", list({ q: orderId(mid).slice(0, 4) })],
    ["orders whole id", list({ q: orderId(mid) })],
    ["order detail", async () => (await lib.getResellerOrder(db, { resellerId: "me", orderId: orderId(mid) }))?.profitState],
    ["statements", async () => `${(await lib.getStatements(db, { resellerId: "me", now: NOW })).months.length} months`],
    ["withdrawals", async () => `${(await lib.getWithdrawalsView(db, { resellerId: "me" })).balances.length} balances`],
    ["keys", async () => `${(await lib.listKeyRows(db, { resellerId: "me", revoked: true })).items.length} revoked keys (a page)`],
    ["export orders (first 1000 rows)", () => readCsv(lib.ordersCsv(db, { resellerId: "me" }), 1001)],
    ["export ledger (first 1000 rows)", () => readCsv(lib.ledgerCsv(db, { resellerId: "me" }), 1001)],
    ["export statements", () => readCsv(lib.statementsCsv(db, { resellerId: "me", now: NOW }), Number.POSITIVE_INFINITY)],
  );
  return out.filter(([label]) => wanted(label));
}

await runPerDatabase({
  script: import.meta.filename,
  dbs: DBS,
  what: `${ORDERS} orders and ${LINES} ledger lines`,
  fill: async (kind, url) => {
    const r = await seed(kind, url, { orders: ORDERS, lines: LINES });
    console.log(`${kind}: ${r.orders} orders, ${r.lines} ledger lines (${r.adjustments} adjustment journals)`);
    if (process.env.BENCH_CHECK) {
      const c = spawnSync(process.execPath, [path.join(ROOT, "dist/cli.mjs"), "ledger:check"], {
        env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: "warn" },
        encoding: "utf8",
      });
      console.log(`${kind}: ledger:check exited ${c.status}: ${(c.stdout + c.stderr).trim().split("\n").slice(-3).join(" / ")}`);
      if (c.status !== 0) process.exit(1);
    }
    return r;
  },
  measure: async ({ kind, lib, db }) => {
    const rows = [];
    // Every read once before any is timed: the first read of a new process paid its warm-up
    // (the collection of the load's and the migration's garbage, code not yet optimised) on top
    // of its own two warm-up calls, 10 to 24 ms of loop on whichever read came first.
    for (const [, fn] of reads(lib, db)) await fn();
    for (const [label, fn] of reads(lib, db)) {
      const r = await timeCalls(label, fn);
      rows.push(r);
      const f = (x) => x.toFixed(1).padStart(7);
      console.log(
        `${kind.padEnd(10)} ${label.padEnd(32)} p50 ${f(r.p50)}  p95 ${f(r.p95)}  max ${f(r.max)}  loop held ${f(r.held)} ms  (${r.result})`,
      );
    }
    const slow = rows.filter((r) => r.p95 >= 100 || r.held >= 20).map((r) => r.label);
    console.log(`${kind}: ${CALLS} calls each; over 100 ms at p95 or holding the loop 20 ms: ${slow.join(", ") || "none"}`);
  },
});
