import "server-only";
import crypto from "node:crypto";
import { Redis } from "ioredis";
import { getLogger } from "@/lib/log";

// With REDIS_URL, the providers engine's quote cache, its single flight and the providers'
// quote budgets are shared by every instance (docs/providers.md, "Several instances"). This
// is the Redis side of that: one client per process, its own connection (the rate limits
// keep theirs), failing fast while Redis is away so that callers fall back to what the
// process has on its own.

export interface SharedStore {
  readonly redis: Redis;
  /** Key prefix: `pq:` and a hash of the providers' endpoints (staging and production never mix). */
  readonly prefix: string;
  /** False while Redis is away: callers work per process meanwhile. */
  ready(): boolean;
}

const clients = new Map<string, Redis>();

function clientFor(url: string): Redis {
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
  clients.set(url, redis);
  return redis;
}

/** The shared store, or null without REDIS_URL. `scope` names the upstream endpoints. */
export function sharedStore(url: string | undefined, scope: string): SharedStore | null {
  if (!url) return null;
  const redis = clientFor(url);
  const prefix = `pq:${crypto.createHash("sha256").update(scope).digest("hex").slice(0, 16)}:`;
  return { redis, prefix, ready: () => redis.status === "ready" };
}
