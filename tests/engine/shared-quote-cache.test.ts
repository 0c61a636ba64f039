import crypto from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { type OutcomeCodec, QuoteCache } from "@/lib/engine/quote-cache";
import { sharedStore } from "@/lib/engine/shared-store";

// The quote cache shared through Redis (issue 31): two caches standing for two instances, on
// the Redis of the test machine under a scope of their own. One fetch per key however the
// callers are spread; an answer error is shared like a value; with Redis unreachable each
// cache works on its own.

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const codec: OutcomeCodec<number> = {
  encode: (o) => JSON.stringify(o.ok ? { v: o.value } : { e: String((o.error as Error).message) }),
  decode: (s) => {
    const j = JSON.parse(s);
    return "v" in j ? { ok: true, value: j.v } : { ok: false, error: new Error(j.e) };
  },
};
const scope = `test-${crypto.randomUUID()}`;
const store = sharedStore(REDIS_URL, scope)!;
const instance = () =>
  new QuoteCache<number>({ ttlMs: 60_000, isAnswer: (e) => /answer/.test(String(e)), shared: { store, codec, lockMs: 30_000 } });

afterAll(async () => {
  const keys = await store.redis.keys(`${store.prefix}*`);
  if (keys.length) await store.redis.del(...keys);
  store.redis.disconnect();
});

describe("shared quote cache", () => {
  it("one fetch per key for callers spread over two instances, and the value they all get", async () => {
    const [a, b] = [instance(), instance()];
    let fetches = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const fetch = async () => {
      fetches++;
      await gate;
      return 42;
    };
    const calls = Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).get("k1", fetch));
    // Most callers reach the lock or the wait before the one fetch answers (one that comes later reads the stored value).
    await new Promise((r) => setTimeout(r, 200));
    release();
    expect(await Promise.all(calls)).toEqual(Array(10).fill(42));
    expect(fetches).toBe(1);
    // A third instance, later: from the store, no fetch.
    expect(await instance().get("k1", fetch)).toBe(42);
    expect(fetches).toBe(1);
  });

  it("an answer error is shared like a value; an outage is not kept", async () => {
    const [a, b] = [instance(), instance()];
    let fetches = 0;
    const refuse = async (): Promise<number> => {
      fetches++;
      throw new Error("answer: too low");
    };
    const quote = async () => {
      fetches++;
      return 1;
    };
    await expect(a.get("k2", refuse)).rejects.toThrow("answer: too low");
    await expect(b.get("k2", quote)).rejects.toThrow("answer: too low");
    expect(fetches).toBe(1);
  });

  it("Redis unreachable: each instance fetches on its own, nothing fails", async () => {
    const down = sharedStore("redis://127.0.0.1:1", scope)!;
    const c = new QuoteCache<number>({ ttlMs: 60_000, isAnswer: () => false, shared: { store: down, codec, lockMs: 1000 } });
    let fetches = 0;
    expect(await c.get("k3", async () => ++fetches)).toBe(1);
    expect(await c.get("k3", async () => ++fetches)).toBe(1); // cached per process meanwhile
    down.redis.disconnect();
  });
});
