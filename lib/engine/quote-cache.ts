import "server-only";
import crypto from "node:crypto";
import { D, type Dec } from "@/lib/money/decimal";
import type { SharedStore } from "./shared-store";

// Upstream quotes, shared: an answer is reused for its key until it is `ttlMs` old, and while
// a key's request is in flight every caller for that key waits on the same promise (single
// flight), so N concurrent estimates for one pair and band make one upstream request. Errors
// the caller calls answers (an amount out of range, a pair not offered) are cached like
// values; outages are not (the provider's cool-down handles those).

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** How an outcome is written to the shared store and read back. */
export interface OutcomeCodec<T> {
  encode(o: Outcome<T>): string;
  decode(s: string): Outcome<T>;
}

/**
 * With REDIS_URL (lib/engine/shared-store.ts): the cache and the single flight span the
 * instances. The first instance to miss a key takes a lock on it (SET NX with a deadline),
 * asks upstream and writes the outcome for `ttlMs`; the others wait for that outcome. An
 * outage outcome is written for a moment only, so that the waiters get it rather than each
 * asking again in turn. Redis away: per process, as without it.
 */
export interface SharedCache<T> {
  store: SharedStore;
  codec: OutcomeCodec<T>;
  /** Longest a lock is held (the upstream request's own deadline), and longest a waiter waits. */
  lockMs: number;
}

const MAX_ENTRIES = 20_000;
/** How long an outage outcome stays in the shared store for the instances that waited on it. */
const OUTAGE_SHARED_MS = 1000;
const WAIT_POLL_MS = 20;
/** Deletes the lock only if it is still the caller's (another may have taken it after expiry). */
const RELEASE_LOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

const settle = <T>(p: Promise<T>): Promise<Outcome<T>> =>
  p.then(
    (value): Outcome<T> => ({ ok: true, value }),
    (error): Outcome<T> => ({ ok: false, error }),
  );

export class QuoteCache<T> {
  private readonly entries = new Map<string, { outcome: Outcome<T>; expiresAt: number }>();
  private readonly inflight = new Map<string, Promise<Outcome<T>>>();

  constructor(
    private readonly opts: { ttlMs: number; isAnswer: (error: unknown) => boolean; now?: () => number; shared?: SharedCache<T> | null },
  ) {}

  private now() {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  /** The cached outcome for `key`, else the in-flight one, else `fetch()`'s, shared with every concurrent caller. */
  async get(key: string, fetch: () => Promise<T>): Promise<T> {
    const outcome = await this.outcome(key, fetch);
    if (outcome.ok) return outcome.value;
    throw outcome.error;
  }

  private outcome(key: string, fetch: () => Promise<T>): Promise<Outcome<T>> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.now()) return Promise.resolve(hit.outcome);
    const running = this.inflight.get(key);
    if (running) return running;
    const shared = this.opts.shared;
    let viaShared = false;
    const p = shared
      ? shared.store.whenReady().then((ready) => {
          viaShared = ready;
          return ready ? this.sharedOutcome(shared, key, fetch) : settle(fetch());
        })
      : settle(fetch());
    this.inflight.set(key, p);
    void p.then((o) => {
      this.inflight.delete(key);
      // Shared: the store holds the outcome (kept here too it could outlive the shared entry).
      if (!viaShared && (o.ok || this.opts.isAnswer(o.error))) this.store(key, o);
    });
    return p;
  }

  private async sharedOutcome(sh: SharedCache<T>, key: string, fetch: () => Promise<T>): Promise<Outcome<T>> {
    const { redis, prefix } = sh.store;
    const valueKey = `${prefix}c:${key}`;
    const lockKey = `${prefix}l:${key}`;
    const deadline = Date.now() + sh.lockMs;
    let fetched: Outcome<T> | null = null;
    try {
      for (;;) {
        const v = await redis.get(valueKey);
        if (v !== null) return sh.codec.decode(v);
        const mine = crypto.randomUUID();
        if ((await redis.set(lockKey, mine, "PX", sh.lockMs, "NX")) === "OK") {
          // The previous holder may have written its outcome and let go between our read and our lock.
          const written = await redis.get(valueKey);
          if (written !== null) {
            await redis.eval(RELEASE_LOCK, 1, lockKey, mine);
            return sh.codec.decode(written);
          }
          fetched = await settle(fetch());
          const answer = fetched.ok || this.opts.isAnswer(fetched.error);
          const ttl = answer ? this.opts.ttlMs : Math.min(this.opts.ttlMs, OUTAGE_SHARED_MS);
          if (ttl > 0) await redis.set(valueKey, sh.codec.encode(fetched), "PX", Math.ceil(ttl));
          await redis.eval(RELEASE_LOCK, 1, lockKey, mine);
          return fetched;
        }
        if (Date.now() > deadline) break; // the lock's holder died: ask ourselves
        await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
      }
    } catch {
      // Redis failed mid-way: what we fetched stands; else ask upstream ourselves.
      if (fetched) return fetched;
    }
    return settle(fetch());
  }

  private store(key: string, outcome: Outcome<T>) {
    if (this.opts.ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) {
      // Oldest first (Map keeps insertion order): drop expired ones, else the oldest.
      const now = this.now();
      for (const [k, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(k);
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, { outcome, expiresAt: this.now() + this.opts.ttlMs });
  }
}

/** Amount bands: four per doubling (each about 19% wide), so nearby amounts share a quote. */
export const BANDS_PER_DOUBLING = 4;

export function amountBand(amount: Dec): number {
  return amount.log(2).mul(BANDS_PER_DOUBLING).floor().toNumber();
}

/** Scales a quote made for `quotedAmount` to `amount` in the same band (linear, rounded down). */
export function scaleQuote(toAmount: Dec, quotedAmount: Dec, amount: Dec): Dec {
  if (amount.eq(quotedAmount)) return toAmount;
  return toAmount.mul(amount).div(quotedAmount).toDecimalPlaces(18, D.ROUND_DOWN);
}
