import "server-only";
import { Redis } from "ioredis";
import pg from "pg";
import { getConfig } from "@/lib/config";
import { getLogger } from "@/lib/log";
import { slot } from "@/lib/scope";

// How a process hears that an API key or a reseller's markup changed, so that its cache of
// keys (lib/keys/key-cache.ts) drops what it holds. A change is named as text: 'k:<key id>',
// 'r:<reseller id>', or '*' (anything). Three ways, none of which the cache trusts alone
// (every entry also expires after KEY_CACHE_TTL_MS):
//
// - PostgreSQL: triggers on "ApiKey" and "Reseller" (migration 20261125090000_key_cache_notify)
//   NOTIFY the channel key_cache when the writer's transaction commits, whoever the writer is;
//   each process LISTENs on one connection of its own (postgresKeyChanges).
// - Redis (KEY_CACHE_INVALIDATION=redis): the process that makes the change publishes it after
//   its commit (announceKeyChange); every process subscribes (redisKeyChanges).
// - SQLite: no feed; a trigger raises a version row that each process reads (key-cache.ts).
//
// Whatever the way, the process making a change drops its own entries at once
// (announceKeyChange calls every cache of the process before anything else).

export const KEY_CHANGES_CHANNEL = "key_cache";

export interface KeyChangeHandlers {
  /** A change was announced. */
  onChange(change: string): void;
  /** The feed went down or came back: changes may have been missed, drop everything. */
  onReset(): void;
}

export interface KeyChangeFeed {
  /** True while changes reach this process: from a (re)subscription to the first sign of trouble. */
  live(): boolean;
  close(): Promise<void>;
}

/** A feed that is not live until its first subscription: what waitForLive waits on. */
export async function waitForLive(feed: KeyChangeFeed, waitMs: number): Promise<boolean> {
  const until = Date.now() + waitMs;
  while (!feed.live() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return feed.live();
}

/**
 * LISTEN on a dedicated connection (never one of the pool's: a pooled connection goes back to
 * the pool, and its LISTEN with it). Down on any error or end of the connection; reconnects
 * every `retryMs` until it is closed.
 */
export function postgresKeyChanges(url: string, h: KeyChangeHandlers, opts: { retryMs: number }): KeyChangeFeed {
  const log = getLogger();
  let client: pg.Client | null = null;
  let live = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const down = (c: pg.Client, err?: Error) => {
    if (c !== client) return; // an old connection's late event
    client = null;
    if (live) {
      live = false;
      h.onReset();
      log.warn(
        { reason: err?.message ?? "connection ended" },
        "key cache: LISTEN connection lost; keys are read from the database until it is back",
      );
    }
    c.removeAllListeners("notification");
    c.end().catch(() => {});
    if (!closed) timer = setTimeout(connect, opts.retryMs);
  };

  async function connect() {
    if (closed) return;
    // keepAlive: a connection that died without a word (a dropped network) is noticed by the
    // kernel's probes; until then the TTL is what bounds a missed change.
    const c = new pg.Client({ connectionString: url, keepAlive: true, application_name: `reseller-key-cache-${process.pid}` });
    client = c;
    c.on("error", (e) => down(c, e));
    c.on("end", () => down(c));
    c.on("notification", (m) => {
      if (m.channel === KEY_CHANGES_CHANNEL && m.payload) h.onChange(m.payload);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${KEY_CHANGES_CHANNEL}`);
    } catch (e) {
      down(c, e as Error);
      return;
    }
    if (closed || c !== client) return void c.end().catch(() => {});
    // Anything cached before now may have missed a change while no one listened.
    h.onReset();
    live = true;
  }

  void connect();
  return {
    live: () => live,
    async close() {
      closed = true;
      clearTimeout(timer);
      live = false;
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}

/** SUBSCRIBE on a connection of its own; down from the moment the connection closes until it is subscribed again. */
export function redisKeyChanges(url: string, h: KeyChangeHandlers, opts: { retryMs: number }): KeyChangeFeed {
  const log = getLogger();
  let live = false;
  // autoResubscribe off: live only once our own SUBSCRIBE on the new connection has answered.
  const sub = new Redis(url, {
    autoResubscribe: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectionName: `reseller-key-cache-${process.pid}`,
    retryStrategy: () => opts.retryMs,
  });
  const down = (why: string) => {
    if (!live) return;
    live = false;
    h.onReset();
    log.warn({ reason: why }, "key cache: Redis subscription lost; keys are read from the database until it is back");
  };
  sub.on("error", () => {}); // every connection error is followed by close, handled below
  for (const ev of ["close", "end", "reconnecting"] as const) sub.on(ev, () => down(ev));
  sub.on("message", (channel: string, message: string) => {
    if (channel === KEY_CHANGES_CHANNEL) h.onChange(message);
  });
  sub.on("ready", () => {
    sub.subscribe(KEY_CHANGES_CHANNEL).then(
      () => {
        if (sub.status !== "ready" || live) return;
        h.onReset();
        live = true;
      },
      () => {},
    );
  });
  return {
    live: () => live,
    async close() {
      live = false;
      sub.disconnect();
    },
  };
}

/** The caches of the current app, which hear the changes the app itself makes. */
const localHandlers = slot(() => new Set<(change: string) => void>());

/** Every cache of the app hears the changes the app itself makes, synchronously (other apps and processes: through the feed). */
export function onLocalKeyChange(fn: (change: string) => void): () => void {
  const handlers = localHandlers();
  handlers.add(fn);
  return () => handlers.delete(fn);
}

/** Longest wait for Redis to take an announcement; past it the other instances rely on the TTL. */
const PUBLISH_TIMEOUT_MS = 2000;

/**
 * After a committed change of a key ('k:<id>') or a reseller's markup or revocation
 * ('r:<id>'): this process's caches drop it at once; with KEY_CACHE_INVALIDATION=redis the
 * change is published to the other processes (on PostgreSQL's own feed the trigger did it).
 * Never throws: the change is made; an announcement that fails leaves the other instances to
 * the TTL, which is the stated bound anyway.
 */
export async function announceKeyChange(change: string): Promise<void> {
  for (const fn of localHandlers()) fn(change);
  const c = getConfig();
  if (c.databaseProvider !== "postgresql" || c.KEY_CACHE_INVALIDATION !== "redis" || !c.REDIS_URL) return;
  // A connection per announcement: changes are rare (a revocation, a markup), and a process
  // such as the CLI then holds nothing open afterwards.
  const pub = new Redis(c.REDIS_URL, {
    lazyConnect: true,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 0,
    connectTimeout: PUBLISH_TIMEOUT_MS,
    retryStrategy: () => null,
    connectionName: "reseller-key-change",
  });
  pub.on("error", () => {});
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      pub.connect().then(() => pub.publish(KEY_CHANGES_CHANNEL, change)),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("timed out")), PUBLISH_TIMEOUT_MS))),
    ]);
  } catch (e) {
    getLogger().warn(
      { reason: (e as Error).message },
      "key cache: a key change could not be published to Redis; other instances apply it within KEY_CACHE_TTL_MS",
    );
  } finally {
    clearTimeout(timer);
    pub.disconnect();
  }
}
