import { type ChildProcess, spawn } from "node:child_process";
import { describe, expect, inject, it } from "vitest";
import { createDb } from "@/lib/db/client";
import { addressFor, newIp, sleep } from "../support/api";
import { startApp } from "../support/app";
import { migratedDatabase, ROOT, TEST_ENV } from "../support/server";

// Production shape: app instances without an in-process worker, and separate worker
// processes, several at once, on one database. The workers are the subject, so they are
// processes of their own (dist/worker.mjs); the app instances are apps in this process, each
// with its own stores and connections, as two processes would have.

function startWorker(databaseUrl: string): ChildProcess {
  return spawn(process.execPath, ["dist/worker.mjs"], {
    cwd: ROOT,
    env: { ...process.env, ...TEST_ENV, NODE_ENV: "production", DATABASE_URL: databaseUrl },
    stdio: "ignore",
  });
}

describe("scale-out", () => {
  it("orders advance only with a worker; two separate workers never apply a step twice", async () => {
    const db = await migratedDatabase(inject("dbKind"));
    const server = await startApp({ databaseUrl: db.url, env: { WORKER_IN_PROCESS: "false" } });
    const workers: ChildProcess[] = [];
    try {
      const post = (path: string, body: unknown) =>
        fetch(`${server.baseUrl}/api/v1${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": newIp() },
          body: JSON.stringify(body),
        }).then((r) => r.json());
      const orders = [];
      for (let i = 0; i < 5; i++)
        orders.push(await post("/exchange", { from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") }));
      for (const o of orders) expect((await post(`/sandbox/exchange/${o.id}/deposit`, {})).status).toBe("confirming");
      await sleep(600);
      const conn = createDb(db.url);
      expect(await conn.order.count({ where: { status: "confirming" } })).toBe(5);

      workers.push(startWorker(db.url), startWorker(db.url));
      const deadline = Date.now() + 120_000; // a hang guard
      while ((await conn.order.count({ where: { status: "finished" } })) < 5) {
        if (Date.now() > deadline) throw new Error("workers did not finish the orders");
        await sleep(100);
      }
      for (const o of orders) {
        const events = await conn.orderEvent.findMany({ where: { orderId: o.id }, orderBy: { id: "asc" } });
        expect(events.map((e) => e.status)).toEqual(["waiting", "confirming", "exchanging", "sending", "finished"]);
      }
      await conn.$disconnect();
    } finally {
      for (const w of workers) w.kill("SIGTERM");
      await server.stop();
      await db.drop();
    }
  });

  it.runIf(inject("dbKind") === "sqlite")("two app instances with REDIS_URL share rate-limit counters through Redis", async () => {
    const env = { REDIS_URL: "redis://127.0.0.1:6379", RATE_LIMIT_PUBLIC_PER_MINUTE: "20" };
    const a = await startApp({ databaseUrl: inject("databaseUrl"), env });
    const b = await startApp({ databaseUrl: inject("databaseUrl"), env });
    try {
      const ip = newIp();
      const get = (base: string) => fetch(`${base}/api/v1/currencies`, { headers: { "x-forwarded-for": ip } });
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await get(a.baseUrl)).status, (await get(b.baseUrl)).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      const over = await get(a.baseUrl);
      expect(over.status).toBe(429);
      expect(over.headers.get("ratelimit-policy")).toBe('"minute";q=20;w=60');
      expect((await get(b.baseUrl)).status).toBe(429);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
