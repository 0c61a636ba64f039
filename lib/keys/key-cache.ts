import "server-only";
import { getConfig } from "@/lib/config";
import { type Db, driverOf, getDb } from "@/lib/db/client";
import { type KeyChangeFeed, onLocalKeyChange, postgresKeyChanges, redisKeyChanges, waitForLive } from "@/lib/db/key-changes";
import { statementOf } from "@/lib/db/sqlite-direct";
import { slot } from "@/lib/scope";

// The process's cache of API keys by hash, with what a lookup returns (the key's reseller,
// whether it is revoked, its own markup and the reseller's), so that a keyed request on
// PostgreSQL needs no round trip to the database. What makes it safe:
//
// - Only keys found are cached (revoked ones too: they stay revoked). An unknown key is asked
//   of the database every time, so a key created a moment ago works at once.
// - Every entry expires KEY_CACHE_TTL_MS after the read that filled it began: that is the
//   stated bound, whatever else fails (a notification lost on a connection that died
//   silently, a writer that did not publish).
// - Changes are announced (lib/db/key-changes.ts) and drop the entries they name. While the
//   announcements cannot reach the process (its LISTEN connection or Redis subscription not
//   yet made, lost, reconnecting), nothing is served from the cache or put into it: every
//   lookup reads the database. Once the feed is back, the cache starts empty.
// - A read that began before a change was announced does not go into the cache (a
//   generation counter), so a stale row cannot outlive the announcement that passed it.
// - SQLite (one file, possibly several processes, no notifications): a trigger raises a
//   version row whenever a key or a markup changes; the first lookup of each turn of the event
//   loop reads that row (a local read, no round trip) and an entry is served only if it was
//   read under that version. So there a change applies from the next turn on, in every
//   process: to every request that arrives after the turn in progress.

interface Row {
  id: string;
  resellerId: string;
}

interface Source {
  /** False: serve nothing from the cache, put nothing in it. */
  live(): boolean;
  /** SQLite: the version row now (undefined: no row, serve nothing). */
  version?(): number | undefined;
}

export interface KeyCacheStats {
  live: boolean;
  size: number;
  hits: number;
  misses: number;
  /** Lookups that went to the database because the feed was down. */
  bypasses: number;
}

class KeyCache {
  readonly #entries = new Map<string, { row: Row; expiresAt: number; version: number | undefined }>();
  #generation = 0;
  #version: number | undefined;
  readonly stats = { hits: 0, misses: 0, bypasses: 0 };

  constructor(
    readonly ttlMs: number,
    readonly source: Source,
  ) {}

  /**
   * The row for `hash`, from the cache when it may be served, else from `load` (whose row
   * carries the version it was read under, on SQLite). A hit is returned as it is, not in a
   * promise: it is most keyed requests, and two async frames cost more than the rest of it.
   */
  lookup<R extends Row>(hash: string, load: () => Promise<(R & { version?: number }) | undefined>): R | undefined | Promise<R | undefined> {
    if (!this.source.live()) {
      this.stats.bypasses++;
      return load();
    }
    let version: number | undefined;
    if (this.source.version) {
      version = this.source.version();
      if (version === undefined) {
        this.stats.bypasses++;
        return load();
      }
      if (version !== this.#version) {
        this.flush();
        this.#version = version;
      }
    }
    const startedAt = Date.now();
    const hit = this.#entries.get(hash);
    if (hit && hit.expiresAt > startedAt && hit.version === version) {
      this.stats.hits++;
      return hit.row as R;
    }
    if (hit) this.#entries.delete(hash);
    this.stats.misses++;
    return this.#fill(hash, load, startedAt, version);
  }

  async #fill<R extends Row>(
    hash: string,
    load: () => Promise<(R & { version?: number }) | undefined>,
    startedAt: number,
    version: number | undefined,
  ): Promise<R | undefined> {
    const generation = this.#generation;
    const row = await load();
    // Only a row read entirely after the last announcement, while the feed is up.
    if (row && generation === this.#generation && this.source.live()) {
      const { version: readUnder, ...rest } = row;
      this.#entries.set(hash, { row: rest as Row, expiresAt: startedAt + this.ttlMs, version: readUnder ?? version });
    }
    return row;
  }

  /** An announced change: 'k:<key id>', 'r:<reseller id>', anything else drops everything. */
  drop(change: string) {
    this.#generation++;
    const [kind, id] = [change.slice(0, 2), change.slice(2)];
    if (kind !== "k:" && kind !== "r:") return this.flush();
    // Changes are rare (a revocation, a markup): a pass over the entries is cheap enough.
    for (const [hash, e] of this.#entries) if ((kind === "k:" ? e.row.id : e.row.resellerId) === id) this.#entries.delete(hash);
  }

  flush() {
    this.#generation++;
    this.#entries.clear();
  }

  get size() {
    return this.#entries.size;
  }
}

interface Started {
  cache: KeyCache;
  feed: KeyChangeFeed | null;
  stopLocal: () => void;
}

const started = new WeakMap<Db, Started>();

export interface KeyCacheOptions {
  ttlMs: number;
  /** PostgreSQL only: how changes are heard (KEY_CACHE_INVALIDATION). */
  invalidation: "postgres" | "redis";
  /** PostgreSQL: the database of `db` (its LISTEN connection is made from it). */
  databaseUrl: string;
  redisUrl?: string;
  /** Delay before reconnecting a lost feed (at most, for Redis). */
  retryMs?: number;
  /** How long to wait for the feed's first connection (until then every lookup reads the database). */
  waitMs?: number;
}

const VERSION_SQL = `SELECT "version" FROM "KeyCacheVersion" WHERE "id" = 1`;

/**
 * SQLite's version row, read once per turn of the event loop rather than once per lookup: a
 * read is a read transaction of its own (the WAL's read lock taken and released), 8.7 µs a
 * keyed request in a profile under load (bench/README.md), while the requests of a turn
 * arrived together. A change another process commits applies from the next turn on: to every
 * request read from its socket after the turn in progress ends.
 */
function versionPerTurn(read: () => number | undefined): () => number | undefined {
  let fresh = false;
  let version: number | undefined;
  return () => {
    if (!fresh) {
      version = read();
      fresh = true;
      setImmediate(() => {
        fresh = false;
      });
    }
    return version;
  };
}

/** Starts caching the keys `db` looks up (lib/keys/api-keys.ts); ttlMs 0 caches nothing. */
export async function startKeyCache(db: Db, opts: KeyCacheOptions): Promise<void> {
  if (opts.ttlMs <= 0 || started.has(db)) return;
  const driver = driverOf(db);
  let feed: KeyChangeFeed | null = null;
  let source: Source;
  const handlers = { onChange: (c: string) => cache.drop(c), onReset: () => cache.flush() };
  if (driver.kind === "sqlite") {
    source = {
      live: () => true,
      version: versionPerTurn(() => (statementOf(driver.reader(), VERSION_SQL).get() as { version: number } | undefined)?.version),
    };
  } else {
    const retryMs = opts.retryMs ?? 1000;
    if (opts.invalidation === "redis") {
      if (!opts.redisUrl) throw new Error("KEY_CACHE_INVALIDATION=redis needs REDIS_URL");
      feed = redisKeyChanges(opts.redisUrl, handlers, { retryMs });
    } else feed = postgresKeyChanges(opts.databaseUrl, handlers, { retryMs });
    const f = feed;
    source = { live: () => f.live() };
  }
  const cache = new KeyCache(opts.ttlMs, source);
  started.set(db, { cache, feed, stopLocal: onLocalKeyChange((c) => cache.drop(c)) });
  if (feed) await waitForLive(feed, opts.waitMs ?? 0);
}

/** Stops the cache of `db` and closes its feed (graceful shutdown, tests). */
export async function stopKeyCache(db: Db): Promise<void> {
  const s = started.get(db);
  if (!s) return;
  started.delete(db);
  s.stopLocal();
  await s.feed?.close();
}

/** The cache of `db`, or undefined when none was started. */
export function keyCacheOf(db: Db): Pick<KeyCache, "lookup"> | undefined {
  return started.get(db)?.cache;
}

/** What the cache of `db` did so far (tests, metrics). */
export function keyCacheStats(db: Db): KeyCacheStats | null {
  const s = started.get(db);
  if (!s) return null;
  return { live: s.feed ? s.feed.live() : true, size: s.cache.size, ...s.cache.stats };
}

/** The app's client whose cache startProcessKeyCache started; stopped when the app closes. */
const appCached = slot<{ db: Db | null }>(
  () => ({ db: null }),
  (held) => stopProcessCache(held),
);

async function stopProcessCache(held: { db: Db | null }): Promise<void> {
  const db = held.db;
  held.db = null;
  if (db) await stopKeyCache(db);
}

/** At server start: the cache of the app's client (getDb), per the settings; waits at most `waitMs` for its feed. */
export async function startProcessKeyCache(waitMs: number): Promise<void> {
  const c = getConfig();
  const held = appCached();
  held.db = getDb();
  await startKeyCache(held.db, {
    ttlMs: c.KEY_CACHE_TTL_MS,
    invalidation: c.KEY_CACHE_INVALIDATION,
    databaseUrl: c.DATABASE_URL,
    redisUrl: c.REDIS_URL,
    waitMs,
  });
}

/** On shutdown, before the database closes. */
export async function stopProcessKeyCache(): Promise<void> {
  await stopProcessCache(appCached());
}
