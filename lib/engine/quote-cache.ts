import "server-only";
import { D, type Dec } from "@/lib/money/decimal";

// Upstream quotes, shared: an answer is reused for its key until it is `ttlMs` old, and while
// a key's request is in flight every caller for that key waits on the same promise (single
// flight), so N concurrent estimates for one pair and band make one upstream request. Errors
// the caller calls answers (an amount out of range, a pair not offered) are cached like
// values; outages are not (the provider's cool-down handles those).

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

const MAX_ENTRIES = 20_000;

export class QuoteCache<T> {
  private readonly entries = new Map<string, { outcome: Outcome<T>; expiresAt: number }>();
  private readonly inflight = new Map<string, Promise<Outcome<T>>>();

  constructor(private readonly opts: { ttlMs: number; isAnswer: (error: unknown) => boolean; now?: () => number }) {}

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
    const p = fetch().then(
      (value): Outcome<T> => ({ ok: true, value }),
      (error): Outcome<T> => ({ ok: false, error }),
    );
    this.inflight.set(key, p);
    void p.then((o) => {
      this.inflight.delete(key);
      if (o.ok || this.opts.isAnswer(o.error)) this.store(key, o);
    });
    return p;
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
