import "server-only";
import { Redis } from "ioredis";
import type pg from "pg";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { getConfig } from "@/lib/config";
import { newPool } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { getLogger } from "@/lib/log";
import { countRateLimitRejection } from "@/lib/observability/metrics";
import { slot } from "@/lib/scope";
import { batchedPgLimiters, type CountingLimiter } from "./pg-batch";

// The limits of the spec's section 8, via rate-limiter-flexible. The store follows the
// deployment: memory for one process on SQLite, PostgreSQL or Redis when several app
// instances must share counters. Each policy is announced with the IETF RateLimit-Policy
// and RateLimit headers (draft-ietf-httpapi-ratelimit-headers, structured-field syntax).

export interface Policy {
  name: string;
  limit: number;
  windowSec: number;
}

export interface LimitState {
  policy: Policy;
  remaining: number;
  resetSec: number;
}

type Store = "memory" | "redis" | "postgres";

interface Limiters {
  publicMinute: CountingLimiter;
  publicDay: CountingLimiter;
  keyMinute: CountingLimiter;
  signinMinute: CountingLimiter;
  policies: { publicMinute: Policy; publicDay: Policy; keyMinute: Policy; signinMinute: Policy };
  ready: Promise<void>;
}

/** What one app's limits keep (lib/scope.ts): its limiters, its store's connections, the unflushed counts. */
interface AppLimits {
  limiters: Limiters | undefined;
  redis: Redis | undefined;
  pool: pg.Pool | undefined;
  /** The PostgreSQL store's consumes not yet counted in the database (lib/ratelimit/pg-batch.ts). */
  flushCounts: (() => Promise<void>) | null;
}

const appLimits = slot<AppLimits>(
  () => ({ limiters: undefined, redis: undefined, pool: undefined, flushCounts: null }),
  async (l) => {
    await l.flushCounts?.().catch(() => {});
    l.redis?.disconnect();
    await l.pool?.end().catch(() => {});
  },
);

/** How often an ongoing Redis outage is logged again. */
const OUTAGE_LOG_INTERVAL_MS = 60_000;

/**
 * The one Redis client of the app. It connects in the background and reconnects for
 * ever (ioredis' retry strategy, at most every 5 s); while it is not ready, commands fail at
 * once (no offline queue) and every limiter counts per process (its insurance limiter).
 */
function redisClient(): Redis {
  const app = appLimits();
  if (app.redis) return app.redis;
  const url = getConfig().REDIS_URL;
  if (!url) throw new Error("RATE_LIMIT_STORE=redis needs REDIS_URL");
  const log = getLogger();
  let lastLogged = 0;
  let down = false;
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectionName: "reseller-ratelimit",
    retryStrategy: (times) => Math.min(times * 200, 5000),
  });
  client.on("error", (err: Error) => {
    const now = Date.now();
    if (down && now - lastLogged < OUTAGE_LOG_INTERVAL_MS) return;
    down = true;
    lastLogged = now;
    log.warn({ reason: err.message }, "rate-limit store: Redis unreachable; counting per process until it is back");
  });
  client.on("ready", () => {
    if (down) log.info("rate-limit store: Redis is back");
    down = false;
  });
  app.redis = client;
  return client;
}

/**
 * At server start: with Redis, connect before the first request (until then every request
 * would be counted per process), waiting at most `waitMs`; an unreachable Redis does not stop
 * the start (see redisClient).
 */
export async function connectRateLimitStore(waitMs: number): Promise<void> {
  if (storeOf() !== "redis") return;
  const client = redisClient();
  if (client.status === "ready") return;
  await new Promise<void>((resolve) => {
    const t = setTimeout(done, waitMs);
    function done() {
      clearTimeout(t);
      client.off("ready", done);
      resolve();
    }
    client.once("ready", done);
  });
}

/** The rate-limit store and whether it is in use, for readiness checks: "degraded" while Redis is away. */
export function rateLimitStoreState(): { store: Store; state: "ok" | "degraded" } {
  const store = storeOf();
  if (store !== "redis") return { store, state: "ok" };
  return { store, state: redisClient().status === "ready" ? "ok" : "degraded" };
}

function storeOf(): Store {
  const c = getConfig();
  if (c.RATE_LIMIT_STORE) return c.RATE_LIMIT_STORE;
  if (c.REDIS_URL) return "redis";
  return c.databaseProvider === "postgresql" ? "postgres" : "memory";
}

async function build(): Promise<Omit<Limiters, "ready">> {
  const c = getConfig();
  const policies = {
    publicMinute: { name: "minute", limit: c.RATE_LIMIT_PUBLIC_PER_MINUTE, windowSec: 60 },
    publicDay: { name: "day", limit: c.RATE_LIMIT_PUBLIC_CREATES_PER_DAY, windowSec: 86_400 },
    keyMinute: { name: "minute", limit: c.RATE_LIMIT_KEY_PER_MINUTE, windowSec: 60 },
    signinMinute: { name: "signin", limit: c.RATE_LIMIT_SIGNIN_PER_MINUTE, windowSec: 60 },
  };
  const store = storeOf();
  let make: (prefix: string, p: Policy) => Promise<CountingLimiter>;
  if (store === "memory") {
    make = async (keyPrefix, p) => new RateLimiterMemory({ keyPrefix, points: p.limit, duration: p.windowSec });
  } else if (store === "redis") {
    const client = redisClient();
    make = async (keyPrefix, p) =>
      new RateLimiterRedis({
        storeClient: client,
        keyPrefix: `rl:${keyPrefix}`,
        points: p.limit,
        duration: p.windowSec,
        // Redis away (at start or later) must not take the API down: per-process counters meanwhile.
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points: p.limit, duration: p.windowSec }),
      });
  } else {
    if (c.databaseProvider !== "postgresql") throw new Error("RATE_LIMIT_STORE=postgres needs a PostgreSQL DATABASE_URL");
    // One round trip per batch of requests, not per request (lib/ratelimit/pg-batch.ts).
    const app = appLimits();
    const pool = newPool({ connectionString: c.DATABASE_URL, max: 2 }, "rate-limits");
    app.pool = pool;
    const limiter = await batchedPgLimiters(pool);
    app.flushCounts = limiter.flush;
    make = async (keyPrefix, p) => limiter(keyPrefix, p.limit, p.windowSec);
  }
  return {
    publicMinute: await make("pub-min", policies.publicMinute),
    publicDay: await make("pub-day", policies.publicDay),
    keyMinute: await make("key-min", policies.keyMinute),
    signinMinute: await make("signin-min", policies.signinMinute),
    policies,
  };
}

/** At shutdown: every consume answered from memory counted in the shared store before the process goes. */
export async function flushRateLimitCounts(): Promise<void> {
  await appLimits().flushCounts?.();
}

async function limiters(): Promise<Limiters> {
  const app = appLimits();
  if (!app.limiters) {
    const ready = build();
    const pending = { ready: ready.then(() => {}) } as Limiters;
    app.limiters = pending;
    Object.assign(
      pending,
      await ready.catch((e) => {
        app.limiters = undefined;
        throw e;
      }),
    );
  }
  const l = app.limiters;
  await l.ready;
  return l;
}

function stateOf(policy: Policy, r: RateLimiterRes): LimitState {
  return { policy, remaining: Math.max(0, r.remainingPoints), resetSec: Math.max(1, Math.ceil(r.msBeforeNext / 1000)) };
}

async function consume(l: CountingLimiter, policy: Policy, key: string): Promise<{ ok: boolean; state: LimitState }> {
  try {
    return { ok: true, state: stateOf(policy, await l.consume(key, 1)) };
  } catch (e) {
    // A rejection is a RateLimiterRes; anything else (a store failure) is an error.
    if (e instanceof RateLimiterRes) return { ok: false, state: stateOf(policy, e) };
    throw e;
  }
}

export function rateLimitHeaders(states: LimitState[]): Record<string, string> {
  if (!states.length) return {};
  return {
    "RateLimit-Policy": states.map((s) => `"${s.policy.name}";q=${s.policy.limit};w=${s.policy.windowSec}`).join(", "),
    RateLimit: states.map((s) => `"${s.policy.name}";r=${s.remaining};t=${s.resetSec}`).join(", "),
  };
}

function limited(code: "RATE_LIMITED" | "DAILY_LIMIT_EXCEEDED", state: LimitState, states: LimitState[], tier: "key" | "ip"): AppError {
  countRateLimitRejection(state.policy.name, tier);
  const message =
    code === "RATE_LIMITED"
      ? `Too many requests: the limit is ${state.policy.limit} per minute. Retry in ${state.resetSec} s.`
      : `The keyless tier allows ${state.policy.limit} orders a day. Retry in ${state.resetSec} s, or use an API key.`;
  return new AppError(
    code,
    message,
    { retryAfter: state.resetSec },
    { ...rateLimitHeaders(states), "Retry-After": String(state.resetSec) },
  );
}

export type Identity = { kind: "key"; apiKeyId: string } | { kind: "ip"; ip: string };

/** Counts one request; throws RATE_LIMITED (with headers) when over. Returns the headers to send. */
export async function limitRequest(who: Identity): Promise<LimitState[]> {
  const l = await limiters();
  return who.kind === "key"
    ? consumeOrThrow(l.keyMinute, l.policies.keyMinute, who.apiKeyId, "key")
    : consumeOrThrow(l.publicMinute, l.policies.publicMinute, who.ip, "ip");
}

async function consumeOrThrow(limiter: CountingLimiter, policy: Policy, key: string, tier: "key" | "ip"): Promise<LimitState[]> {
  const r = await consume(limiter, policy, key);
  if (!r.ok) throw limited("RATE_LIMITED", r.state, [r.state], tier);
  return [r.state];
}

/**
 * Counts one keyless order creation against the daily quota. The returned `refund` gives the
 * unit back when no order was created (a rejected body or an idempotent replay is not a creation).
 */
export async function limitKeylessCreation(ip: string, prior: LimitState[]) {
  const l = await limiters();
  const r = await consume(l.publicDay, l.policies.publicDay, ip);
  const states = [...prior, r.state];
  if (!r.ok) throw limited("DAILY_LIMIT_EXCEEDED", r.state, states, "ip");
  return {
    states,
    refund: () =>
      l.publicDay.reward(ip, 1).then(
        () => {},
        () => {},
      ),
  };
}

/** Sign-in nonces per client IP: issuing one writes a row, so it is limited like an API call. */
export async function limitSigninNonce(ip: string): Promise<LimitState[]> {
  const l = await limiters();
  return consumeOrThrow(l.signinMinute, l.policies.signinMinute, ip, "ip");
}
