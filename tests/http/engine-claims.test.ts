import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import type { EngineCall } from "@/lib/engine/simulated";
import { createApiKey } from "@/lib/keys/api-keys";
import { getBalances } from "@/lib/ledger/ledger";
import { getOrCreateReseller, setMarkup } from "@/lib/resellers/resellers";
import { addressFor, newIp, sleep } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { assertLedgerConsistent } from "../support/ledger";
import { migratedDatabase, type RunningServer, startServer, type TestDatabase } from "../support/server";

// The engine is only ever asked about an order by the holder of its claim: one upstream swap
// per order even when 20 requests race with one Idempotency-Key or the winner crashes, each
// worker step called once per order with two workers racing, and failures retried with
// growing delays until the order fails with engine_error. The tests' apps share one database,
// each with a deliberately slow simulated engine (SIM_STEP_DELAY_MS); the sandbox shows what
// each app's engine was asked. Apps run in this process; the one that crashes is a process of
// its own (killed with SIGKILL).

const API_ONLY = { SERVE_DASHBOARD: "false" };
type Server = RunningApp | RunningServer;

async function call<T = any>(
  server: Server,
  path: string,
  opts: { body?: unknown; key?: string; ip?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { "x-forwarded-for": opts.ip ?? newIp(), ...(opts.headers ?? {}) };
  if (opts.key) headers["x-api-key"] = opts.key;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
    method: opts.body !== undefined ? "POST" : "GET",
    headers,
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as T };
}

const engineCalls = async (server: Server, orderId: string, key?: string): Promise<EngineCall[]> => {
  const r = await call<{ calls: EngineCall[] }>(server, `/sandbox/exchange/${orderId}/engine-calls`, { key });
  expect(r.status).toBe(200);
  return r.body.calls;
};

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe("engine calls under claims", () => {
  let database: TestDatabase;
  let db: Db;
  const servers: Server[] = [];
  const start = async (env: Record<string, string>) => {
    const s = await startApp({ databaseUrl: database.url, env });
    servers.push(s);
    return s;
  };
  const spawn = async (env: Record<string, string>) => {
    const s = await startServer({ databaseUrl: database.url, env: { ...API_ONLY, ...env } });
    servers.push(s);
    return s;
  };

  beforeAll(async () => {
    database = await migratedDatabase(inject("dbKind"));
    // Migrated by the first server; a client for reading the shared database.
    db = createDb(database.url);
  });
  // Each test's servers share the database: stop them, so no other worker touches the next test's orders.
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });
  afterAll(async () => {
    try {
      await assertLedgerConsistent(db);
    } finally {
      await db.$disconnect();
      await database.drop();
    }
  });

  it("20 concurrent creations with one Idempotency-Key open one upstream swap for one order", async () => {
    const server = await start({ SIM_STEP_DELAY_MS: "300" });
    const ip = newIp();
    const body = { from: "ltc", to: "btc", amount: "2", address: addressFor("btc") };
    const headers = { "idempotency-key": `burst-${crypto.randomUUID()}` };
    const results = await Promise.all(Array.from({ length: 20 }, () => call(server, "/exchange", { body, ip, headers })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = new Set(results.map((r) => r.body.id));
    expect(ids.size).toBe(1);
    // Every answer carries the deposit address, also the 19 that waited for the winner.
    expect(new Set(results.map((r) => r.body.payinAddress)).size).toBe(1);
    expect(results[0].body.payinAddress).toEqual(expect.any(String));
    const [id] = ids;
    const calls = await engineCalls(server, id);
    expect(calls.filter((c) => c.method === "openSwap")).toHaveLength(1);
    expect(await db.order.count({ where: { idempotencyKey: headers["idempotency-key"] } })).toBe(1);
  });

  it("a request that crashed while opening its order is taken over by the retry: still one order, one swap", async () => {
    // The first server is slow to open (1.5 s) and dies in the middle; its claim lasts 4 s.
    const a = await spawn({ SIM_STEP_DELAY_MS: "1500", WORKER_LEASE_SECONDS: "4" });
    const b = await start({ WORKER_LEASE_SECONDS: "4" });
    const ip = newIp();
    const body = { from: "btc", to: "eth", amount: "0.05", address: addressFor("eth") };
    const headers = { "idempotency-key": `crash-${crypto.randomUUID()}` };
    const first = call(a, "/exchange", { body, ip, headers }).catch((e: Error) => e);
    await waitFor("the reservation", async () => (await db.order.count({ where: { idempotencyKey: headers["idempotency-key"] } })) === 1);
    await a.crash();
    expect(await first).toBeInstanceOf(Error);
    const reserved = await db.order.findFirstOrThrow({ where: { idempotencyKey: headers["idempotency-key"] } });
    expect(reserved.payinAddress).toBeNull();

    const retry = await call(b, "/exchange", { body, ip, headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body.id).toBe(reserved.id);
    expect(retry.body.payinAddress).toEqual(expect.any(String));
    expect((await engineCalls(b, reserved.id)).filter((c) => c.method === "openSwap")).toHaveLength(1);
    const events = await db.orderEvent.findMany({ where: { orderId: reserved.id } });
    expect(events.map((e) => e.status)).toEqual(["waiting"]);
  });

  it("two workers and a slow engine: each step of each order is asked once, never two calls at a time", async () => {
    const env = { SIM_STEP_DELAY_MS: "200" };
    const [a, b] = [await start(env), await start(env)];
    const ip = newIp();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await call(a, "/exchange", { ip, body: { from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") } });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    // Deposits a little apart, so the two workers meet due orders at many different moments.
    for (const id of ids) {
      expect((await call(b, `/sandbox/exchange/${id}/deposit`, { ip, body: {} })).body.status).toBe("confirming");
      await sleep(40);
    }
    await waitFor(
      "every order to finish",
      async () => (await db.order.count({ where: { id: { in: ids }, status: "finished" } })) === ids.length,
      60_000,
    );

    const byWorker = { a: 0, b: 0 };
    for (const id of ids) {
      const fromA = (await engineCalls(a, id)).map((c) => ({ ...c, worker: "a" as const }));
      const fromB = (await engineCalls(b, id)).map((c) => ({ ...c, worker: "b" as const }));
      const calls = [...fromA, ...fromB].sort((x, y) => x.startedAt.localeCompare(y.startedAt));
      const reads = calls.filter((c) => c.method === "readSwap");
      expect(calls.filter((c) => c.method === "openSwap")).toHaveLength(1);
      expect(reads.map((c) => c.state)).toEqual(["confirming", "exchanging", "sending"]);
      expect(reads.every((c) => c.outcome === "ok")).toBe(true);
      for (let i = 1; i < calls.length; i++) expect(calls[i].startedAt >= calls[i - 1].endedAt).toBe(true);
      for (const c of reads) byWorker[c.worker]++;
      const events = await db.orderEvent.findMany({ where: { orderId: id }, orderBy: { id: "asc" } });
      expect(events.map((e) => e.status)).toEqual(["waiting", "confirming", "exchanging", "sending", "finished"]);
    }
    // Both workers took part (the split shows the race was real).
    console.info(`two workers, ${ids.length} orders: steps called by worker a ${byWorker.a}, by worker b ${byWorker.b}`);
    expect(byWorker.a).toBeGreaterThan(0);
    expect(byWorker.b).toBeGreaterThan(0);
  });

  it("a failing engine: retried with an attempt count and doubling delays, then failed with engine_error", async () => {
    const server = await start({ WORKER_RETRY_BASE_MS: "200", WORKER_MAX_ATTEMPTS: "4", SIM_STEP_DELAY_MS: "20" });
    const reseller = await getOrCreateReseller(db, { walletAddress: `0x${crypto.randomBytes(20).toString("hex")}` });
    await setMarkup(db, { resellerId: reseller.id, markupBps: 100 });
    const { key } = await createApiKey(db, { resellerId: reseller.id, name: "backoff" });
    const refundAddress = addressFor("ltc");
    const created = await call(server, "/exchange", {
      key,
      body: { from: "ltc", to: "eth", amount: "3", address: addressFor("eth"), refundAddress },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await getBalances(db, reseller.id))[0].pending).not.toBe("0");

    // From now on every engine call about this reseller's orders throws.
    expect((await call(server, "/sandbox/engine", { key, body: { fault: "error" } })).body).toEqual({ fault: "error" });
    expect((await call(server, `/sandbox/exchange/${id}/deposit`, { key, body: {} })).body.status).toBe("confirming");
    const attemptsSeen = new Set<number>();
    await waitFor("the order to fail", async () => {
      const o = await db.order.findUniqueOrThrow({ where: { id } });
      attemptsSeen.add(o.attempts);
      return o.status === "failed";
    });

    const status = await call(server, `/exchange/${id}`, { key });
    expect(status.body).toMatchObject({
      status: "failed",
      failureReason: "engine_error",
      refund: { state: "pending", amount: 3, hash: null },
    });
    expect(status.body.history.map((h: { status: string }) => h.status)).toEqual(["waiting", "confirming", "failed"]);
    const row = await db.order.findUniqueOrThrow({ where: { id } });
    expect(row.attempts).toBe(4);
    expect(row.lastError).toMatch(/sandbox fault switch/);
    // The attempt count grew one failure at a time while the order waited between retries.
    expect([...attemptsSeen].filter((n) => n > 0 && n < 4).length).toBeGreaterThanOrEqual(2);

    const reads = (await engineCalls(server, id, key)).filter((c) => c.method === "readSwap");
    expect(reads).toHaveLength(4);
    expect(reads.every((c) => c.outcome === "error" && c.state === "confirming")).toBe(true);
    const waits = reads.slice(1).map((c, i) => Date.parse(c.startedAt) - Date.parse(reads[i].endedAt));
    console.info(`engine_error after 4 attempts; waits between them: ${waits.join(", ")} ms`);
    // At least 200 ms, then 400, then 800: the doubling (a busy machine only adds to each wait,
    // so how the waits compare with one another is not asserted; tests/jobs/backoff.test.ts
    // pins the delays themselves).
    for (const [i, w] of waits.entries()) expect(w).toBeGreaterThanOrEqual(200 * 2 ** i);
    // The pending profit was reversed.
    expect(await getBalances(db, reseller.id)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: "0" }]);
  });
});
