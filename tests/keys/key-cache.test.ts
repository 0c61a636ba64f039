import Database from "better-sqlite3";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { authenticateApiKey, createApiKey } from "@/lib/keys/api-keys";
import { keyCacheStats, startKeyCache, stopKeyCache } from "@/lib/keys/key-cache";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { refusalOf } from "../support/app-error";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// The process's cache of API keys (lib/keys/key-cache.ts) on real PostgreSQL, Redis and
// SQLite. Changes are made behind the process's back (plain SQL on another connection, or a
// message published on Redis by another client), never through the lib's own functions: those
// would drop this process's entries directly. The TTL is 10 minutes, so that only an
// announcement, or the bypass while the feed is down, can make a change apply here.

const TTL_MS = 600_000;
/** The default KEY_CACHE_TTL_MS: the bound a change must apply within. */
const BOUND_MS = 5000;
/** Reconnection delay of the feed: the window in which the bypass is observed. */
const RETRY_MS = 4000;
const REDIS_URL = "redis://127.0.0.1:6379";
const WALLET = "0x52908400098527886E0F7030069857D2E4169EE7";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, ok: () => Promise<boolean> | boolean, ms: number) {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(20);
  }
}

const auth = (t: TempDb, key: string) =>
  Promise.resolve(authenticateApiKey(t.db, key)).catch(async (e) => (await refusalOf(Promise.reject(e))).code);

describe.each(["postgres", "redis"] as const)("the key cache on PostgreSQL, invalidated through %s", (invalidation) => {
  let t: TempDb;
  let sql: pg.Client;
  beforeAll(async () => {
    t = await tempDatabase("postgres");
    sql = new pg.Client({ connectionString: t.url });
    await sql.connect();
  });
  afterEach(async () => stopKeyCache(t.db));
  afterAll(async () => {
    await sql?.end();
    await t?.cleanup();
  });

  const start = () =>
    startKeyCache(t.db, { ttlMs: TTL_MS, invalidation, databaseUrl: t.url, redisUrl: REDIS_URL, retryMs: RETRY_MS, waitMs: 10_000 });
  /** What another process would do: change the row in the database, and (Redis) publish it. */
  async function changeElsewhere(statement: string, values: unknown[], announce: string) {
    await sql.query(statement, values);
    if (invalidation === "redis") {
      const pub = new Redis(REDIS_URL);
      await pub.publish("key_cache", announce);
      pub.disconnect();
    }
  }
  /** Ends the feed's connection from the server's side, as a restart or a network cut would. */
  async function cutFeed() {
    const name = `reseller-key-cache-${process.pid}`;
    if (invalidation === "postgres") {
      const r = await sql.query("SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1", [name]);
      expect(r.rows).toHaveLength(1);
    } else {
      const admin = new Redis(REDIS_URL);
      const list = (await admin.client("LIST")) as string;
      const line = list.split("\n").find((l) => l.includes(` name=${name} `));
      expect(line).toBeDefined();
      await admin.client("KILL", "ID", /id=(\d+)/.exec(line ?? "")?.[1] ?? "");
      admin.disconnect();
    }
  }

  it("serves a key from memory, and drops it when another process's change is announced", async () => {
    await start();
    expect(keyCacheStats(t.db)?.live).toBe(true);
    const r = await getOrCreateReseller(t.db, { walletAddress: WALLET });
    const { key, apiKey } = await createApiKey(t.db, { resellerId: r.id, name: "app" });
    expect(await auth(t, key)).toEqual({ apiKeyId: apiKey.id, resellerId: r.id, markupBps: 0 });
    const before = keyCacheStats(t.db);
    expect(await auth(t, key)).toEqual({ apiKeyId: apiKey.id, resellerId: r.id, markupBps: 0 });
    expect(keyCacheStats(t.db)?.hits).toBe((before?.hits ?? 0) + 1);

    await changeElsewhere(`UPDATE "Reseller" SET "markupBps" = 125 WHERE "id" = $1`, [r.id], `r:${r.id}`);
    await until("the markup applies", async () => ((await auth(t, key)) as { markupBps: number }).markupBps === 125, BOUND_MS);
    await changeElsewhere(`UPDATE "ApiKey" SET "revokedAt" = now() WHERE "id" = $1`, [apiKey.id], `k:${apiKey.id}`);
    await until("the revocation applies", async () => (await auth(t, key)) === "INVALID_API_KEY", BOUND_MS);
  });

  it("an unknown key is never cached, so a key created afterwards works at once", async () => {
    await start();
    const size = keyCacheStats(t.db)?.size;
    expect(await auth(t, "rsk_live_11111111111111111111111111")).toBe("INVALID_API_KEY");
    expect(keyCacheStats(t.db)?.size).toBe(size);
  });

  it("while the feed is down nothing is served from the cache; once it is back the cache starts empty", async () => {
    await start();
    const r = await getOrCreateReseller(t.db, { walletAddress: WALLET });
    await sql.query(`UPDATE "Reseller" SET "markupBps" = 0 WHERE "id" = $1`, [r.id]);
    const { key } = await createApiKey(t.db, { resellerId: r.id, name: "outage" });
    await until("the feed is up", () => keyCacheStats(t.db)?.live === true, BOUND_MS);
    await auth(t, key);
    await auth(t, key);
    expect(keyCacheStats(t.db)?.hits).toBeGreaterThan(0);

    await cutFeed();
    await until("the feed is seen down", () => keyCacheStats(t.db)?.live === false, BOUND_MS);
    const down = keyCacheStats(t.db);
    // A change no one announces (the feed is down): the very next lookup reads the database.
    await sql.query(`UPDATE "Reseller" SET "markupBps" = 77 WHERE "id" = $1`, [r.id]);
    expect(await auth(t, key)).toMatchObject({ markupBps: 77 });
    const during = keyCacheStats(t.db);
    expect(during?.live).toBe(false); // still within the reconnection delay: this was the bypass
    expect(during?.hits).toBe(down?.hits);
    expect(during?.bypasses).toBe((down?.bypasses ?? 0) + 1);
    expect(during?.size).toBe(0);

    await until("the feed is back", () => keyCacheStats(t.db)?.live === true, RETRY_MS + 10_000);
    const back = keyCacheStats(t.db);
    expect(back?.size).toBe(0);
    expect(await auth(t, key)).toMatchObject({ markupBps: 77 });
    expect(keyCacheStats(t.db)?.misses).toBe((back?.misses ?? 0) + 1);
    await auth(t, key);
    expect(keyCacheStats(t.db)?.hits).toBe((back?.hits ?? 0) + 1);
  });
});

describe("the key cache on SQLite", () => {
  /** The next turn of the event loop: where the next request read from a socket is handled. */
  const nextTurn = () => new Promise((r) => setImmediate(r));

  it("reads the version row once a turn: another process's change applies from the next turn, to the very next request", async () => {
    const t = await tempDatabase("sqlite");
    const file = t.url.slice("file:".length);
    const other = new Database(file); // another process's connection, plain SQL
    try {
      await startKeyCache(t.db, { ttlMs: TTL_MS, invalidation: "postgres", databaseUrl: t.url });
      const r = await getOrCreateReseller(t.db, { walletAddress: WALLET });
      const { key, apiKey } = await createApiKey(t.db, { resellerId: r.id, name: "app" });
      await auth(t, key);
      await nextTurn();
      expect(await auth(t, key)).toMatchObject({ markupBps: 0 });
      expect(keyCacheStats(t.db)?.hits).toBe(1);
      // lastUsedAt is not a change of what a lookup returns: the cache stays.
      other.prepare(`UPDATE "ApiKey" SET "lastUsedAt" = 1 WHERE "id" = ?`).run(apiKey.id);
      await nextTurn();
      await auth(t, key);
      expect(keyCacheStats(t.db)?.hits).toBe(2);
      other.prepare(`UPDATE "Reseller" SET "markupBps" = 60 WHERE "id" = ?`).run(r.id);
      await nextTurn();
      expect(await auth(t, key)).toMatchObject({ markupBps: 60 });
      other.prepare(`UPDATE "ApiKey" SET "markupBps" = 90 WHERE "id" = ?`).run(apiKey.id);
      await nextTurn();
      expect(await auth(t, key)).toMatchObject({ markupBps: 90 });
      // The bound, both sides: within the turn that read the version, the entry read under it
      // is still served; from the next turn on, the revocation applies.
      await nextTurn();
      expect(await auth(t, key)).toMatchObject({ markupBps: 90 });
      other.prepare(`UPDATE "ApiKey" SET "revokedAt" = 1 WHERE "id" = ?`).run(apiKey.id);
      expect(await auth(t, key)).toMatchObject({ markupBps: 90 });
      await nextTurn();
      expect(await auth(t, key)).toBe("INVALID_API_KEY");
    } finally {
      other.close();
      await stopKeyCache(t.db);
      await t.cleanup();
    }
  });
});
