#!/usr/bin/env node
// What the dashboard Overview's earnings series costs over a big ledger: one reseller with
// BENCH_ORDERS finished orders, one every 7 s (1M orders: 81 days), each with the three profit
// entries a finished order posts (pending credit, pending release, available settle), so
// 3 x BENCH_ORDERS ledger entries. Times getEarningsSeries (lib/dashboard/earnings.ts, the
// built lib/dist) for 7, 30 and 90 days, 5 times each, and prints every time. On SQLite the
// read runs on the event loop: every API request waits behind it. A process keeps the sums of
// closed days: the first call of each period reads the days not kept yet, the others today's.
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

async function fill(kind, url) {
  if (kind === "sqlite") {
    const s = new Database(url.slice("file:".length));
    s.pragma("synchronous = OFF"); // loading only; the app opens it with its own settings
    s.prepare(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('me', ?, CURRENT_TIMESTAMP)`).run(WALLET);
    const ins = s.prepare(
      `INSERT INTO "LedgerEntry" ("resellerId", "currency", "bucket", "kind", "amount", "createdAt") VALUES ('me', ?, ?, ?, ?, ?)`,
    );
    const currencies = ["btc", "eth", "usdt", "xmr"];
    s.transaction(() => {
      for (let i = 0; i < ORDERS; i++) {
        // Stored as the app stores dates on SQLite: ISO text in UTC with "+00:00".
        const at = new Date(NOW.getTime() - (ORDERS - i) * STEP_MS).toISOString().replace("Z", "+00:00");
        const amount = `0.00${(i % 9000) + 1000}`;
        for (const [bucket, kind, sign] of POSTINGS) ins.run(currencies[i % 4], bucket, kind, sign + amount, at);
      }
    })();
    // No ANALYZE: the app never gathers statistics on SQLite, so its plans are made without them.
    s.close();
    return;
  }
  const c = new pg.Client(url);
  await c.connect();
  await c.query(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('me', $1, now())`, [WALLET]);
  await c.query(
    `INSERT INTO "LedgerEntry" ("resellerId", "currency", "bucket", "kind", "amount", "createdAt")
     SELECT 'me', (ARRAY['btc','eth','usdt','xmr'])[1 + i % 4], p.bucket, p.kind, (p.sign || '0.00' || ((i % 9000) + 1000))::numeric,
            $1::timestamp - (($2::int - i) * interval '7 seconds')
     FROM generate_series(0, $2::int - 1) i, jsonb_to_recordset($3::jsonb) AS p(bucket text, kind text, sign text)`,
    [NOW.toISOString().slice(0, 23), ORDERS, JSON.stringify(POSTINGS.map(([bucket, kind, sign]) => ({ bucket, kind, sign })))],
  );
  await c.query(`ANALYZE "LedgerEntry"`); // as autovacuum would after such a load
  await c.end();
}

await runPerDatabase({
  script: import.meta.filename,
  dbs: DBS,
  what: `${3 * ORDERS} ledger entries`,
  fill,
  measure: async ({ kind, lib, db }) => {
    for (const days of [7, 30, 90])
      await timeFiveCalls(kind, `${days} days`, async () => {
        const series = await lib.getEarningsSeries(db, { resellerId: "me", days, now: NOW });
        return `total ${series.totalUsd} USD over ${series.days.length} days`;
      });
  },
});
