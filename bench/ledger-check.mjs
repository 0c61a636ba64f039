#!/usr/bin/env node
// What ledger:check costs over a big ledger, full and incremental (lib/ledger/check.ts). Loads
// LINES journal lines with bulk inserts (LINES / 2 journals of two lines: a reseller's entry and
// its `world` line, over 1,000 resellers x 4 currencies, with their Balance rows), runs a full
// check that writes a checkpoint, adds NEW postings (journals of the same shape) after it, then
// times the incremental check (3 runs, none writing a checkpoint, so each reads the same new
// rows) and the full check (once), with the rows each read. No orders or withdrawals: the
// check's journal and balance passes are what grows with the ledger.
//
//   node scripts/build-server.mjs && node bench/ledger-check.mjs     LINES=1000000 NEW=10000 BENCH_DB=sqlite,postgres BENCH_FULL=1
// BENCH_FULL=0 skips the first full check (the loader writes the checkpoint it would write);
// the last full check still runs unless BENCH_FINAL=0.
// (it needs the built lib only, not the Next build `npm run build` also makes)
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { ROOT, runPerDatabase } from "./support.mjs";

const LINES = Number(process.env.LINES ?? 1_000_000);
const NEW = Number(process.env.NEW ?? 10_000);
const DBS = (process.env.BENCH_DB ?? "sqlite,postgres").split(",");
/** 0: no full check; the loader writes the first checkpoint (writeLoadedCheckpoint). */
const FULL = process.env.BENCH_FULL !== "0";
/** 0: no full check after the incremental ones either. */
const FINAL = process.env.BENCH_FINAL !== "0";
const RESELLERS = 1000;
const CURRENCIES = ["btc", "eth", "usdt", "xmr"];

if (!fs.existsSync(path.join(ROOT, "lib/dist/index.mjs"))) {
  console.error("run `node scripts/build-server.mjs` (or `npm run build`) first");
  process.exit(1);
}

/** Journal i: reseller r<i % RESELLERS>, a currency, a whole amount 1..9 (so the sums are exact in JS). */
const journal = (i) => ({ r: `r${i % RESELLERS}`, c: CURRENCIES[Math.floor(i / RESELLERS) % 4], amount: (i % 9) + 1 });
// The loaded journals span the YEAR before the run, evenly; the NEW ones are posted now. Each
// (reseller, currency, UTC day) has its daily rollup row (lib/ledger/daily.ts) and its channel
// rollup row (lib/ledger/channel-daily.ts; credits without an order: channel ""), as posting keeps them.
const YEAR_MS = 365 * 86_400_000;
const START = Date.now();
const atOf = (i) => (i < LINES / 2 ? START - YEAR_MS + Math.floor((i * YEAR_MS) / (LINES / 2)) : START);
const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);
const iso = (ms) => new Date(ms).toISOString().replace("Z", "+00:00"); // as the app stores dates on SQLite

/** Journals [from, to) on SQLite, in one transaction; the Balance and LedgerDaily rows set to the running sums. */
function loadSqlite(url, from, to, sums, days) {
  const s = new Database(url.slice("file:".length));
  s.pragma("synchronous = OFF"); // loading only
  const entry = s.prepare(
    `INSERT INTO "LedgerEntry" ("journalId", "resellerId", "currency", "bucket", "kind", "amount", "createdAt") VALUES (?, ?, ?, 'available', 'order_profit_settle', ?, ?)`,
  );
  // The credits have no order: the channel rollup holds them under the channel "" (none).
  const channel = s.prepare(
    `INSERT INTO "ChannelDaily" ("resellerId", "day", "currency", "channel", "profit") VALUES (?, ?, ?, '', ?)
     ON CONFLICT DO UPDATE SET "profit" = excluded."profit"`,
  );
  const daily = s.prepare(
    `INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency", "amount") VALUES (?, 'order_profit_settle', 'available', ?, ?, ?)
     ON CONFLICT DO UPDATE SET "amount" = excluded."amount"`,
  );
  const line = s.prepare(`INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount") VALUES (?, 'world', ?, ?)`);
  const jr = s.prepare(`INSERT INTO "Journal" ("id", "kind", "lines") VALUES (?, 'adjustment', 2)`);
  const bal = s.prepare(
    `INSERT INTO "Balance" ("resellerId", "currency", "available") VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET "available" = excluded."available"`,
  );
  const touched = new Set();
  const touchedDays = new Set();
  s.transaction(() => {
    if (from === 0)
      for (let r = 0; r < RESELLERS; r++)
        s.prepare(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES (?, ?, CURRENT_TIMESTAMP)`).run(
          `r${r}`,
          `0x${r.toString(16).padStart(40, "0")}`,
        );
    for (let i = from; i < to; i++) {
      const { r, c, amount } = journal(i);
      const at = atOf(i);
      entry.run(`j${i}`, r, c, String(amount), iso(at));
      const dk = `${r} ${dayOf(at)} ${c}`;
      days.set(dk, (days.get(dk) ?? 0) + amount);
      touchedDays.add(dk);
      line.run(`j${i}`, c, String(-amount));
      jr.run(`j${i}`);
      const k = `${r} ${c}`;
      sums.set(k, (sums.get(k) ?? 0) + amount);
      touched.add(k);
    }
    // Only the rows these journals move (rewriting every day's row made adding 10,000 postings to
    // 10M lines take minutes: the bench's cost, not the ledger's).
    for (const k of touched) bal.run(...k.split(" "), String(sums.get(k)));
    for (const k of touchedDays) {
      const v = String(days.get(k));
      daily.run(...k.split(" "), v);
      channel.run(...k.split(" "), v);
    }
  })();
  s.close();
}

/** Journals [from, to) on PostgreSQL, three INSERT ... SELECT; the Balance rows moved by the new entries. */
async function loadPostgres(url, from, to) {
  const c = new pg.Client(url);
  await c.connect();
  if (from === 0)
    await c.query(
      `INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") SELECT 'r' || r, '0x' || lpad(to_hex(r), 40, '0'), now() FROM generate_series(0, $1::int - 1) r`,
      [RESELLERS],
    );
  const [{ max }] = (await c.query(`SELECT coalesce(max("id"), 0) AS max FROM "LedgerEntry"`)).rows;
  const cur = `(ARRAY['btc','eth','usdt','xmr'])[1 + (i / ${RESELLERS}) % 4]`;
  // atOf(i), in SQL: loaded journals over the year before START, the NEW ones at START.
  const at = `CASE WHEN i < ${LINES / 2} THEN to_timestamp((${START - YEAR_MS} + floor(i::numeric * ${YEAR_MS} / ${LINES / 2})) / 1000.0) ELSE to_timestamp(${START} / 1000.0) END AT TIME ZONE 'UTC'`;
  await c.query(
    `INSERT INTO "LedgerEntry" ("journalId", "resellerId", "currency", "bucket", "kind", "amount", "createdAt")
     SELECT 'j' || i, 'r' || (i % ${RESELLERS}), ${cur}, 'available', 'order_profit_settle', (i % 9) + 1, ${at} FROM generate_series($1::int, $2::int - 1) i`,
    [from, to],
  );
  await c.query(
    `INSERT INTO "LedgerDaily" ("resellerId", "kind", "bucket", "day", "currency", "amount")
     SELECT "resellerId", "kind", "bucket", to_char("createdAt", 'YYYY-MM-DD'), "currency", sum("amount") FROM "LedgerEntry" WHERE "id" > $1 GROUP BY 1, 2, 3, 4, 5
     ON CONFLICT ("resellerId", "kind", "bucket", "day", "currency") DO UPDATE SET "amount" = "LedgerDaily"."amount" + excluded."amount"`,
    [max],
  );
  await c.query(
    `INSERT INTO "ChannelDaily" ("resellerId", "day", "currency", "channel", "profit")
     SELECT "resellerId", to_char("createdAt", 'YYYY-MM-DD'), "currency", '', sum("amount") FROM "LedgerEntry" WHERE "id" > $1 GROUP BY 1, 2, 3
     ON CONFLICT ("resellerId", "day", "channel", "currency") DO UPDATE SET "profit" = "ChannelDaily"."profit" + excluded."profit"`,
    [max],
  );
  await c.query(
    `INSERT INTO "JournalLine" ("journalId", "account", "currency", "amount")
     SELECT 'j' || i, 'world', ${cur}, -((i % 9) + 1) FROM generate_series($1::int, $2::int - 1) i`,
    [from, to],
  );
  await c.query(
    `INSERT INTO "Journal" ("id", "kind", "lines") SELECT 'j' || i, 'adjustment', 2 FROM generate_series($1::int, $2::int - 1) i`,
    [from, to],
  );
  await c.query(
    `INSERT INTO "Balance" ("resellerId", "currency", "available", "updatedAt")
     SELECT "resellerId", "currency", sum("amount"), now() FROM "LedgerEntry" WHERE "id" > $1 GROUP BY 1, 2
     ON CONFLICT ("resellerId", "currency") DO UPDATE SET "available" = "Balance"."available" + excluded."available"`,
    [max],
  );
  await c.query(`ANALYZE`); // as autovacuum would after such a load
  await c.end();
}

/**
 * BENCH_FULL=0: the checkpoint a full check would write, from the loaded rows' sums in SQL (the
 * amounts are whole numbers), so that the incremental check can be timed at 10M lines without a
 * full check of many minutes first. Were it wrong, the incremental check would report the
 * balances it disagrees with, and this script would stop.
 */
async function writeLoadedCheckpoint(db) {
  const sums = (table, key) =>
    db.$queryRawUnsafe(
      `SELECT ${key} AS k, "currency" AS c, CAST(SUM(CAST("amount" AS INTEGER)) AS TEXT) AS s FROM "${table}" GROUP BY 1, 2`,
    );
  const [{ entry, line }] = await db.$queryRawUnsafe(
    `SELECT (SELECT MAX("id") FROM "LedgerEntry") AS entry, (SELECT MAX("id") FROM "JournalLine") AS line`,
  );
  const balances = (await sums("LedgerEntry", `"resellerId"`)).map((r) => [r.k, r.c, "0", r.s, "0"]);
  const accounts = (await sums("JournalLine", `"account"`)).map((r) => [r.k, r.c, r.s]);
  await db.ledgerCheckpoint.create({
    data: {
      takenAt: new Date(),
      lastEntryId: Number(entry),
      lastLineId: Number(line),
      balances: JSON.stringify(balances),
      accounts: JSON.stringify(accounts),
      full: true,
    },
  });
}

const rows = (s) => `${s.entries} entries, ${s.lines} lines, ${s.journals} journals, ${s.balances} balances read`;
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

await runPerDatabase({
  script: import.meta.filename,
  dbs: DBS,
  what: `${LINES} journal lines (${LINES / 2} journals)`,
  fill: async (kind, url) => {
    const sums = new Map();
    const days = new Map();
    if (kind === "sqlite") loadSqlite(url, 0, LINES / 2, sums, days);
    else await loadPostgres(url, 0, LINES / 2);
    return { sums, days, url };
  },
  measure: async ({ kind, lib, db, filled }) => {
    if (!filled) throw new Error("this benchmark measures what it loads: BENCH_DB_URL does not apply");
    let t = performance.now();
    if (FULL) {
      const first = await lib.checkLedger(db, { mode: "incremental", writeCheckpoint: true });
      if (!first.ok || !first.checkpoint?.id) throw new Error(`the first check: ${JSON.stringify(first)}`);
      console.log(`${kind}: full check + checkpoint: ${secs(performance.now() - t)} (${rows(first.stats)})`);
    } else {
      await writeLoadedCheckpoint(db);
      console.log(`${kind}: checkpoint written from the loaded sums, no full check (BENCH_FULL=0): ${secs(performance.now() - t)}`);
    }
    t = performance.now();
    if (kind === "sqlite") loadSqlite(filled.url, LINES / 2, LINES / 2 + NEW, filled.sums, filled.days);
    else await loadPostgres(filled.url, LINES / 2, LINES / 2 + NEW);
    console.log(`${kind}: ${NEW} new postings (${2 * NEW} lines) added in ${secs(performance.now() - t)}`);
    for (let k = 0; k < 3; k++) {
      t = performance.now();
      const r = await lib.checkLedger(db, { mode: "incremental" });
      if (!r.ok || r.mode !== "incremental") throw new Error(`incremental: ${JSON.stringify(r)}`);
      console.log(`${kind}: incremental check: ${secs(performance.now() - t)} (${rows(r.stats)})`);
    }
    if (!FINAL) return;
    t = performance.now();
    const full = await lib.checkLedger(db, { mode: "full" });
    if (!full.ok) throw new Error(`full: ${JSON.stringify(full.violations)}`);
    console.log(`${kind}: full check: ${secs(performance.now() - t)} (${rows(full.stats)})`);
  },
});
