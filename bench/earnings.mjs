#!/usr/bin/env node
// What the dashboard Overview's earnings series costs over a big ledger: one reseller with
// BENCH_ORDERS finished orders, one every 7 s (1M orders: 81 days), each with the three profit
// entries a finished order posts (pending credit, pending release, available settle). The series
// reads the ledger's daily rollup (LedgerDaily, lib/ledger/daily.ts), never the entries, so the
// load writes the rollup rows those entries make (per UTC day, currency, kind and bucket), as
// the postings keep it, and no entry (the read's plan is the rollup's primary key:
// tests/dashboard/earnings.test.ts). Times getEarningsSeries (the built lib/dist) for 7, 30 and
// 90 days, 5 times each, and prints every time.
//
//   npm run build && node bench/earnings.mjs     BENCH_ORDERS=1000000 BENCH_DB=sqlite,postgres
import Database from "better-sqlite3";
import pg from "pg";
import { requireBuild, runPerDatabase, timeFiveCalls } from "./support.mjs";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const DBS = (process.env.BENCH_DB ?? "sqlite,postgres").split(",");
const NOW = new Date("2026-11-23T12:00:00.000Z");
const STEP_MS = 7000;
const WALLET = `0x${"ab".repeat(20)}`;
/** One finished order's entries: bucket, kind, sign. */
const POSTINGS = [
  ["pending", "order_profit_pending", ""],
  ["pending", "order_profit_release", "-"],
  ["available", "order_profit_settle", ""],
];

requireBuild();

/** The rollup rows of the orders' entries: [day, currency, bucket, kind, sum as text]. */
function rollupRows() {
  const sums = new Map();
  const currencies = ["btc", "eth", "usdt", "xmr"];
  for (let i = 0; i < ORDERS; i++) {
    const day = new Date(NOW.getTime() - (ORDERS - i) * STEP_MS).toISOString().slice(0, 10);
    // In units of 10^-6: each amount is 0.00NNNN.
    const units = (i % 9000) + 1000;
    for (const [bucket, kind, sign] of POSTINGS) {
      const key = [day, currencies[i % 4], bucket, kind].join(" ");
      sums.set(key, (sums.get(key) ?? 0) + (sign ? -units : units));
    }
  }
  const text = (u) => {
    const abs = String(Math.abs(u)).padStart(7, "0");
    const t = `${abs.slice(0, -6)}.${abs.slice(-6)}`.replace(/\.?0+$/, "");
    return u < 0 ? `-${t}` : t || "0";
  };
  return [...sums].map(([k, u]) => [...k.split(" "), text(u)]);
}

async function fill(kind, url) {
  const rows = rollupRows();
  if (kind === "sqlite") {
    const s = new Database(url.slice("file:".length));
    s.prepare(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('me', ?, CURRENT_TIMESTAMP)`).run(WALLET);
    const ins = s.prepare(
      `INSERT INTO "LedgerDaily" ("resellerId", "day", "currency", "bucket", "kind", "amount") VALUES ('me', ?, ?, ?, ?, ?)`,
    );
    s.transaction(() => {
      for (const r of rows) ins.run(...r);
    })();
    s.close();
    return;
  }
  const c = new pg.Client(url);
  await c.connect();
  await c.query(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('me', $1, now())`, [WALLET]);
  await c.query(
    `INSERT INTO "LedgerDaily" ("resellerId", "day", "currency", "bucket", "kind", "amount")
     SELECT 'me', r->>0, r->>1, r->>2, r->>3, (r->>4)::numeric FROM jsonb_array_elements($1::jsonb) r`,
    [JSON.stringify(rows)],
  );
  await c.query(`ANALYZE "LedgerDaily"`);
  await c.end();
}

await runPerDatabase({
  script: import.meta.filename,
  dbs: DBS,
  what: `the rollup of ${3 * ORDERS} ledger entries`,
  fill,
  measure: async ({ kind, lib, db }) => {
    for (const days of [7, 30, 90])
      await timeFiveCalls(kind, `${days} days`, async () => {
        const series = await lib.getEarningsSeries(db, { resellerId: "me", days, now: NOW });
        return `total ${series.totalUsd} USD over ${series.days.length} days`;
      });
  },
});
