#!/usr/bin/env node
// The operator's console's order search over every reseller (issue 52: "under 100 ms at p95 over
// 1M orders on both databases"). Loads BENCH_ORDERS orders of 1,000 resellers, one every 7 s,
// 96% finished, 3% failed (half of those refunded, with a refund address and hash), the last
// hour's open; each with a provider and its id, a payin address and hash, a payout address (one
// user in 50 comes back with the same address) and, once finished, a payout hash. Then times,
// through the built lib/dist (lib/console/orders/list.ts, what GET /api/console/orders runs),
// BENCH_SAMPLES searches of each kind, each for a different order picked at random: our id, the
// provider's id, a payin address, a payout address, a payin hash, a payout hash, a refund hash, a
// reseller's wallet; and the pages: newest first, by state (finished, failed, rare confirming),
// and the next page from a cursor. Prints each kind's p50, p95 and max.
//
//   npm run build && node bench/console-orders.mjs     BENCH_ORDERS=1000000 BENCH_SAMPLES=200 BENCH_DB=sqlite,postgres
import crypto from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { requireBuild, runPerDatabase } from "./support.mjs";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const DBS = (process.env.BENCH_DB ?? "sqlite,postgres").split(",");
const RESELLERS = 1000;
const NOW = new Date("2026-11-29T12:00:00.000Z");
const STEP_MS = 7000;
const OPEN_MS = 3_600_000;
const PROVIDERS = ["changenow", "sideshift", "fixedfloat", "exolix", "simpleswap"];

requireBuild();

const hex = (n) => crypto.randomBytes(n).toString("hex");
const wallet = (r) => `0x${(r + 1).toString(16).padStart(40, "0")}`;

/** The i-th order: every field the search reads, from i alone (deterministic but for the ids). */
function order(i) {
  const ageMs = (ORDERS - i) * STEP_MS;
  const at = new Date(NOW.getTime() - ageMs);
  const open = ageMs <= OPEN_MS;
  const status = open ? (i % 4 === 0 ? "confirming" : "waiting") : i % 100 < 3 ? "failed" : "finished";
  const refunded = status === "failed" && i % 2 === 0;
  return {
    id: hex(12),
    resellerId: `r${i % RESELLERS}`,
    provider: PROVIDERS[i % PROVIDERS.length],
    upstreamId: hex(8),
    payinAddress: `bc1q${hex(19)}`,
    payinHash: status === "waiting" ? null : hex(32),
    payoutAddress: `0x${(i % 50 === 0 ? "00" : hex(1)) + hex(19)}`,
    payoutHash: status === "finished" ? `0x${hex(32)}` : null,
    refundAddress: refunded ? `bc1q${hex(19)}` : null,
    refundHash: refunded ? hex(32) : null,
    refundState: refunded ? "sent" : null,
    status,
    at,
  };
}

async function fill(kind, url) {
  const picks = [];
  // Orders picked at random (every 1,000th would all be failed: i % 100 < 3 decides the state).
  const keep = (o) => {
    if (Math.random() < (SAMPLES * 40) / ORDERS) picks.push(o);
  };
  const iso = (d) => d.toISOString().replace("Z", "+00:00"); // as the app stores dates on SQLite
  const cols = `"id", "resellerId", "fromCurrency", "toCurrency", "fromAmount", "rate", "rawToAmount", "toAmount", "platformFeeBps",
    "markupBps", "profit", "provider", "upstreamId", "payinAddress", "payinHash", "payoutAddress", "payoutHash", "refundAddress",
    "refundHash", "refundState", "status", "expiresAt", "createdAt", "updatedAt"`;
  if (kind === "sqlite") {
    const s = new Database(url.slice("file:".length));
    s.pragma("synchronous = OFF"); // loading only
    const r = s.prepare(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES (?, ?, CURRENT_TIMESTAMP)`);
    const ins = s.prepare(`INSERT INTO "Order" (${cols}) VALUES (?, ?, 'btc', 'eth', '0.1', '30', '3', '2.99', 25, 10, '0.01',
      ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    s.transaction(() => {
      for (let k = 0; k < RESELLERS; k++) r.run(`r${k}`, wallet(k));
      for (let i = 0; i < ORDERS; i++) {
        const o = order(i);
        keep(o);
        ins.run(
          o.id,
          o.resellerId,
          o.provider,
          o.upstreamId,
          o.payinAddress,
          o.payinHash,
          o.payoutAddress,
          o.payoutHash,
          o.refundAddress,
          o.refundHash,
          o.refundState,
          o.status,
          iso(new Date(o.at.getTime() + OPEN_MS)),
          iso(o.at),
          iso(o.at),
        );
      }
    })();
    s.close(); // no ANALYZE: the app never gathers statistics on SQLite
    return picks;
  }
  const c = new pg.Client(url);
  await c.connect();
  for (let k = 0; k < RESELLERS; k++)
    await c.query(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ($1, $2, now())`, [`r${k}`, wallet(k)]);
  const BATCH = 5000;
  for (let from = 0; from < ORDERS; from += BATCH) {
    const rows = [];
    for (let i = from; i < Math.min(ORDERS, from + BATCH); i++) {
      const o = order(i);
      keep(o);
      rows.push(o);
    }
    const col = (f) => rows.map(f);
    await c.query(
      `INSERT INTO "Order" (${cols})
       SELECT u.id, u.r, 'btc', 'eth', 0.1, 30, 3, 2.99, 25, 10, 0.01, u.p, u.up, u.pa, u.ph, u.oa, u.oh, u.ra, u.rh, u.rs, u.st,
              u.at + interval '1 hour', u.at, u.at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                   $10::text[], $11::text[], $12::text[], $13::timestamp[])
         AS u(id, r, p, up, pa, ph, oa, oh, ra, rh, rs, st, at)`,
      [
        col((o) => o.id),
        col((o) => o.resellerId),
        col((o) => o.provider),
        col((o) => o.upstreamId),
        col((o) => o.payinAddress),
        col((o) => o.payinHash),
        col((o) => o.payoutAddress),
        col((o) => o.payoutHash),
        col((o) => o.refundAddress),
        col((o) => o.refundHash),
        col((o) => o.refundState),
        col((o) => o.status),
        col((o) => o.at.toISOString().slice(0, 23)),
      ],
    );
  }
  await c.query(`ANALYZE "Order"`); // as autovacuum would after such a load
  await c.end();
  return picks;
}

const pct = (xs, q) => xs[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];

async function timeKind(kind, label, calls) {
  const times = [];
  let found = 0;
  for (const call of calls) {
    const t = performance.now();
    const r = await call();
    times.push(performance.now() - t);
    found += r.orders.length;
  }
  if (!times.length) return console.log(`${kind}: ${label}: no sample (a bigger BENCH_ORDERS picks more)`);
  times.sort((a, b) => a - b);
  const f = (x) => x.toFixed(1);
  console.log(
    `${kind}: ${label.padEnd(28)} n=${times.length}  p50 ${f(pct(times, 0.5))} ms  p95 ${f(pct(times, 0.95))} ms  max ${f(times.at(-1))} ms  (${(found / times.length).toFixed(1)} orders per answer)`,
  );
}

await runPerDatabase({
  script: import.meta.filename,
  dbs: DBS,
  what: `${ORDERS} orders of ${RESELLERS} resellers`,
  fill,
  measure: async ({ kind, lib, db, filled: picks }) => {
    if (!picks) throw new Error("this benchmark measures what it loads: BENCH_DB_URL does not apply");
    const shuffled = [...picks].sort(() => Math.random() - 0.5);
    const sample = (pred) => shuffled.filter(pred).slice(0, SAMPLES);
    const list = (filter) => () => lib.listConsoleOrders({ db, filter, now: NOW });
    const search = (label, pred, q) =>
      timeKind(
        kind,
        label,
        sample(pred).map((o) => list({ q: q(o) })),
      );
    await search(
      "our id",
      () => true,
      (o) => o.id,
    );
    await search(
      "provider's id",
      () => true,
      (o) => o.upstreamId,
    );
    await search(
      "payin address",
      () => true,
      (o) => o.payinAddress,
    );
    await search(
      "payout address",
      () => true,
      (o) => o.payoutAddress,
    );
    await search(
      "payin hash",
      (o) => o.payinHash,
      (o) => o.payinHash,
    );
    await search(
      "payout hash",
      (o) => o.payoutHash,
      (o) => o.payoutHash,
    );
    await search(
      "refund hash",
      (o) => o.refundHash,
      (o) => o.refundHash,
    );
    await search(
      "reseller's wallet",
      () => true,
      (o) => wallet(Number(o.resellerId.slice(1))),
    );
    const times = (n, filter) => Array.from({ length: n }, () => list(filter));
    await timeKind(kind, "newest first", times(SAMPLES, {}));
    await timeKind(kind, "finished", times(SAMPLES, { status: "finished" }));
    await timeKind(kind, "failed", times(SAMPLES, { status: "failed" }));
    await timeKind(kind, "confirming (rare)", times(SAMPLES, { status: "confirming" }));
    const first = await lib.listConsoleOrders({ db, filter: { status: "failed" }, now: NOW });
    await timeKind(kind, "failed, next page", times(SAMPLES, { status: "failed", cursor: first.next }));
  },
});
