import pg from "pg";
import { RateLimiterRes } from "rate-limiter-flexible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchedPgLimiters } from "@/lib/ratelimit/pg-batch";
import { createDatabase, type TestDatabase } from "../support/server";

// The batched PostgreSQL counters (lib/ratelimit/pg-batch.ts) stay exact: concurrent
// consumes, from one process or from several, never let more through than the limit.

let db: TestDatabase;
const pools: pg.Pool[] = [];
const pool = () => {
  const p = new pg.Pool({ connectionString: db.url, max: 2 });
  pools.push(p);
  return p;
};
beforeAll(async () => {
  db = await createDatabase("postgres");
});
afterAll(async () => {
  for (const p of pools) await p.end();
  await db?.drop();
});

const outcome = (p: Promise<RateLimiterRes>) =>
  p.then(
    (r) => ({ ok: true, r }),
    (e) => {
      if (!(e instanceof RateLimiterRes)) throw e;
      return { ok: false, r: e };
    },
  );

describe("batched PostgreSQL rate-limit counters", () => {
  it("of 200 concurrent consumes of one key, exactly the limit get through, each with its own remaining count", async () => {
    const make = await batchedPgLimiters(pool());
    const l = make("t1", 60, 60);
    const results = await Promise.all(Array.from({ length: 200 }, () => outcome(l.consume("ip-a"))));
    expect(results.filter((x) => x.ok)).toHaveLength(60);
    const remaining = results.filter((x) => x.ok).map((x) => x.r.remainingPoints);
    expect(new Set(remaining).size).toBe(60);
    expect(Math.min(...remaining)).toBe(0);
    // Another key has its own count.
    expect((await outcome(l.consume("ip-b"))).ok).toBe(true);
  });

  it("two instances (two pools, two batchers) share one count exactly", async () => {
    const a = (await batchedPgLimiters(pool()))("t2", 50, 60);
    const b = (await batchedPgLimiters(pool()))("t2", 50, 60);
    const results = await Promise.all(Array.from({ length: 120 }, (_, i) => outcome((i % 2 ? a : b).consume("k"))));
    expect(results.filter((x) => x.ok)).toHaveLength(50);
  });

  it("a reward gives a unit back; a new window starts from zero", async () => {
    const l = (await batchedPgLimiters(pool()))("t3", 2, 1);
    expect((await outcome(l.consume("k"))).ok).toBe(true);
    expect((await outcome(l.consume("k"))).ok).toBe(true);
    expect((await outcome(l.consume("k"))).ok).toBe(false);
    await l.reward("k", 2);
    expect((await outcome(l.consume("k"))).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 1100));
    const fresh = await outcome(l.consume("k"));
    expect(fresh.ok).toBe(true);
    expect(fresh.r.consumedPoints).toBe(1);
  });
});
