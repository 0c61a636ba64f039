// Seeds one big reseller ("me") for the dashboard benchmarks, in bulk: BENCH_ORDERS orders and
// the journals they post, padded with operator-only adjustment journals up to BENCH_LINES ledger
// lines (LedgerEntry rows + JournalLine rows), with the Balance rows and the daily rollup
// (LedgerDaily) that those lines make, and the channel rollup (ChannelDaily) of the orders and
// their credits, so that `npm run cli -- ledger:check` finds the books
// clean (bench/dashboard.mjs runs it with BENCH_CHECK=1).
//
// The orders: one every 7 s up to NOW (1M orders: 81 days), newest last; the last hour's open
// (a quarter `confirming`, the rest `waiting`), otherwise 3 in 100 `failed`, the rest `finished`.
// Channels: four API keys and the hosted page. Ids are the first 24 hex digits of md5(i), the
// same on both databases. Each order posts what lib/ledger posts (docs/ledger.md):
//   order_created  (at creation):        reseller pending +p, provider:simulated:pending -p
//   order_finished (10 minutes later):   pending -p, available +p, provider pending +p,
//                                        platform:revenue +p/10, provider receivable -11p/10
//   order_failed   (10 minutes later):   pending -p, provider pending +p
// so a finished order makes 7 lines, a failed one 4, an open one 2. The rest up to BENCH_LINES
// are `adjustment` journals of 2 lines (treasury:1:eth -0.01, world +0.01), spread over the
// same days. The Journal rows are written after their lines, so the databases' balance triggers
// check every one of them as they would a posting.
//
// SQLite: one prepared statement per table in one transaction (synchronous = OFF while loading).
// PostgreSQL: INSERT ... SELECT over generate_series, server-side, then ANALYZE (as autovacuum would).
import crypto from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";

export const NOW = new Date("2026-11-23T12:00:00.000Z");
export const STEP_MS = 7000;
const OPEN_MS = 3_600_000;
const SETTLE_MS = 600_000;
const WALLET = `0x${"ab".repeat(20)}`;
const CURRENCIES = ["btc", "eth", "usdt", "xmr"];
export const KEYS = ["k0", "k1", "k2", "k3"];
/** The i-th order's channel: one of the four keys, or the hosted page. */
const channelIndex = (i) => Math.floor(i / 3) % 5;

export const orderId = (i) => crypto.createHash("md5").update(String(i)).digest("hex").slice(0, 24);

/** The i-th order's state, as in SQL below. */
const stateOf = (i, ageMs) => (ageMs > OPEN_MS ? (i % 100 < 3 ? "failed" : "finished") : i % 4 === 0 ? "confirming" : "waiting");

/** Lines the orders make; the adjustments fill the rest of `lines`. */
export function plan(orders, lines) {
  let orderLines = 0;
  for (let i = 0; i < orders; i++) {
    const s = stateOf(i, (orders - i) * STEP_MS);
    orderLines += s === "finished" ? 7 : s === "failed" ? 4 : 2;
  }
  return { orderLines, adjustments: Math.max(0, Math.ceil((lines - orderLines) / 2)) };
}

/** An amount in units of 10^-7 as canonical decimal text. */
const text = (u) => {
  const abs = String(Math.abs(u)).padStart(8, "0");
  const t = `${abs.slice(0, -7)}.${abs.slice(-7)}`.replace(/0+$/, "").replace(/\.$/, "");
  return u === 0 ? "0" : u < 0 ? `-${t}` : t;
};

/** Fills a migrated, empty database; returns { orders, lines, journals }. */
export async function seed(kind, url, { orders, lines }) {
  const { adjustments, orderLines } = plan(orders, lines);
  if (kind === "sqlite") seedSqlite(url.slice("file:".length), orders, adjustments);
  else await seedPostgres(url, orders, adjustments);
  return { orders, lines: orderLines + 2 * adjustments, adjustments };
}

function seedSqlite(file, orders, adjustments) {
  const s = new Database(file);
  s.pragma("synchronous = OFF"); // loading only; the app opens it with its own settings
  s.pragma("cache_size = -200000");
  const iso = (ms) => new Date(ms).toISOString().replace("Z", "+00:00"); // as the app stores dates on SQLite
  const stmt = {
    order: s.prepare(`INSERT INTO "Order" ("id", "resellerId", "apiKeyId", "fromCurrency", "toCurrency", "fromAmount", "rate",
      "rawToAmount", "toAmount", "platformFeeBps", "markupBps", "profit", "payinAddress", "payoutAddress", "status", "amountReceived",
      "expiresAt", "channel", "createdAt", "updatedAt")
      VALUES (?, 'me', ?, 'btc', ?, '0.1', '30', '3', '2.99', 25, 10, ?, ?, '0x52908400098527886E0F7030069857D2E4169EE7', ?, ?, ?, ?, ?, ?)`),
    entry: s.prepare(`INSERT INTO "LedgerEntry" ("journalId", "resellerId", "orderId", "currency", "bucket", "kind", "amount", "createdAt")
      VALUES (?, 'me', ?, ?, ?, ?, ?, ?)`),
    line: s.prepare(`INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt") VALUES (?, ?, ?, ?, ?)`),
    journal: s.prepare(`INSERT INTO "Journal" ("id", "kind", "orderId", "lines", "createdAt") VALUES (?, ?, ?, ?, ?)`),
  };
  const daily = new Map(); // "kind bucket day currency" -> units
  const channels = new Map(); // "day channel currency" -> { orders, finished, volume, profit } (amounts in units)
  const channelRow = (at, channel, cur) => {
    const key = `${new Date(at).toISOString().slice(0, 10)} ${channel} ${cur}`;
    const r = channels.get(key) ?? { orders: 0, finished: 0, volume: 0, profit: 0 };
    channels.set(key, r);
    return r;
  };
  const balance = new Map(); // currency -> { pending, available }
  const entry = (journalId, oid, cur, bucket, kind, units, at) => {
    stmt.entry.run(journalId, oid, cur, bucket, kind, text(units), iso(at));
    const key = `${kind} ${bucket} ${new Date(at).toISOString().slice(0, 10)} ${cur}`;
    daily.set(key, (daily.get(key) ?? 0) + units);
    const b = balance.get(cur) ?? { pending: 0, available: 0 };
    b[bucket] += units;
    balance.set(cur, b);
  };
  s.transaction(() => {
    s.prepare(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('me', ?, ?)`).run(WALLET, iso(NOW.getTime()));
    for (const k of KEYS)
      s.prepare(`INSERT INTO "ApiKey" ("id", "resellerId", "name", "prefix", "hash", "createdAt") VALUES (?, 'me', ?, ?, ?, ?)`).run(
        k,
        `key ${k}`,
        `rk_${k}`,
        crypto.createHash("sha256").update(k).digest("hex"),
        iso(NOW.getTime() - orders * STEP_MS),
      );
    for (let i = 0; i < orders; i++) {
      const ageMs = (orders - i) * STEP_MS;
      const at = NOW.getTime() - ageMs;
      const status = stateOf(i, ageMs);
      const id = orderId(i);
      const cur = CURRENCIES[i % 4];
      const units = ((i % 9000) + 1000) * 10; // profit p in 10^-7: 0.001 to 0.0099999
      const ch = channelIndex(i);
      const key = ch < 4 ? KEYS[ch] : null;
      const done = status === "finished" || status === "failed";
      stmt.order.run(
        id,
        key,
        cur,
        text(units),
        `addr-${id}`,
        status,
        status === "finished" ? "0.1" : null,
        iso(at + OPEN_MS),
        key ? `key:${key}` : "page",
        iso(at),
        iso(done ? at + SETTLE_MS : at),
      );
      const opened = channelRow(at, key ? `key:${key}` : "page", "btc");
      opened.orders++;
      if (status === "finished") {
        opened.finished++;
        opened.volume += 1_000_000; // fromAmount 0.1
        channelRow(at + SETTLE_MS, key ? `key:${key}` : "page", cur).profit += units;
      }
      entry(`c${id}`, id, cur, "pending", "order_profit_pending", units, at);
      stmt.line.run(`c${id}`, "provider:simulated:pending", cur, text(-units), iso(at));
      stmt.journal.run(`c${id}`, "order_created", id, 2, iso(at));
      if (!done) continue;
      const t = at + SETTLE_MS;
      if (status === "finished") {
        entry(`f${id}`, id, cur, "pending", "order_profit_release", -units, t);
        entry(`f${id}`, id, cur, "available", "order_profit_settle", units, t);
        stmt.line.run(`f${id}`, "provider:simulated:pending", cur, text(units), iso(t));
        stmt.line.run(`f${id}`, "platform:revenue", cur, text(units / 10), iso(t));
        stmt.line.run(`f${id}`, "provider:simulated:receivable", cur, text(-(units / 10) * 11), iso(t));
        stmt.journal.run(`f${id}`, "order_finished", id, 5, iso(t));
      } else {
        entry(`f${id}`, id, cur, "pending", "order_profit_reverse", -units, t);
        stmt.line.run(`f${id}`, "provider:simulated:pending", cur, text(units), iso(t));
        stmt.journal.run(`f${id}`, "order_failed", id, 2, iso(t));
      }
    }
    const span = orders * STEP_MS;
    for (let j = 0; j < adjustments; j++) {
      const at = iso(NOW.getTime() - span + Math.floor((j * span) / adjustments));
      stmt.line.run(`a${j}`, "treasury:1:eth", "eth", "-0.01", at);
      stmt.line.run(`a${j}`, "world", "eth", "0.01", at);
      stmt.journal.run(`a${j}`, "adjustment", null, 2, at);
    }
    const insDaily = s.prepare(
      `INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency", "amount") VALUES ('me', ?, ?, ?, ?, ?)`,
    );
    for (const [k, u] of daily) insDaily.run(...k.split(" "), text(u));
    const insChannel = s.prepare(
      `INSERT INTO "ChannelDaily" ("resellerId", "day", "channel", "currency", "orders", "finished", "volume", "profit") VALUES ('me', ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const [k, r] of channels) insChannel.run(...k.split(" "), r.orders, r.finished, text(r.volume), text(r.profit));
    const insBalance = s.prepare(
      `INSERT INTO "Balance" ("resellerId", "currency", "pending", "available", "reserved", "updatedAt") VALUES ('me', ?, ?, ?, '0', ?)`,
    );
    for (const [cur, b] of balance) insBalance.run(cur, text(b.pending), text(b.available), iso(NOW.getTime()));
  })();
  // No ANALYZE: the app never gathers statistics on SQLite, so its plans are made without them.
  s.close();
}

async function seedPostgres(url, orders, adjustments) {
  const c = new pg.Client(url);
  await c.connect();
  const now = NOW.toISOString().slice(0, 23);
  const q = async (label, text, values = []) => {
    const t = performance.now();
    await c.query(text, values);
    if (process.env.BENCH_VERBOSE) console.log(`  postgresql seed: ${label} ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  await q("reseller", `INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('me', $1, $2::timestamp)`, [WALLET, now]);
  await q(
    "keys",
    `INSERT INTO "ApiKey" ("id", "resellerId", "name", "prefix", "hash", "createdAt")
     SELECT k, 'me', 'key ' || k, 'rk_' || k, encode(sha256(k::bytea), 'hex'), $1::timestamp - $2::int * interval '7 seconds'
     FROM unnest($3::text[]) k`,
    [now, orders, KEYS],
  );
  // The orders, with their state and profit as seedSqlite makes them.
  await q(
    "orders",
    `INSERT INTO "Order" ("id", "resellerId", "apiKeyId", "fromCurrency", "toCurrency", "fromAmount", "rate", "rawToAmount", "toAmount",
       "platformFeeBps", "markupBps", "profit", "payinAddress", "payoutAddress", "status", "amountReceived", "expiresAt", "channel",
       "createdAt", "updatedAt")
     SELECT o.id, 'me', o.key, 'btc', o.cur, 0.1, 30, 3, 2.99, 25, 10, ((i % 9000) + 1000) / 1000000.0, 'addr-' || o.id,
            '0x52908400098527886E0F7030069857D2E4169EE7', o.status, CASE WHEN o.status = 'finished' THEN 0.1 END,
            o.at + interval '1 hour', COALESCE('key:' || o.key, 'page'), o.at,
            CASE WHEN o.status IN ('finished', 'failed') THEN o.at + interval '10 minutes' ELSE o.at END
     FROM generate_series(0, $2::int - 1) i,
          LATERAL (SELECT substr(md5(i::text), 1, 24) AS id, (ARRAY['btc', 'eth', 'usdt', 'xmr'])[i % 4 + 1] AS cur,
                          (ARRAY['k0', 'k1', 'k2', 'k3', NULL])[(i / 3) % 5 + 1] AS key,
                          $1::timestamp - (($2::int - i) * interval '7 seconds') AS at,
                          CASE WHEN ($2::bigint - i) * ${STEP_MS} > ${OPEN_MS} THEN CASE WHEN i % 100 < 3 THEN 'failed' ELSE 'finished' END
                               WHEN i % 4 = 0 THEN 'confirming' ELSE 'waiting' END AS status) o`,
    [now, orders],
  );
  // Lines first, journals after: each Journal row's trigger then checks its journal balances.
  await q(
    "entries",
    `INSERT INTO "LedgerEntry" ("journalId", "resellerId", "orderId", "currency", "bucket", "kind", "amount", "createdAt")
     SELECT 'c' || "id", 'me', "id", "toCurrency", 'pending', 'order_profit_pending', "profit", "createdAt" FROM "Order"
     UNION ALL SELECT 'f' || "id", 'me', "id", "toCurrency", 'pending', 'order_profit_release', -"profit", "updatedAt" FROM "Order" WHERE "status" = 'finished'
     UNION ALL SELECT 'f' || "id", 'me', "id", "toCurrency", 'available', 'order_profit_settle', "profit", "updatedAt" FROM "Order" WHERE "status" = 'finished'
     UNION ALL SELECT 'f' || "id", 'me', "id", "toCurrency", 'pending', 'order_profit_reverse', -"profit", "updatedAt" FROM "Order" WHERE "status" = 'failed'`,
  );
  await q(
    "journal lines",
    `INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount", "createdAt")
     SELECT 'c' || "id", 'provider:simulated:pending', "toCurrency", -"profit", "createdAt" FROM "Order"
     UNION ALL SELECT 'f' || "id", 'provider:simulated:pending', "toCurrency", "profit", "updatedAt" FROM "Order" WHERE "status" IN ('finished', 'failed')
     UNION ALL SELECT 'f' || "id", 'platform:revenue', "toCurrency", "profit" / 10, "updatedAt" FROM "Order" WHERE "status" = 'finished'
     UNION ALL SELECT 'f' || "id", 'provider:simulated:receivable', "toCurrency", -("profit" / 10) * 11, "updatedAt" FROM "Order" WHERE "status" = 'finished'
     UNION ALL SELECT 'a' || j, a, 'eth', x, $1::timestamp - $2::int * interval '7 seconds' + (j::bigint * $2::int * 7000 / $3::int) * interval '1 millisecond'
       FROM generate_series(0, $3::int - 1) j, (VALUES ('treasury:1:eth', -0.01), ('world', 0.01)) v(a, x)`,
    [now, orders, adjustments],
  );
  await q(
    "journals",
    `INSERT INTO "Journal" ("id", "kind", "orderId", "lines", "createdAt")
     SELECT 'c' || "id", 'order_created', "id", 2, "createdAt" FROM "Order"
     UNION ALL SELECT 'f' || "id", CASE WHEN "status" = 'finished' THEN 'order_finished' ELSE 'order_failed' END, "id",
                      CASE WHEN "status" = 'finished' THEN 5 ELSE 2 END, "updatedAt" FROM "Order" WHERE "status" IN ('finished', 'failed')
     UNION ALL SELECT 'a' || j, 'adjustment', NULL, 2, $1::timestamp - $2::int * interval '7 seconds' + (j::bigint * $2::int * 7000 / $3::int) * interval '1 millisecond'
       FROM generate_series(0, $3::int - 1) j`,
    [now, orders, adjustments],
  );
  await q(
    "rollup and balances",
    `INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency", "amount")
     SELECT "resellerId", "kind", "bucket", to_char("createdAt", 'YYYY-MM-DD'), "currency", SUM("amount") FROM "LedgerEntry" GROUP BY 1, 2, 3, 4, 5`,
  );
  await q(
    "channel rollup",
    `INSERT INTO "ChannelDaily" ("resellerId", "day", "channel", "currency", "orders", "finished", "volume", "profit")
     SELECT "resellerId", "day", "channel", "currency", SUM("orders"), SUM("finished"), SUM("volume"), SUM("profit")
     FROM (SELECT "resellerId", to_char("createdAt", 'YYYY-MM-DD') AS "day", COALESCE("channel", '') AS "channel", "fromCurrency" AS "currency", 1 AS "orders",
                  CASE WHEN "status" = 'finished' THEN 1 ELSE 0 END AS "finished", CASE WHEN "status" = 'finished' THEN "fromAmount" ELSE 0 END AS "volume",
                  0 AS "profit"
           FROM "Order" WHERE "resellerId" IS NOT NULL AND "payinAddress" IS NOT NULL
           UNION ALL
           SELECT e."resellerId", to_char(e."createdAt", 'YYYY-MM-DD'), COALESCE(o."channel", ''), e."currency", 0, 0, 0, e."amount"
           FROM "LedgerEntry" e LEFT JOIN "Order" o ON o."id" = e."orderId" WHERE e."kind" = 'order_profit_settle') r
     GROUP BY 1, 2, 3, 4`,
  );
  await q(
    "balances",
    `INSERT INTO "Balance" ("resellerId", "currency", "pending", "available", "reserved", "updatedAt")
     SELECT "resellerId", "currency", SUM("amount") FILTER (WHERE "bucket" = 'pending'), COALESCE(SUM("amount") FILTER (WHERE "bucket" = 'available'), 0),
            0, $1::timestamp
     FROM "LedgerEntry" GROUP BY 1, 2`,
    [now],
  );
  await q("analyze", `ANALYZE`);
  await c.end();
}
