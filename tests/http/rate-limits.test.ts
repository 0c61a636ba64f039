import { describe, expect, inject, it } from "vitest";
import { addressFor, api, makeReseller, newIp } from "../support/api";
import { startApp } from "../support/app";
import { migratedDatabase } from "../support/server";

describe("rate limits (spec section 8)", () => {
  it("the 61st keyless request in a minute gets 429 with Retry-After and RateLimit headers", async () => {
    const ip = newIp();
    for (let i = 1; i <= 60; i++) {
      const r = await api("/currencies", { ip });
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit-policy")).toBe('"minute";q=60;w=60');
      expect(r.headers.get("ratelimit")).toMatch(new RegExp(`^"minute";r=${60 - i};t=\\d+$`));
    }
    const r = await api("/currencies", { ip });
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe("RATE_LIMITED");
    const retry = Number(r.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(r.headers.get("ratelimit")).toBe(`"minute";r=0;t=${retry}`);
    expect(r.headers.get("ratelimit-policy")).toBe('"minute";q=60;w=60');
    // Another client is not affected.
    expect((await api("/currencies")).status).toBe(200);
  });

  it("a key gets 300 requests a minute, whatever IP they come from", async () => {
    const { key } = await makeReseller();
    const results = [];
    for (let batch = 0; batch < 10; batch++)
      results.push(...(await Promise.all(Array.from({ length: 30 }, () => api("/currencies", { key })))));
    expect(results.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(results[0].headers.get("ratelimit-policy")).toBe('"minute";q=300;w=60');
    const over = await api("/currencies", { key });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("RATE_LIMITED");
    expect(over.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("unknown keys are refused and still count against the IP", async () => {
    const ip = newIp();
    const r = await api("/currencies", { ip, key: "rsk_live_1111111111111111111111111" });
    expect(r.status).toBe(401);
    expect(r.headers.get("ratelimit")).toMatch(/^"minute";r=59;/);
  });

  it("the 101st keyless order creation in a day gets 429 DAILY_LIMIT_EXCEEDED", async () => {
    // Its own server: 101 creations from one IP must not hit the 60/minute limit first.
    const db = await migratedDatabase(inject("dbKind"));
    const server = await startApp({ databaseUrl: db.url, env: { RATE_LIMIT_PUBLIC_PER_MINUTE: "1000" } });
    try {
      const ip = "203.0.113.77";
      const post = (body: object, headers: Record<string, string> = {}) =>
        fetch(`${server.baseUrl}/api/v1/exchange`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": ip, ...headers },
          body: JSON.stringify(body),
        });
      const good = () => ({ from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") });
      // Rejected requests and idempotent replays are not creations.
      expect((await post({ ...good(), address: "nope" })).status).toBe(422);
      const first = good();
      expect((await post(first, { "idempotency-key": "k1" })).status).toBe(201);
      expect((await post(first, { "idempotency-key": "k1" })).status).toBe(201);
      for (let i = 2; i <= 100; i++) {
        const r = await post(good());
        expect(r.status, await r.clone().text()).toBe(201);
        if (i === 100) expect(r.headers.get("ratelimit")).toMatch(/"day";r=0;t=\d+/);
      }
      const r = await post(good());
      expect(r.status).toBe(429);
      const body = await r.json();
      expect(body.error.code).toBe("DAILY_LIMIT_EXCEEDED");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(60);
      expect(r.headers.get("ratelimit-policy")).toBe('"minute";q=1000;w=60, "day";q=100;w=86400');
      // Reads are still allowed, and a key is not subject to the daily quota.
      expect((await fetch(`${server.baseUrl}/api/v1/currencies`, { headers: { "x-forwarded-for": ip } })).status).toBe(200);
    } finally {
      await server.stop();
      await db.drop();
    }
  });

  it.runIf(inject("dbKind") === "postgres")("two app instances on one PostgreSQL share the counters", async () => {
    const second = await startApp({ databaseUrl: inject("databaseUrl") });
    try {
      const ip = newIp();
      const get = (base: string) => fetch(`${base}/api/v1/currencies`, { headers: { "x-forwarded-for": ip } });
      const statuses = [];
      for (let i = 0; i < 30; i++) statuses.push((await get(inject("baseUrl"))).status, (await get(second.baseUrl)).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect((await get(second.baseUrl)).status).toBe(429);
      expect((await get(inject("baseUrl"))).status).toBe(429);
    } finally {
      await second.stop();
    }
  });
});
