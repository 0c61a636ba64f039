import net from "node:net";
import { describe, expect, inject, it } from "vitest";
import { newIp, sleep } from "../../support/api";
import { startApp } from "../../support/app";
import { freePort } from "../../support/server";

// Issue 13, item 1: Redis unreachable at start. The API keeps answering (per-process
// counters meanwhile), with one Redis client for the process that reconnects when Redis
// comes back, the outage logged once per interval, and the degraded state reported.

const REDIS = { host: "127.0.0.1", port: 6379 };

/** A TCP relay to the real Redis that can be switched on later and counts its open connections. */
function relay(port: number) {
  let open = 0;
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open++;
    accepted++;
    const up = net.connect(REDIS);
    sockets.add(client).add(up);
    client.pipe(up).pipe(client);
    const done = () => {
      if (sockets.delete(client)) open--;
      sockets.delete(up);
      client.destroy();
      up.destroy();
    };
    client.on("close", done).on("error", done);
    up.on("close", done).on("error", done);
  });
  return {
    start: () => new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r())),
    stop: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
    open: () => open,
    accepted: () => accepted,
  };
}

/** The rate-limit store as /readyz reports it. */
const store = async (base: string) =>
  ((await (await fetch(`${base}/readyz`)).json()) as { checks: { rateLimitStore?: { store: string; state: string } } }).checks
    .rateLimitStore;

describe("Redis unreachable at start", () => {
  it.runIf(inject("dbKind") === "sqlite")(
    "requests are served from per-process counters, one client reconnects when Redis is back, the outage is logged once",
    async () => {
      const port = await freePort();
      const r = relay(port);
      const s = await startApp({
        databaseUrl: inject("databaseUrl"),
        env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PUBLIC_PER_MINUTE: "8", SERVE_DASHBOARD: "false", LOG_LEVEL: "info" },
      });
      try {
        const ip = newIp();
        const get = () => fetch(`${s.baseUrl}/api/v1/currencies`, { headers: { "x-forwarded-for": ip } });
        const down: number[] = [];
        for (let i = 0; i < 10; i++) down.push((await get()).status);
        // The limit still holds while Redis is away (the per-process insurance counters).
        expect(down).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
        expect(await store(s.baseUrl)).toEqual({ store: "redis", state: "degraded" });
        await sleep(1500);
        const outageLines = s
          .logs()
          .split("\n")
          .filter((l) => /rate-limit store/i.test(l));
        expect(outageLines.length, outageLines.join("\n")).toBeLessThanOrEqual(2);

        await r.start();
        const deadline = Date.now() + 120_000; // a hang guard
        while ((await store(s.baseUrl))?.state !== "ok") {
          if (Date.now() > deadline) throw new Error(`never reconnected:\n${s.logs()}`);
          await sleep(200);
        }
        const ip2 = newIp();
        const up: number[] = [];
        for (let i = 0; i < 30; i++)
          up.push((await fetch(`${s.baseUrl}/api/v1/currencies`, { headers: { "x-forwarded-for": ip2 } })).status);
        expect(up.filter((x) => x === 200).length).toBe(8);
        // One client for the whole process, not one per request.
        expect(r.open()).toBe(1);
        expect(r.accepted()).toBeLessThanOrEqual(2);
      } finally {
        await s.stop();
        await r.stop();
      }
    },
  );
});
