import "server-only";
import crypto from "node:crypto";
import { Redis } from "ioredis";
import { getLogger } from "@/lib/log";
import { slot } from "@/lib/scope";

// With REDIS_URL, the providers engine's quote cache, its single flight and the providers'
// quote budgets are shared by every instance (docs/providers.md, "Several instances"). This
// is the Redis side of that: one client per app, its own connection (the rate limits
// keep theirs), failing fast while Redis is away so that callers fall back to what the
// process has on its own.

export interface SharedStore {
  readonly redis: Redis;
  /** Key prefix: `pq:` and a hash of the providers' endpoints (staging and production never mix). */
  readonly prefix: string;
  /**
   * True when Redis can be used now. While the first connection is being made it is waited
   * for (briefly), so that an instance that has just started does not ask the providers on
   * its own; during a later outage it answers false at once (callers work per process).
   */
  whenReady(): Promise<boolean>;
}

/** Longest the first requests wait for the first connection (after that, none waits until it is made). */
const FIRST_CONNECT_WAIT_MS = 5000;

/** The current app's clients, by URL; disconnected when the app closes. */
const appClients = slot(
  () => new Map<string, { redis: Redis; whenReady: (waitMs?: number) => Promise<boolean> }>(),
  (clients) => {
    for (const c of clients.values()) c.redis.disconnect();
    clients.clear();
  },
);

function clientFor(url: string): { redis: Redis; whenReady: (waitMs?: number) => Promise<boolean> } {
  const clients = appClients();
  const known = clients.get(url);
  if (known) return known;
  const log = getLogger();
  let down = false;
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectionName: "reseller-quotes",
    retryStrategy: (times) => Math.min(times * 200, 5000),
  });
  redis.on("error", (err: Error) => {
    if (!down) log.warn({ reason: err.message }, "quote cache: Redis unreachable; quotes are cached per process until it is back");
    down = true;
  });
  redis.on("ready", () => {
    if (down) log.info("quote cache: Redis is back");
    down = false;
  });
  let everReady = false;
  const firstReady = new Promise<void>((resolve) => redis.once("ready", () => resolve()));
  void firstReady.then(() => {
    everReady = true;
  });
  // Once a first wait ran out, later requests do not wait for the first connection either.
  let gaveUp = false;
  const whenReady = async (waitMs = FIRST_CONNECT_WAIT_MS) => {
    if (redis.status === "ready") return true;
    if (everReady || gaveUp) return false;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([firstReady, new Promise<void>((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
    const ready = (redis.status as string) === "ready";
    if (!ready) gaveUp = true;
    return ready;
  };
  const client = { redis, whenReady };
  clients.set(url, client);
  return client;
}

/** The shared store, or null without REDIS_URL. `scope` names the upstream endpoints. */
export function sharedStore(url: string | undefined, scope: string): SharedStore | null {
  if (!url) return null;
  const { redis, whenReady } = clientFor(url);
  const prefix = `pq:${crypto.createHash("sha256").update(scope).digest("hex").slice(0, 16)}:`;
  return { redis, prefix, whenReady };
}

/** At server start: connect the quotes' Redis before the first request, waiting at most `waitMs` (an unreachable Redis does not stop the start). */
export async function connectSharedStore(url: string | undefined, waitMs: number): Promise<void> {
  if (url) await clientFor(url).whenReady(waitMs);
}
