#!/usr/bin/env node
// What the dashboard's order reads cost for a big reseller: BENCH_ORDERS orders of one reseller,
// one every 7 s (1M orders: 81 days), 96% finished, 3% failed, the last hour's still open.
// Times, through the built lib/dist, the Overview (its orders-by-state count over 7, 30 and 90
// days) and the Orders list: the first page, a state filter (a common, an uncommon and a rare
// state, and the uncommon one's last page), an id prefix and a whole id. Each 5 times; every
// time is printed. On SQLite these reads run on the event loop: every API request waits behind them.
//
//   npm run build && node bench/dashboard-orders.mjs     BENCH_ORDERS=1000000 BENCH_DB=sqlite,postgres
import crypto from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { requireBuild, runPerDatabase, timeFiveCalls } from "./support.mjs";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const DBS = (process.env.BENCH_DB ?? "sqlite,postgres").split(",");
const NOW = new Date("2026-11-23T12:00:00.000Z");
const STEP_MS = 7000;
const WALLET = `0x${"ab".repeat(20)}`;
const OPEN_MS = 3_600_000;

requireBuild();

/** The i-th order's state: the last hour's open, else 3 in 100 failed. */
const stateSql = (i, at) => `CASE WHEN ${at} > ${OPEN_MS} THEN CASE WHEN ${i} % 100 < 3 THEN 'failed' ELSE 'finished' END
  WHEN ${i} % 4 = 0 THEN 'confirming' ELSE 'waiting' END`;

async function fill(kind, url) {
  if (kind === "sqlite") {
    const s = new Database(url.slice("file:".length));
    s.pragma("synchronous = OFF"); // loading only; the app opens it with its own settings
    s.prepare(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('me', ?, CURRENT_TIMESTAMP)`).run(WALLET);
    const ins = s.prepare(`INSERT INTO "Order" ("id", "resellerId", "fromCurrency", "toCurrency", "fromAmount", "rate", "rawToAmount",
      "toAmount", "platformFeeBps", "markupBps", "profit", "payinAddress", "payoutAddress", "status", "expiresAt", "createdAt", "updatedAt")
      VALUES (?, 'me', 'btc', 'eth', '0.1', '30', '3', '2.99', 25, 10, '0.01', ?, '0x52908400098527886E0F7030069857D2E4169EE7', ?, ?, ?, ?)`);
    const ids = [];
    s.transaction(() => {
      for (let i = 0; i < ORDERS; i++) {
        const ageMs = (ORDERS - i) * STEP_MS;
        const at = new Date(NOW.getTime() - ageMs);
        const status = ageMs > OPEN_MS ? (i % 100 < 3 ? "failed" : "finished") : i % 4 === 0 ? "confirming" : "waiting";
        const id = crypto.randomBytes(12).toString("hex");
        if (i % 1000 === 0) ids.push(id);
        // Dates as the app stores them on SQLite: ISO text in UTC with "+00:00".
        const iso = (d) => d.toISOString().replace("Z", "+00:00");
        ins.run(id, `addr-${id}`, status, iso(new Date(at.getTime() + OPEN_MS)), iso(at), iso(at));
      }
    })();
    // No ANALYZE: the app never gathers statistics on SQLite, so its plans are made without them.
    s.close();
    return ids;
  }
  const c = new pg.Client(url);
  await c.connect();
  await c.query(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('me', $1, now())`, [WALLET]);
  await c.query(
    `INSERT INTO "Order" ("id", "resellerId", "fromCurrency", "toCurrency", "fromAmount", "rate", "rawToAmount", "toAmount",
       "platformFeeBps", "markupBps", "profit", "payinAddress", "payoutAddress", "status", "expiresAt", "createdAt", "updatedAt")
     SELECT o.id, 'me', 'btc', 'eth', 0.1, 30, 3, 2.99, 25, 10, 0.01, 'addr-' || o.id, '0x52908400098527886E0F7030069857D2E4169EE7',
            ${stateSql("i", "o.age_ms")}, o.at + interval '1 hour', o.at, o.at
     FROM generate_series(0, $2::int - 1) i,
          LATERAL (SELECT substr(md5(i::text || random()::text), 1, 24) AS id, ($2::bigint - i) * ${STEP_MS} AS age_ms,
                          $1::timestamp - (($2::int - i) * interval '7 seconds') AS at) o`,
    [NOW.toISOString().slice(0, 23), ORDERS],
  );
  await c.query(`ANALYZE "Order"`); // as autovacuum would after such a load
  const { rows } = await c.query(`SELECT "id" FROM "Order" TABLESAMPLE SYSTEM (1) LIMIT 1000`);
  await c.end();
  return rows.map((r) => r.id);
}

await runPerDatabase({
  script: import.meta.filename,
  dbs: DBS,
  what: `${ORDERS} orders`,
  fill,
  measure: async ({ kind, lib, db, filled: ids }) => {
    if (!ids) throw new Error("this benchmark measures what it loads: BENCH_DB_URL does not apply");
    for (const days of [7, 30, 90])
      await timeFiveCalls(kind, `Overview, ${days} days`, async () => {
        const o = await lib.getOverview(db, { resellerId: "me", days, now: NOW });
        return `${o.ordersInPeriod} orders, ${o.orderCounts.failed} failed`;
      });
    const list = (q) => async () => {
      const r = await lib.listResellerOrders(db, lib.parseOrderQuery("me", q));
      return `${r.totalCapped ? "more than " : ""}${r.total} orders, ${r.items.length} on the page`;
    };
    await timeFiveCalls(kind, "Orders, page 1", list({}));
    await timeFiveCalls(kind, "Orders, finished", list({ status: "finished" }));
    await timeFiveCalls(kind, "Orders, failed", list({ status: "failed" }));
    await timeFiveCalls(kind, "Orders, failed, last page", list({ status: "failed", page: "100000" }));
    await timeFiveCalls(kind, "Orders, confirming (rare)", list({ status: "confirming" }));
    await timeFiveCalls(kind, "Orders, id prefix (6 characters)", list({ q: ids[ids.length >> 1].slice(0, 6) }));
    await timeFiveCalls(kind, "Orders, whole id", list({ q: ids[ids.length >> 1] }));
  },
});
