import { spawn } from "node:child_process";
import http from "node:http";
import { describe, expect, inject, it } from "vitest";
import { createDb } from "@/lib/db/client";
import { addressFor, sleep } from "../support/api";
import { startApp } from "../support/app";
import { assertLedgerConsistent } from "../support/ledger";
import { migratedDatabase, ROOT, startServer, TEST_ENV } from "../support/server";

// SIGTERM under load (issue 12): /readyz turns 503 (the balancer below stops sending), the
// process stops accepting connections, answers every request already sent (with Connection: close), lets the worker finish the steps it is in
// the middle of, closes the database and exits 0. No client sees a connection reset; no order
// is left half-moved (a claim still held, a status without its event, a broken ledger).
// The processes signalled are spawned (the built server, the built worker); the second test's
// server only takes the orders (the worker under test is the separate process): an app in
// this process (tests/support/app.ts).

interface Outcome {
  status?: number;
  error?: string;
  doneAt: number;
}

function request(
  agent: http.Agent,
  base: URL,
  method: string,
  path: string,
  ip: string,
  body?: unknown,
): Promise<Outcome & { json?: any; closing?: boolean }> {
  return new Promise((resolve) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method,
        path: `/api/v1${path}`,
        headers: {
          "x-forwarded-for": ip,
          ...(data ? { "content-type": "application/json", "content-length": Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString());
          } catch {}
          resolve({ status: res.statusCode, json, doneAt: Date.now(), closing: res.headers.connection === "close" });
        });
        res.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message, doneAt: Date.now() }));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) =>
      resolve({ error: `${e.code ?? e.message}${req.reusedSocket ? " on a reused connection" : ""}`, doneAt: Date.now() }),
    );
    req.end(data);
  });
}

describe("graceful shutdown", () => {
  it("SIGTERM under load: no connection reset, every request sent is answered, no worker step half done", async () => {
    const db = await migratedDatabase(inject("dbKind"));
    const server = await startServer({
      databaseUrl: db.url,
      env: {
        SERVE_DASHBOARD: "false",
        RATE_LIMIT_PUBLIC_PER_MINUTE: "1000000",
        RATE_LIMIT_PUBLIC_CREATES_PER_DAY: "1000000",
        // Orders are paid at once and move every 50 ms; each engine call takes 2.5 s, longer
        // than the HTTP drain (1.5 s): the worker is in the middle of a step when the signal comes.
        SIM_AUTO_DEPOSIT_SECONDS: "0.01",
        SIM_STEP_SECONDS: "0.05",
        SIM_STEP_DELAY_MS: "2500",
        WORKER_POLL_MS: "20",
        LOG_LEVEL: "info",
        SHUTDOWN_DRAIN_DELAY_MS: "1500",
      },
    });
    const conn = createDb(db.url);
    try {
      const base = new URL(server.baseUrl);
      const outcomes: Outcome[] = [];
      const ids: string[] = [];
      let stopAt = Number.POSITIVE_INFINITY;
      // A balancer in front: it polls /readyz and, once that says 503, sends no new request.
      let down = false;
      const balancer = (async () => {
        while (!down) {
          const r = await fetch(`${server.baseUrl}/readyz`).catch(() => null);
          if (!r || r.status === 503) down = true;
          await sleep(25);
        }
      })();
      // 16 clients, each on its own keep-alive connection, each sending its next request as
      // soon as the last is answered, until the balancer takes the instance out: its /readyz
      // said 503, or the instance closed the client's connection after an answer (Connection:
      // close: its listener is closed, the balancer sends the next request elsewhere). On a
      // loaded machine the balancer's poll can come after the drain delay: the clients must
      // not then open a new connection to the instance, which no balancer would do.
      const client = async (n: number) => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        const ip = `2001:db8:5157::${n.toString(16)}`;
        for (let i = 0; !down; i++) {
          // Orders are created until there are 12 (each creation waits 2.5 s on the engine), then read.
          const kind = ids.length < 12 ? (n + i) % 3 : 1 + ((n + i) % 2);
          const o =
            kind === 0
              ? await request(agent, base, "POST", "/exchange", ip, { from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") })
              : kind === 1 && ids.length
                ? await request(agent, base, "GET", `/exchange/${ids[(n * 7 + i) % ids.length]}`, ip)
                : await request(agent, base, "GET", "/currencies", ip);
          outcomes.push({ status: o.status, error: o.error, doneAt: o.doneAt });
          if (o.status === 201 && o.json?.id) ids.push(o.json.id);
          if (o.error || o.closing) break;
        }
        agent.destroy();
      };
      const clients = Array.from({ length: 16 }, (_, n) => client(n));
      const loaded = Date.now() + 120_000; // a hang guard
      while (ids.length < 12 && Date.now() < loaded) await sleep(50);
      expect(ids.length).toBeGreaterThanOrEqual(12);
      // The signal comes while the worker holds a claim: in the middle of a step.
      while ((await conn.order.count({ where: { leaseToken: { not: null }, payinAddress: { not: null } } })) === 0) {
        if (Date.now() > loaded) throw new Error("the worker never claimed an order");
        await sleep(20);
      }
      const exited = new Promise<number | null>((resolve) => server.child.once("exit", (code) => resolve(code)));
      stopAt = Date.now();
      server.child.kill("SIGTERM");
      await Promise.all([...clients, balancer]);
      expect(await exited).toBe(0);

      const errors = outcomes.filter((o) => o.error).map((o) => `${o.error}@${o.doneAt - stopAt}`);
      const answeredAfterSignal = outcomes.filter((o) => o.status && o.doneAt >= stopAt).length;
      expect(errors).toEqual([]);
      expect(outcomes.filter((o) => o.status && o.status >= 300)).toEqual([]);
      // The load was still going when the signal came: requests were answered while draining.
      expect(answeredAfterSignal).toBeGreaterThan(0);
      expect(server.logs()).toContain("shut down cleanly");

      // The worker let every step it started finish: no claim is held, every order's status
      // is its last event's, and the ledger holds together.
      expect(await conn.order.count({ where: { leaseToken: { not: null }, payinAddress: { not: null } } })).toBe(0);
      const orders = await conn.order.findMany({ where: { payinAddress: { not: null } }, include: { events: { orderBy: { id: "asc" } } } });
      expect(orders.length).toBeGreaterThanOrEqual(12);
      for (const o of orders) expect(o.events.at(-1)?.status, o.id).toBe(o.status);
      expect(orders.some((o) => o.status !== "waiting")).toBe(true);
      await assertLedgerConsistent(conn);
    } finally {
      await conn.$disconnect();
      await server.stop();
      await db.drop();
    }
  });

  it("SIGTERM to a separate worker process in the middle of a step: the step completes, its claim is released", async () => {
    const db = await migratedDatabase(inject("dbKind"));
    const env = { SIM_AUTO_DEPOSIT_SECONDS: "0.01", SIM_STEP_SECONDS: "0.05", SIM_STEP_DELAY_MS: "2000", WORKER_POLL_MS: "20" };
    const server = await startApp({ databaseUrl: db.url, env: { ...env, WORKER_IN_PROCESS: "false" } });
    const conn = createDb(db.url);
    try {
      const created = await Promise.all(
        [1, 2, 3].map(() =>
          fetch(`${server.baseUrl}/api/v1/exchange`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-forwarded-for": `2001:db8:5158::${Math.random().toString(16).slice(2, 6)}` },
            body: JSON.stringify({ from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") }),
          }),
        ),
      );
      expect(created.map((r) => r.status)).toEqual([201, 201, 201]);
      const worker = spawn(process.execPath, ["dist/worker.mjs"], {
        cwd: ROOT,
        env: { ...process.env, ...TEST_ENV, ...env, NODE_ENV: "production", DATABASE_URL: db.url },
        stdio: "ignore",
      });
      const exited = new Promise<number | null>((resolve) => worker.once("exit", (code) => resolve(code)));
      const deadline = Date.now() + 120_000; // a hang guard
      while ((await conn.order.count({ where: { leaseToken: { not: null } } })) === 0) {
        if (Date.now() > deadline) throw new Error("the worker never claimed an order");
        await sleep(20);
      }
      worker.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(await conn.order.count({ where: { leaseToken: { not: null } } })).toBe(0);
      const orders = await conn.order.findMany({ include: { events: { orderBy: { id: "asc" } } } });
      for (const o of orders) expect(o.events.at(-1)?.status, o.id).toBe(o.status);
      // The step under way when the signal came was finished, not dropped.
      expect(orders.some((o) => o.status === "confirming")).toBe(true);
      expect(await conn.workerHeartbeat.count()).toBe(0);
      await assertLedgerConsistent(conn);
    } finally {
      await conn.$disconnect();
      await server.stop();
      await db.drop();
    }
  });
});
