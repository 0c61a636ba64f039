import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { ORDER_STATES } from "@/lib/domain/order-states";
import { createApiKey } from "@/lib/keys/api-keys";
import { post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { WEBHOOK_DELIVERY_STATES } from "@/lib/observability/state-counts";
import { getOrCreateReseller, setMarkup } from "@/lib/resellers/resellers";
import { api, newIp, sleep } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { recordSecret } from "../support/secrets";
import { migratedDatabase, ROOT, TEST_ENV, type TestDatabase } from "../support/server";

// Production mode (issue 12): request ids, readiness, Prometheus metrics.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("X-Request-Id", () => {
  it("echoes a sane id the client sent, on the API, /healthz and /readyz", async () => {
    for (const [path, prefix] of [
      ["/currencies", "/api/v1"],
      ["/exchange/nope", "/api/v1"],
      ["/healthz", ""],
      ["/readyz", ""],
    ]) {
      const id = `req-${Math.random().toString(36).slice(2)}`;
      const r = await api(path, { prefix, headers: { "x-request-id": id } });
      expect(r.headers.get("x-request-id"), path).toBe(id);
    }
  });

  it("sets a fresh UUID when none was sent, or one not fit for logs and headers was", async () => {
    const a = await api("/currencies");
    const b = await api("/currencies");
    expect(a.headers.get("x-request-id")).toMatch(UUID);
    expect(b.headers.get("x-request-id")).toMatch(UUID);
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
    for (const bad of ["has space", "x".repeat(129), "caf\u00e9"]) {
      const r = await fetch(`${inject("baseUrl")}/healthz`, { headers: { "x-request-id": encodeURI(bad) === bad ? bad : "caf%C3%A9 x" } });
      expect(r.headers.get("x-request-id")).toMatch(UUID);
    }
  });
});

/** The value of one sample in a Prometheus text exposition, found by name and labels (any order). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe("/readyz and /metrics, on a server of their own", () => {
  const TOKEN = "metrics-token-for-tests-0123456789";
  let db: TestDatabase;
  let server: RunningApp;
  let conn: Db;
  beforeAll(async () => {
    db = await migratedDatabase(inject("dbKind"));
    server = await startApp({
      databaseUrl: db.url,
      env: {
        SERVE_DASHBOARD: "false",
        RATE_LIMIT_PUBLIC_PER_MINUTE: "3",
        METRICS_TOKEN: TOKEN,
        DATABASE_POOL_MAX: "3",
        METRICS_RECONCILE_SECONDS: "0",
      },
    });
    conn = createDb(db.url);
  });
  afterAll(async () => {
    await conn?.$disconnect();
    await server?.stop();
    await db?.drop();
  });
  const readyz = async (token?: string) => {
    const r = await fetch(`${server.baseUrl}/readyz`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    return { status: r.status, body: await r.json() };
  };
  const scrape = (token?: string) => fetch(`${server.baseUrl}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it("/readyz answers 503 while a migration this build ships is not applied, 200 once it is", async () => {
    const [last] = await conn.$queryRawUnsafe<{ migration_name: string }[]>(
      `SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1`,
    );
    // Marked rolled back: to the app, as if never applied. (The name is ours: safe to inline.)
    const mark = (value: string) =>
      conn.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET rolled_back_at = ${value} WHERE migration_name = '${last.migration_name}'`);
    await mark("CURRENT_TIMESTAMP");
    try {
      const r = await readyz();
      expect(r.status).toBe(503);
      expect(r.body.status).toBe("not_ready");
      expect(r.body.checks.migrations).toEqual({ pending: [last.migration_name] });
    } finally {
      await mark("NULL");
    }
    const r = await readyz();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "ready", checks: { database: "ok", migrations: "ok", worker: "ok" } });
    // The in-process worker beats in the database too.
    expect(r.body.checks.workers.some((w: { inProcess: boolean; fresh: boolean }) => w.inProcess && w.fresh)).toBe(true);
  });

  it("a separate worker process reports its heartbeat in the database, and removes it when stopped", async () => {
    const child = spawn(process.execPath, ["dist/worker.mjs"], {
      cwd: ROOT,
      env: { ...process.env, ...TEST_ENV, NODE_ENV: "production", DATABASE_URL: db.url },
      stdio: "ignore",
    });
    const separate = async () =>
      ((await readyz()).body.checks.workers as { id: string; inProcess: boolean; fresh: boolean }[]).filter((w) => !w.inProcess);
    try {
      const deadline = Date.now() + 120_000; // a hang guard
      while (!(await separate()).length) {
        if (Date.now() > deadline) throw new Error("the worker wrote no heartbeat");
        await sleep(100);
      }
      const [w] = await separate();
      expect(w.fresh).toBe(true);
      // Anyone sees an opaque id; the operator's token shows the host and PID (issue 48).
      expect(w.id).toMatch(/^w-[0-9a-f]{12}$/);
      expect(JSON.stringify((await readyz()).body)).not.toContain(String(child.pid));
      const detailed = ((await readyz(TOKEN)).body.checks.workers as { id: string; inProcess: boolean }[]).filter((x) => !x.inProcess);
      expect(detailed.map((x) => x.id)).toEqual([expect.stringContaining(`:${child.pid}:`)]);
      expect((await readyz("wrong-token-0123456789")).body.checks.workers.every((x: { id: string }) => /^w-/.test(x.id))).toBe(true);
    } finally {
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
    expect(await separate()).toEqual([]);
  });

  it("counts the requests sent, by route template and status, and the rate-limit rejections", async () => {
    const before = await (await scrape(TOKEN)).text();
    const get = (path: string, ip = newIp()) => fetch(`${server.baseUrl}/api/v1${path}`, { headers: { "x-forwarded-for": ip } });
    for (let i = 0; i < 7; i++) expect((await get("/currencies")).status).toBe(200);
    const one = newIp();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await get("/currencies", one)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    for (const id of ["a", "b"]) expect((await get(`/exchange/${id}-no-such-order`)).status).toBe(404);
    const text = await (await scrape(TOKEN)).text();
    const delta = (name: string, labels: Record<string, string>) => (sample(text, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(delta("http_requests_total", { method: "GET", route: "/api/v1/currencies", status: "200" })).toBe(10);
    expect(delta("http_requests_total", { method: "GET", route: "/api/v1/currencies", status: "429" })).toBe(2);
    // One series for every order id: the route's template, not the path.
    expect(delta("http_requests_total", { method: "GET", route: "/api/v1/exchange/:id", status: "404" })).toBe(2);
    expect(delta("http_request_duration_seconds_count", { method: "GET", route: "/api/v1/currencies", status: "200" })).toBe(10);
    expect(delta("rate_limit_rejections_total", { policy: "minute", tier: "ip" })).toBe(2);
    expect(text).not.toContain("no-such-order");
    // Read from the database at scrape time.
    expect(sample(text, "worker_lag_seconds", {})).toBeGreaterThanOrEqual(0);
    expect(text).toMatch(/^# TYPE orders gauge$/m);
    expect(text).toMatch(/^# TYPE withdrawals gauge$/m);
    expect(text).toMatch(/^# TYPE webhook_deliveries gauge$/m);
    // No endpoint on this server: every status at 0, and there.
    for (const status of WEBHOOK_DELIVERY_STATES) expect(sample(text, "webhook_deliveries", { status }), status).toBe(0);
    expect(sample(text, "webhook_lag_seconds", {})).toBe(0);
    // A failing scrape-time read would have been logged and left its gauge empty.
    expect(server.logs()).not.toContain("metric not collected");
    expect(sample(text, "process_cpu_seconds_total", {})).toBeGreaterThan(0);
    if (inject("dbKind") === "postgres") expect(sample(text, "db_pool_connections", { state: "max" })).toBe(3);
  });

  it("keeps the PostgreSQL pool within DATABASE_POOL_MAX under concurrent requests", async () => {
    if (inject("dbKind") !== "postgres") return;
    // Each answer reads the order from the database, on the pool (the rate-limit counters have a pool of their own).
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        fetch(`${server.baseUrl}/api/v1/exchange/no-such-order-${newIp()}`, { headers: { "x-forwarded-for": newIp() } }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(30).fill(404));
    const text = await (await scrape(TOKEN)).text();
    expect(sample(text, "db_pool_connections", { state: "max" })).toBe(3);
    expect(sample(text, "db_pool_connections", { state: "total" })).toBeGreaterThan(0);
    expect(sample(text, "db_pool_connections", { state: "total" })).toBeLessThanOrEqual(3);
  });

  // PostgreSQL: a reseller's openings commit alone or grouped (lib/db/pg-group-commit.ts); every one is counted once.
  it("counts a reseller's order openings by how they committed", async () => {
    const reseller = await getOrCreateReseller(conn, { walletAddress: `0x${"d".repeat(40)}` });
    await setMarkup(conn, { resellerId: reseller.id, markupBps: 100 });
    const { key } = await createApiKey(conn, { resellerId: reseller.id, name: "group-commit" });
    recordSecret(key);
    const how = (text: string, label: string) => sample(text, "db_group_commit_statements_total", { how: label });
    const before = await (await scrape(TOKEN)).text();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fetch(`${server.baseUrl}/api/v1/exchange`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": key },
          body: JSON.stringify({ from: "btc", to: "eth", amount: `0.01${i}`, address: "0x52908400098527886E0F7030069857D2E4169EE7" }),
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(201));
    const after = await (await scrape(TOKEN)).text();
    if (inject("dbKind") !== "postgres") {
      expect(how(after, "alone")).toBeUndefined();
      return;
    }
    const delta = (label: string) => (how(after, label) ?? 0) - (how(before, label) ?? 0);
    expect(delta("alone") + delta("grouped")).toBe(12);
    expect(delta("retried_alone")).toBe(0);
  });

  it("counts orders by state", async () => {
    const post = await fetch(`${server.baseUrl}/api/v1/exchange`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": newIp() },
      body: JSON.stringify({ from: "btc", to: "eth", amount: "0.01", address: "0x52908400098527886E0F7030069857D2E4169EE7" }),
    });
    expect(post.status).toBe(201);
    const text = await (await scrape(TOKEN)).text();
    expect(sample(text, "orders", { state: "waiting" })).toBe(await conn.order.count({ where: { status: "waiting" } }));
    expect(sample(text, "orders", { state: "waiting" })).toBeGreaterThanOrEqual(1);
    // Every state has its series, 0 included (an absent series would read as no data).
    for (const state of ORDER_STATES) expect(sample(text, "orders", { state }), state).toBeGreaterThanOrEqual(0);
  });

  it("reconciliation gauges: no difference on clean books; a reseller owed more than the treasury holds is a solvency difference", async () => {
    const before = await (await scrape(TOKEN)).text();
    for (const check of ["treasury", "solvency", "commission"]) expect(sample(before, "reconcile_differences", { check }), check).toBe(0);
    expect(sample(before, "reconcile_solvency_usd", { side: "owed" })).toBe(0);
    const r = await conn.reseller.create({ data: { id: "recon-gauge", walletAddress: `0x${"b".repeat(40)}` } });
    await conn.$transaction((tx) =>
      post(tx, [{ resellerId: r.id, currency: "eth", bucket: "available", kind: "order_profit_settle", amount: new D("2") }]),
    );
    // METRICS_RECONCILE_SECONDS=0: the next scrape reconciles again.
    const after = await (await scrape(TOKEN)).text();
    expect(sample(after, "reconcile_differences", { check: "solvency" })).toBe(1);
    expect(sample(after, "reconcile_differences", { check: "treasury" })).toBe(0);
    expect(sample(after, "reconcile_solvency_usd", { side: "owed" })).toBeGreaterThan(0);
  });

  it("/metrics needs the METRICS_TOKEN when one is set", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape("wrong-token-wrong-token-wrong")).status).toBe(401);
    expect((await scrape(TOKEN)).status).toBe(200);
  });
});
