import "server-only";
import type pg from "pg";
import { RateLimiterRes } from "rate-limiter-flexible";

// Rate-limit counters on PostgreSQL, shared by every app instance, with one database round
// trip per batch of requests instead of one per request, and none to wait for while a key is
// far from its limit (issue 12: at 50 connections the
// per-request upsert of rate-limiter-flexible's RateLimiterPostgres made every request wait
// in the pool's queue, ~0.1 of a bare server's throughput). The counts stay exact: every
// consume that arrives while a batch is on its way is queued, and the queue goes out as ONE
// upsert of all its keys (several consumes of one key are summed into one row); each caller
// then gets its own place in that key's count, in arrival order. While a key's count (as the
// database last returned it, plus this process's consumes in flight) is under half its limit,
// a request is answered at once and its consume goes out with the next batch, within
// BACKGROUND_FLUSH_MS; closer to the limit every request waits for its exact place. So one
// instance is exact, and so are requests that reach several instances one after another, at
// least BACKGROUND_FLUSH_MS apart; requests that reach several instances closer together can
// pass up to half the limit more per extra instance (docs/deploy.md, Redis): an instance
// answers from memory only while its own count is under half. Same table, key format and
// fixed-window semantics as RateLimiterPostgres (so instances of either kind can share it).

interface Waiting {
  key: string;
  points: number;
  durationMs: number;
  resolve: (r: { total: number; expire: number }) => void;
  reject: (e: unknown) => void;
}

const TABLE = "rate_limits";

/**
 * How long consumes answered from memory may wait to be counted in the database: under load
 * they go out together at most this often, not once per round trip (tests/ratelimit: 69
 * upserts in 97 ms of a loop, against at most 11 now). On PostgreSQL's /currencies under
 * load (bench/production.mjs) the database server's CPU went from 5-8 to 4 µs a request; the
 * app's own CPU did not move beyond the machine's noise. A consume that waits for its exact
 * count goes out at once, with everything queued.
 */
export const BACKGROUND_FLUSH_MS = 10;

/**
 * One batch on its way at a time, the next collecting meanwhile: batches reach the database in
 * the order their consumes were made, so a request that waits is never counted before a
 * consume made earlier (answered from memory) that is still on its way.
 */
class BatchedCounters {
  private queue: Waiting[] = [];
  private inFlight: Promise<void> | null = null;
  /** Someone in the queue waits for the database's answer: send as soon as the line is free. */
  private urgent = false;
  private timer: NodeJS.Timeout | null = null;
  private immediate = false;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  constructor(private pool: pg.Pool) {}

  add(key: string, points: number, durationMs: number, urgent = true): Promise<{ total: number; expire: number }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key, points, durationMs, resolve, reject });
      if (urgent) this.urgent = true;
      this.schedule();
    });
  }

  /**
   * The next send: right away (on the next turn, so that one turn's consumes go together) when
   * someone waits or the last send is more than BACKGROUND_FLUSH_MS old; otherwise once it is.
   */
  private schedule() {
    if (!this.queue.length || this.inFlight || this.immediate) return;
    // performance.now(), not Date.now(): whole milliseconds would let two sends come 9.x ms apart.
    const wait = this.urgent ? 0 : this.lastSentAt + BACKGROUND_FLUSH_MS - performance.now();
    if (wait <= 0) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.immediate = true;
      setImmediate(() => {
        this.immediate = false;
        this.pump();
      });
    } else {
      // A timer counts on the loop's clock, which may lag: it asks again rather than sending early.
      this.timer ??= setTimeout(() => {
        this.timer = null;
        this.schedule();
      }, Math.ceil(wait));
    }
  }

  /** Sends the queue as one batch, unless a batch is already on its way (see the class). */
  private pump() {
    if (this.inFlight || !this.queue.length) return;
    const batch = this.queue;
    this.queue = [];
    this.urgent = false;
    this.lastSentAt = performance.now();
    this.inFlight = this.send(batch).finally(() => {
      this.inFlight = null;
      this.schedule();
    });
  }

  /** Sends what is queued now and waits until the database has counted it (at shutdown). */
  async flush(): Promise<void> {
    while (this.inFlight || this.queue.length) {
      if (this.inFlight) await this.inFlight;
      else this.pump();
    }
  }

  private async send(batch: Waiting[]) {
    const sums = new Map<string, { points: number; durationMs: number }>();
    for (const w of batch) {
      const s = sums.get(w.key);
      if (s) s.points += w.points;
      else sums.set(w.key, { points: w.points, durationMs: w.durationMs });
    }
    const keys = [...sums.keys()];
    const now = Date.now();
    try {
      const { rows } = await this.pool.query<{ key: string; points: number; expire: string }>({
        name: "rl-batch-upsert",
        text: `INSERT INTO ${TABLE} (key, points, expire)
               SELECT k, p, $4::bigint + d FROM unnest($1::text[], $2::int[], $3::bigint[]) AS t(k, p, d)
               ON CONFLICT (key) DO UPDATE SET
                 points = CASE WHEN ${TABLE}.expire <= $4 THEN EXCLUDED.points ELSE ${TABLE}.points + EXCLUDED.points END,
                 expire = CASE WHEN ${TABLE}.expire <= $4 THEN EXCLUDED.expire ELSE ${TABLE}.expire END
               RETURNING key, points, expire`,
        values: [keys, keys.map((k) => sums.get(k)!.points), keys.map((k) => sums.get(k)!.durationMs), now],
      });
      const totals = new Map(rows.map((r) => [r.key, { total: r.points, expire: Number(r.expire) }]));
      // Each caller's place: the count before the batch plus the consumes queued before it.
      const before = new Map(keys.map((k) => [k, (totals.get(k)?.total ?? 0) - sums.get(k)!.points]));
      for (const w of batch) {
        const t = totals.get(w.key);
        if (!t) {
          w.reject(new Error("rate-limit store: no row returned"));
          continue;
        }
        const total = before.get(w.key)! + w.points;
        before.set(w.key, total);
        w.resolve({ total, expire: t.expire });
      }
    } catch (e) {
      for (const w of batch) w.reject(e);
    }
  }
}

/** The part of rate-limiter-flexible's limiter interface lib/ratelimit/limiter.ts uses. */
export interface CountingLimiter {
  consume(key: string, points?: number): Promise<RateLimiterRes>;
  reward(key: string, points?: number): Promise<unknown>;
}

/** Makes one policy's limiter; `flush` sends every consume not yet counted and waits for the database. */
export type BatchedLimiters = ((keyPrefix: string, limit: number, windowSec: number) => CountingLimiter) & { flush(): Promise<void> };

/** Creates the table when missing (as RateLimiterPostgres does) and drops expired rows every few minutes. */
export async function batchedPgLimiters(pool: pg.Pool): Promise<BatchedLimiters> {
  try {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`,
    );
  } catch (e) {
    // Two instances creating it at once: one wins, the other sees a duplicate type.
    if ((e as { code?: string }).code !== "23505") throw e;
  }
  const counters = new BatchedCounters(pool);
  // The last count the database returned for each key, and this process's consumes still on their way.
  const known = new Map<string, { total: number; expire: number; pending: number }>();
  setInterval(() => {
    pool.query(`DELETE FROM ${TABLE} WHERE expire < $1`, [Date.now() - 3_600_000]).catch(() => {});
    const now = Date.now();
    for (const [k, v] of known) if (v.expire <= now && v.pending === 0) known.delete(k);
  }, 60_000).unref();
  const learn = (key: string, total: number, expire: number) => {
    const k = known.get(key);
    if (!k || expire > k.expire) known.set(key, { total, expire, pending: k?.pending ?? 0 });
    else if (expire === k.expire && total > k.total) k.total = total;
  };
  const make = (keyPrefix: string, limit: number, windowSec: number): CountingLimiter => ({
    async consume(key, points = 1) {
      const full = `${keyPrefix}:${key}`;
      const now = Date.now();
      const k = known.get(full);
      // Far from the limit (under half of it, counting what this process has in flight) and
      // inside a window the database already told us about: answer now and count in the
      // background (the next batch). Other instances' consumes since the last answer are not
      // seen here, so near the limit every decision waits for the database's exact count.
      if (k && k.expire > now + 1000 && k.total + k.pending + points <= limit / 2) {
        k.pending += points;
        const total = k.total + k.pending;
        counters.add(full, points, windowSec * 1000, false).then(
          (r) => {
            k.pending -= points;
            learn(full, r.total, r.expire);
          },
          () => {
            k.pending -= points;
          },
        );
        return new RateLimiterRes(Math.max(limit - total, 0), k.expire - now, total, false);
      }
      const { total, expire } = await counters.add(full, points, windowSec * 1000);
      learn(full, total, expire);
      const res = new RateLimiterRes(Math.max(limit - total, 0), Math.max(expire - Date.now(), 0), total, total === points);
      if (total > limit) throw res;
      return res;
    },
    reward: async (key, points = 1) => {
      const full = `${keyPrefix}:${key}`;
      const r = await counters.add(full, -points, windowSec * 1000);
      const k = known.get(full);
      if (k && k.expire === r.expire) k.total = r.total; // a reward lowers the count
    },
  });
  return Object.assign(make, { flush: () => counters.flush() });
}
