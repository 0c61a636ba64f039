import pg from "pg";
import { RateLimiterRes } from "rate-limiter-flexible";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKGROUND_FLUSH_MS, batchedPgLimiters } from "@/lib/ratelimit/pg-batch";
import { createDatabase, type TestDatabase } from "../support/server";

// The batched PostgreSQL counters (lib/ratelimit/pg-batch.ts): exact when every consume
// waits for the database; answered from memory far from the limit, with the overshoot that
// allows across instances bounded.

let db: TestDatabase;
const pools: pg.Pool[] = [];
const pool = () => {
  const p = new pg.Pool({ connectionString: db.url, max: 2 });
  // Dropping the test database at teardown terminates any connection still closing; an idle
  // pool client reports that as an 'error' event, which unhandled fails the whole vitest run.
  p.on("error", () => {});
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts the batch upserts a pool sends (the real pool's query, counted on its way). */
function countUpserts(p: pg.Pool) {
  const counter = { count: 0 };
  const query = p.query.bind(p) as (...args: unknown[]) => unknown;
  (p as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    if ((args[0] as { name?: string } | undefined)?.name === "rl-batch-upsert") counter.count++;
    return query(...args);
  };
  return counter;
}

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

  it("far from the limit answers without waiting; one instance stays exact, a burst across instances overshoots by at most half the limit", async () => {
    const a = (await batchedPgLimiters(pool()))("t4", 60, 60);
    const b = (await batchedPgLimiters(pool()))("t4", 60, 60);
    for (let i = 0; i < 20; i++) expect((await outcome((i % 2 ? a : b).consume("k"))).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    // One instance: exactly the 40 left.
    const one = await Promise.all(Array.from({ length: 60 }, () => outcome(a.consume("k"))));
    expect(one.filter((x) => x.ok)).toHaveLength(40);
    // A fresh key, a concurrent burst on two instances: each may answer from memory up to half the limit.
    for (let i = 0; i < 20; i++) expect((await outcome((i % 2 ? a : b).consume("j"))).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    const burst = await Promise.all(Array.from({ length: 100 }, (_, i) => outcome((i % 2 ? a : b).consume("j"))));
    const allowed = burst.filter((x) => x.ok).length;
    expect(allowed).toBeGreaterThanOrEqual(40);
    expect(allowed).toBeLessThanOrEqual(40 + 30);
    await new Promise((r) => setTimeout(r, 100));
    expect((await outcome(a.consume("j"))).ok).toBe(false);
    expect((await outcome(b.consume("j"))).ok).toBe(false);
  });

  it(`two instances alternating one request at a time, ${BACKGROUND_FLUSH_MS} ms apart or more: the 61st is refused on both`, async () => {
    const a = (await batchedPgLimiters(pool()))("t5", 60, 60);
    const b = (await batchedPgLimiters(pool()))("t5", 60, 60);
    const apart = () => sleep(BACKGROUND_FLUSH_MS + 5);
    const oks = [];
    for (let i = 0; i < 30; i++) {
      oks.push((await outcome(a.consume("k"))).ok);
      await apart();
      oks.push((await outcome(b.consume("k"))).ok);
      await apart();
    }
    expect(oks.every(Boolean)).toBe(true);
    expect((await outcome(b.consume("k"))).ok).toBe(false);
    expect((await outcome(a.consume("k"))).ok).toBe(false);
  });

  it(`under load, consumes answered from memory go out together at most every ${BACKGROUND_FLUSH_MS} ms; a flush counts them at once`, async () => {
    const p = pool();
    const upserts = countUpserts(p);
    const limiters = await batchedPgLimiters(p);
    const l = limiters("t6", 1_000_000, 60);
    expect((await outcome(l.consume("k"))).ok).toBe(true); // the first waits: the database tells the window
    const sent = upserts.count;
    const started = performance.now();
    // 2,000 requests, each on its own turn of the event loop (as requests from sockets are).
    for (let i = 0; i < 2000; i++) {
      expect((await outcome(l.consume("k"))).ok).toBe(true);
      await new Promise((r) => setImmediate(r));
    }
    const elapsed = performance.now() - started;
    await limiters.flush();
    // One upsert a round trip would be hundreds here; one per interval (and one at the flush) is the bound.
    expect(upserts.count - sent).toBeLessThanOrEqual(Math.ceil(elapsed / BACKGROUND_FLUSH_MS) + 2);
    // Right after the flush, the database holds every one of them.
    expect((await p.query("SELECT points FROM rate_limits WHERE key = 't6:k'")).rows[0].points).toBe(2001);
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
