#!/usr/bin/env node
// Every dashboard page of one big tenant, as a signed-in browser asks for it, against the
// production build (issue 48: 2,000 keys made /dashboard/keys weigh 8.3 MB and take 0.7-1.2 s,
// /dashboard 2 MB, and /api/v1/range waited up to 1.6 s behind three Keys pages). One reseller is
// seeded straight into a fresh database: bench/seed.mjs's orders and their books (BENCH_ORDERS),
// then BENCH_KEYS API keys (the cap's 100 active, the rest revoked), BENCH_WIDGETS widgets (the
// cap, 50) and BENCH_ENDPOINTS webhook endpoints (the cap, 10) with BENCH_DELIVERIES finished
// deliveries each, each delivery with its attempts. The reseller's wallet is a key made here, so
// the script signs in with Sign-In with Ethereum through the server's own endpoints, as the
// browser does.
//
// Each page, and each read its client code makes (GET /dashboard/api/<read>, lib/dashboard/reads.ts),
// is fetched BENCH_CALLS times in a row after two warm-up
// calls, and the script prints its bytes (uncompressed) and its p50 / p95 / max time to the
// last byte, against the targets (under 200 KB, p95 under 100 ms). Then the Keys page three at a
// time for BENCH_SECONDS while /api/v1/range is asked once every 20 ms: its p50 / p95 / max.
// The app runs with WORKER_IN_PROCESS=false: the seeded orders' last hour is long expired, and the
// worker's catching up on it is not what this measures.
//
//   npm run build && node bench/dashboard-pages.mjs
//     BENCH_DB=sqlite (or postgres, or sqlite,postgres) BENCH_CALLS=40 BENCH_KEYS=10000
//     BENCH_ORDERS=20000 BENCH_WIDGETS=50 BENCH_ENDPOINTS=10 BENCH_DELIVERIES=300 BENCH_SECONDS=5
//     BENCH_DUMP=<folder> (each answer's body, to look at), BENCH_KEEP=1 (keep the database)
//   A small tenant, for comparison on the same machine and day:
//     BENCH_KEYS=4 BENCH_ORDERS=100 BENCH_WIDGETS=1 BENCH_ENDPOINTS=1 BENCH_DELIVERIES=5
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { NOW, seed } from "./seed.mjs";
import { createDatabase, freePort, productionEnv, ROOT, requireBuild, UNLIMITED_RATES, waitFor } from "./support.mjs";

const DBS = (process.env.BENCH_DB ?? "sqlite").split(",");
const CALLS = Number(process.env.BENCH_CALLS ?? 40);
const KEYS = Math.max(Number(process.env.BENCH_KEYS ?? 10_000), 4); // seed.mjs makes 4
const ACTIVE = Math.min(KEYS, 100); // lib/keys: MAX_ACTIVE_KEYS
const ORDERS = Number(process.env.BENCH_ORDERS ?? 20_000);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WIDGETS = Number(process.env.BENCH_WIDGETS ?? 50);
const ENDPOINTS = Math.max(Number(process.env.BENCH_ENDPOINTS ?? 10), 1);
const MAX_BYTES = 200 * 1024;
const MAX_P95_MS = 100;

requireBuild();

// The reseller's wallet, made here: the script signs in with it.
const wallet = privateKeyToAccount(generatePrivateKey());

const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** An id as the app makes them (base58), from a number. */
const b58 = (prefix, n) => {
  let s = "";
  do {
    s = B58[n % 58] + s;
    n = Math.floor(n / 58);
  } while (n > 0);
  return prefix + s;
};

/** The rows added to seed.mjs's reseller "me": keys, widgets, endpoints, deliveries. */
function extraRows() {
  const t0 = NOW.getTime() - 30 * 86_400_000;
  // seed.mjs made 4 active keys; the rest of the cap's 100 are active, all others revoked.
  const keys = Array.from({ length: KEYS - 4 }, (_, i) => ({
    id: b58("bk", i),
    name: `bench key ${i}`,
    prefix: `rsk_live_${b58("", 58 ** 3 + i)}`,
    hash: crypto.createHash("sha256").update(`bench-${i}`).digest("hex"),
    createdAt: t0 + i * 60_000,
    revokedAt: i < KEYS - ACTIVE ? t0 + i * 60_000 + 30_000 : null,
  }));
  const widgets = Array.from({ length: WIDGETS }, (_, i) => ({ id: b58("wg", i), name: `Widget ${i}`, createdAt: t0 + i * 1000 }));
  const endpoints = Array.from({ length: ENDPOINTS }, (_, i) => ({
    id: b58("ep_", i),
    url: `https://hooks${i}.example.com/webhooks`,
    secret: `whsec_${crypto.randomBytes(24).toString("base64")}`,
    createdAt: t0 + i * 1000,
  }));
  const deliveries = endpoints.flatMap((e, j) =>
    Array.from({ length: DELIVERIES }, (_, i) => {
      const at = NOW.getTime() - (DELIVERIES - i) * 60_000;
      const attempts = 1 + (i % 3);
      return {
        messageId: `msg_${j}_${i}`,
        endpointId: e.id,
        subject: `order-${i}`,
        payload: JSON.stringify({ type: "order.status_changed", timestamp: new Date(at).toISOString(), data: { orderId: `order-${i}` } }),
        at,
        attempts,
        status: i % 50 === 0 ? "failed" : "succeeded",
        code: i % 50 === 0 ? 500 : 200,
      };
    }),
  );
  return { keys, widgets, endpoints, deliveries };
}

function fillSqlite(file) {
  const s = new Database(file);
  s.pragma("synchronous = OFF");
  const iso = (ms) => new Date(ms).toISOString().replace("Z", "+00:00"); // as the app stores dates on SQLite
  const { keys, widgets, endpoints, deliveries } = extraRows();
  s.transaction(() => {
    s.prepare(`UPDATE "Reseller" SET "walletAddress" = ? WHERE "id" = 'me'`).run(wallet.address.toLowerCase());
    const key = s.prepare(
      `INSERT INTO "ApiKey" ("id", "resellerId", "name", "prefix", "hash", "createdAt", "revokedAt") VALUES (?, 'me', ?, ?, ?, ?, ?)`,
    );
    for (const k of keys) key.run(k.id, k.name, k.prefix, k.hash, iso(k.createdAt), k.revokedAt === null ? null : iso(k.revokedAt));
    const widget = s.prepare(`INSERT INTO "Widget" ("id", "resellerId", "name", "createdAt", "updatedAt") VALUES (?, 'me', ?, ?, ?)`);
    for (const w of widgets) widget.run(w.id, w.name, iso(w.createdAt), iso(w.createdAt));
    const endpoint = s.prepare(`INSERT INTO "WebhookEndpoint" ("id", "resellerId", "url", "events", "secret", "createdAt", "updatedAt")
      VALUES (?, 'me', ?, '["*"]', ?, ?, ?)`);
    for (const e of endpoints) endpoint.run(e.id, e.url, e.secret, iso(e.createdAt), iso(e.createdAt));
    const message = s.prepare(`INSERT INTO "WebhookMessage" ("id", "resellerId", "type", "subject", "payload", "createdAt")
      VALUES (?, 'me', 'order.status_changed', ?, ?, ?)`);
    const delivery = s.prepare(`INSERT INTO "WebhookDelivery" ("endpointId", "messageId", "orderingKey", "status", "attempts",
      "lastAttemptAt", "lastStatusCode", "lastLatencyMs", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, 42, ?)`);
    const attempt = s.prepare(`INSERT INTO "WebhookAttempt" ("deliveryId", "at", "statusCode", "latencyMs") VALUES (?, ?, ?, 42)`);
    for (const d of deliveries) {
      message.run(d.messageId, d.subject, d.payload, iso(d.at));
      const { lastInsertRowid } = delivery.run(
        d.endpointId,
        d.messageId,
        d.subject,
        d.status,
        d.attempts,
        iso(d.at + 1000),
        d.code,
        iso(d.at),
      );
      for (let a = 0; a < d.attempts; a++) attempt.run(lastInsertRowid, iso(d.at + a * 1000), a === d.attempts - 1 ? d.code : 500);
    }
  })();
  s.close();
}

async function fillPostgres(url) {
  const c = new pg.Client(url);
  await c.connect();
  const ts = (ms) => (ms === null ? null : new Date(ms).toISOString().slice(0, 23));
  const { keys, widgets, endpoints, deliveries } = extraRows();
  await c.query(`UPDATE "Reseller" SET "walletAddress" = $1 WHERE "id" = 'me'`, [wallet.address.toLowerCase()]);
  await c.query(
    `INSERT INTO "ApiKey" ("id", "resellerId", "name", "prefix", "hash", "createdAt", "revokedAt")
     SELECT * FROM unnest($1::text[], array_fill('me'::text, ARRAY[$6::int]), $2::text[], $3::text[], $4::text[], $5::timestamp[], $7::timestamp[])`,
    [
      keys.map((k) => k.id),
      keys.map((k) => k.name),
      keys.map((k) => k.prefix),
      keys.map((k) => k.hash),
      keys.map((k) => ts(k.createdAt)),
      keys.length,
      keys.map((k) => ts(k.revokedAt)),
    ],
  );
  for (const w of widgets)
    await c.query(
      `INSERT INTO "Widget" ("id", "resellerId", "name", "createdAt", "updatedAt") VALUES ($1, 'me', $2, $3::timestamp, $3::timestamp)`,
      [w.id, w.name, ts(w.createdAt)],
    );
  for (const e of endpoints)
    await c.query(
      `INSERT INTO "WebhookEndpoint" ("id", "resellerId", "url", "events", "secret", "createdAt", "updatedAt") VALUES ($1, 'me', $2, '["*"]', $3, $4::timestamp, $4::timestamp)`,
      [e.id, e.url, e.secret, ts(e.createdAt)],
    );
  await c.query(
    `INSERT INTO "WebhookMessage" ("id", "resellerId", "type", "subject", "payload", "createdAt")
     SELECT m, 'me', 'order.status_changed', s, p, a FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamp[]) AS t(m, s, p, a)`,
    [
      deliveries.map((d) => d.messageId),
      deliveries.map((d) => d.subject),
      deliveries.map((d) => d.payload),
      deliveries.map((d) => ts(d.at)),
    ],
  );
  const { rows } = await c.query(
    `INSERT INTO "WebhookDelivery" ("endpointId", "messageId", "orderingKey", "status", "attempts", "lastAttemptAt", "lastStatusCode", "lastLatencyMs", "createdAt")
     SELECT e, m, s, st, n, a + interval '1 second', code, 42, a
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::timestamp[], $7::int[]) AS t(e, m, s, st, n, a, code)
     RETURNING "id", "messageId"`,
    [
      deliveries.map((d) => d.endpointId),
      deliveries.map((d) => d.messageId),
      deliveries.map((d) => d.subject),
      deliveries.map((d) => d.status),
      deliveries.map((d) => d.attempts),
      deliveries.map((d) => ts(d.at)),
      deliveries.map((d) => d.code),
    ],
  );
  const byMessage = new Map(rows.map((r) => [r.messageId, r.id]));
  const attempts = deliveries.flatMap((d) =>
    Array.from({ length: d.attempts }, (_, a) => [byMessage.get(d.messageId), ts(d.at + a * 1000), a === d.attempts - 1 ? d.code : 500]),
  );
  await c.query(
    `INSERT INTO "WebhookAttempt" ("deliveryId", "at", "statusCode", "latencyMs") SELECT d, a, s, 42 FROM unnest($1::int[], $2::timestamp[], $3::int[]) AS t(d, a, s)`,
    [attempts.map((x) => x[0]), attempts.map((x) => x[1]), attempts.map((x) => x[2])],
  );
  await c.query("ANALYZE"); // as autovacuum would after such a load
  await c.end();
}

// ---------------------------------------------------------------------------------------------
// The browser's side: sign-in, pages, server actions.

const cookiesOf = (res) =>
  Object.fromEntries(
    res.headers.getSetCookie().map((c) => {
      const [pair] = c.split(";");
      const at = pair.indexOf("=");
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
const cookieHeader = (jar) =>
  Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");

/** Sign-In with Ethereum over HTTP: a nonce, the EIP-4361 message the sign-in page builds, signed, posted to next-auth's callback. */
async function signIn(base) {
  const server = await (await fetch(`${base}/api/auth/nonce`, { method: "POST" })).json();
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const jar = cookiesOf(csrf);
  const { csrfToken } = await csrf.json();
  const issuedAt = new Date();
  const message = createSiweMessage({
    domain: server.domain,
    address: wallet.address,
    statement: "Sign in to the reseller dashboard. This request costs nothing and sends no transaction.",
    uri: server.uri,
    version: "1",
    chainId: 1,
    nonce: server.nonce,
    issuedAt,
    expirationTime: new Date(issuedAt.getTime() + 10 * 60_000),
  });
  const signature = await wallet.signMessage({ message });
  const res = await fetch(`${base}/api/auth/callback/siwe`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(jar) },
    body: new URLSearchParams({ csrfToken, message, signature, json: "true" }),
    redirect: "manual",
  });
  const session = Object.entries(cookiesOf(res)).filter(([k, v]) => k.includes("session-token") && v);
  if (!session.length) throw new Error(`sign-in refused: ${JSON.stringify(await res.json())}`);
  return cookieHeader(Object.fromEntries(session));
}

/** A server action's id and a page that serves it, from the build's manifest (as tests/support/dashboard.ts finds them). */
/** One request: its status, its bytes (uncompressed: identity encoding) and its time to the last byte. */
async function timed(base, cookie, target) {
  const t = performance.now();
  const res = await fetch(base + target.path, { headers: { cookie, "accept-encoding": "identity" }, redirect: "manual" });
  const body = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`${target.label}: HTTP ${res.status}: ${body.toString("utf8", 0, 300)}`);
  if (process.env.BENCH_DUMP)
    fs.writeFileSync(path.join(process.env.BENCH_DUMP, `${target.label.replace(/[^a-zA-Z0-9]+/g, "_")}.txt`), body);
  return { bytes: body.length, ms, text: target.read ? body.toString("utf8") : "" };
}

const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

async function measure(kind, base, cookie) {
  const endpoint = b58("ep_", 0);
  const read = (name, query = "", label) => ({ label: label ?? `${name}?${query}`, path: `/dashboard/api/${name}?${query}`, read: true });
  const pages = [
    "/dashboard",
    "/dashboard/keys",
    "/dashboard/widgets",
    "/dashboard/webhooks",
    "/dashboard/orders",
    "/dashboard/withdrawals",
    "/dashboard/statements",
    "/dashboard/settings",
    "/dashboard/docs",
  ];
  const targets = [
    ...pages.map((p) => ({ label: p, path: p })),
    read("overview", "days=30"),
    read("earnings", "days=30"),
    read("channels", "days=30"),
    read("keys"),
    read("keys", "revoked=1"),
    read("orders"),
    read("widgets"),
    read("webhook-endpoints"),
    read("webhook-deliveries", `endpoint=${endpoint}`),
    read("withdrawals"),
    read("statements"),
    read("settings"),
  ];
  // A deep page of the revoked keys and of a delivery log: the cursor of the first page's last row, walked 100 pages down.
  let older = null;
  for (let i = 0; i < 100; i++) {
    const r = await timed(base, cookie, read("keys", `revoked=1${older ? `&older=${encodeURIComponent(older)}` : ""}`));
    const next = /"older":"([^"]+)"/.exec(r.text);
    if (!next) break;
    older = next[1];
  }
  if (older) targets.push(read("keys", `revoked=1&older=${encodeURIComponent(older)}`, "keys?revoked=1 (page 101)"));

  console.log(`${kind}: ${CALLS} calls each after 2 warm-up calls; bytes uncompressed; ms to the last byte`);
  console.log(
    `${"".padEnd(10)} ${"page or read".padEnd(42)} ${"bytes".padStart(9)} ${"p50".padStart(7)} ${"p95".padStart(7)} ${"max".padStart(7)}`,
  );
  const misses = [];
  for (const target of targets) {
    for (let k = 0; k < 2; k++) await timed(base, cookie, target);
    const times = [];
    let bytes = 0;
    for (let k = 0; k < CALLS; k++) {
      const r = await timed(base, cookie, target);
      times.push(r.ms);
      bytes = Math.max(bytes, r.bytes);
    }
    times.sort((a, b) => a - b);
    const [p50, p95, max] = [pct(times, 50), pct(times, 95), times[times.length - 1]];
    const miss = bytes > MAX_BYTES || p95 > MAX_P95_MS;
    if (miss) misses.push(target.label);
    const f = (x) => x.toFixed(1).padStart(7);
    console.log(
      `${kind.padEnd(10)} ${target.label.padEnd(42)} ${String(bytes).padStart(9)} ${f(p50)} ${f(p95)} ${f(max)}${miss ? "  MISSES THE TARGET" : ""}`,
    );
  }

  // /api/v1/range while three Keys pages render at a time.
  const range = `${base}/api/v1/range?from=btc&to=eth`;
  const until = Date.now() + SECONDS * 1000;
  let pagesDone = 0;
  const loader = async () => {
    while (Date.now() < until) {
      await timed(base, cookie, { label: "/dashboard/keys", path: "/dashboard/keys" });
      pagesDone++;
    }
  };
  const probe = async () => {
    const times = [];
    while (Date.now() < until) {
      const t = performance.now();
      const res = await fetch(range);
      await res.arrayBuffer();
      times.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
    return times.sort((a, b) => a - b);
  };
  const [times] = await Promise.all([probe(), loader(), loader(), loader()]);
  const f = (x) => x.toFixed(1);
  console.log(
    `${kind}: /api/v1/range while 3 Keys pages render at a time (${SECONDS} s, ${pagesDone} pages, ${times.length} range requests): p50 ${f(pct(times, 50))} ms, p95 ${f(pct(times, 95))} ms, max ${f(times[times.length - 1])} ms`,
  );
  console.log(
    misses.length
      ? `${kind}: missing the target (200 KB, p95 100 ms): ${misses.join(", ")}`
      : `${kind}: every page and read within the target (200 KB, p95 100 ms)`,
  );
}

// Each database in turn: a fresh one, migrated, seeded, served by the production build, measured, dropped.
const lib = await import(path.join(ROOT, "lib/dist/index.mjs"));
for (const kind of DBS) {
  const created = await createDatabase(kind);
  try {
    await lib.migrate(created.url);
    const t0 = performance.now();
    await seed(kind, created.url, { orders: ORDERS, lines: 0 });
    if (kind === "sqlite") fillSqlite(created.url.slice("file:".length));
    else await fillPostgres(created.url);
    console.log(
      `${kind}: ${ORDERS} orders, ${KEYS} API keys (${ACTIVE} active), ${WIDGETS} widgets, ${ENDPOINTS} webhook endpoints with ${DELIVERIES} deliveries each, loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    const port = await freePort();
    const app = spawn(process.execPath, ["dist/server.mjs"], {
      cwd: ROOT,
      env: { ...productionEnv(port, created.url), ...UNLIMITED_RATES, WORKER_IN_PROCESS: "false" },
      stdio: ["ignore", "inherit", "inherit"],
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitFor(`${base}/healthz`, app, "app");
      await measure(kind, base, await signIn(base));
    } finally {
      app.kill("SIGTERM");
      await new Promise((r) => app.once("exit", r));
    }
  } finally {
    if (process.env.BENCH_KEEP === "1") console.log(`${kind}: database kept: ${created.url}`);
    else await created.drop();
  }
}
