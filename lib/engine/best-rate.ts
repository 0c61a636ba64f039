import "server-only";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";
import { D, type Dec } from "@/lib/money/decimal";
import { isProviderError, ProviderError } from "@/lib/providers/http";
import type { ProviderAdapter, ProviderAsset, ProviderQuote } from "@/lib/providers/types";
import { amountBand, type OutcomeCodec, QuoteCache, scaleQuote } from "./quote-cache";
import type { SharedStore } from "./shared-store";

// Best rate across providers (docs/providers.md section 2): every eligible provider is asked
// in parallel (through the quote cache), answers that arrive before the deadline are ranked
// by what the user gets, and a provider that fails or misses the deadline is cooled down.

export interface Candidate {
  adapter: ProviderAdapter;
  from: ProviderAsset;
  to: ProviderAsset;
  /** Platform fee plus markup sent to per-request providers. */
  commissionBps: number;
}

export interface RankedQuote extends Candidate {
  /** The provider's quote, scaled to the amount asked. */
  quote: ProviderQuote;
}

export interface Ranking {
  ranked: RankedQuote[];
  /** Why the others did not quote. */
  errors: ProviderError[];
}

/** A quote made for one amount of a band, kept with that amount so others in the band can be scaled. */
interface BandQuote {
  amount: Dec;
  quote: ProviderQuote;
}

/** Band quotes and provider errors as JSON for the shared store (decimals as strings, errors by kind). */
const BAND_CODEC: OutcomeCodec<BandQuote> = {
  encode(o) {
    if (o.ok) {
      const q = o.value.quote;
      return JSON.stringify({
        amount: o.value.amount.toFixed(),
        toAmount: q.toAmount.toFixed(),
        min: q.minAmount?.toFixed() ?? null,
        max: q.maxAmount?.toFixed() ?? null,
        quoteId: q.quoteId ?? null,
        expiresAt: q.expiresAt ? q.expiresAt.toISOString() : null,
      });
    }
    const e = o.error;
    if (e instanceof BudgetSpent) return JSON.stringify({ budget: true });
    if (isProviderError(e))
      return JSON.stringify({
        error: {
          provider: e.provider,
          kind: e.kind,
          message: e.message.replace(`${e.provider}: `, ""),
          min: e.minAmount?.toFixed() ?? null,
          max: e.maxAmount?.toFixed() ?? null,
        },
      });
    return JSON.stringify({ failed: String(e) });
  },
  decode(s) {
    const j = JSON.parse(s);
    const dec = (x: string | null) => (x === null ? null : new D(x));
    if (j.budget) return { ok: false, error: new BudgetSpent() };
    if (j.error)
      return {
        ok: false,
        error: new ProviderError(j.error.provider, j.error.kind, j.error.message, { min: dec(j.error.min), max: dec(j.error.max) }),
      };
    if (j.failed !== undefined) return { ok: false, error: new Error(j.failed) };
    return {
      ok: true,
      value: {
        amount: new D(j.amount),
        quote: {
          toAmount: new D(j.toAmount),
          minAmount: dec(j.min),
          maxAmount: dec(j.max),
          quoteId: j.quoteId,
          expiresAt: j.expiresAt ? new Date(j.expiresAt) : null,
        },
      },
    };
  },
};

export class BestRate {
  private readonly cache: QuoteCache<BandQuote>;
  private readonly cooling = new Map<string, number>();
  private readonly budgets = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly opts: {
      deadlineMs: number;
      cooldownMs: number;
      cacheTtlMs: number;
      onCooldown?: (e: ProviderError) => void;
      /** REDIS_URL: the cache, its single flight and the budgets are shared by the instances. */
      shared?: { store: SharedStore; lockMs: number } | null;
    },
  ) {
    this.cache = new QuoteCache<BandQuote>({
      ttlMs: opts.cacheTtlMs,
      isAnswer: (e) => isProviderError(e) && !e.isOutage,
      shared: opts.shared ? { store: opts.shared.store, codec: BAND_CODEC, lockMs: opts.shared.lockMs } : null,
    });
  }

  isCooling(name: string): boolean {
    return (this.cooling.get(name) ?? 0) > Date.now();
  }

  coolDown(e: ProviderError) {
    if (this.opts.cooldownMs > 0) this.cooling.set(e.provider, Date.now() + this.opts.cooldownMs);
    this.opts.onCooldown?.(e);
  }

  /** Takes one quote from the provider's per-minute budget; false when it is spent. */
  async takeBudget(adapter: ProviderAdapter): Promise<boolean> {
    let limiter = this.budgets.get(adapter.name);
    if (!limiter) {
      const local = new RateLimiterMemory({ points: adapter.quotesPerMinute, duration: 60 });
      const sh = this.opts.shared;
      // Shared: one budget for all instances (Redis away: each counts on its own meanwhile).
      limiter = sh
        ? new RateLimiterRedis({
            storeClient: sh.store.redis,
            keyPrefix: `${sh.store.prefix}b`,
            points: adapter.quotesPerMinute,
            duration: 60,
            insuranceLimiter: local,
          })
        : local;
      this.budgets.set(adapter.name, limiter);
    }
    try {
      await limiter.consume(adapter.name, 1);
      return true;
    } catch {
      return false;
    }
  }

  /** One provider's quote for `amount`, from the cache when its band was asked recently. */
  private async quoteOne(c: Candidate, amount: Dec, userIp: string | undefined): Promise<ProviderQuote | null> {
    const base = [c.adapter.name, c.adapter.assetKey(c.from), c.adapter.assetKey(c.to), amountBand(amount)];
    const commission = c.adapter.commission.kind === "per-request" ? c.commissionBps : "account";
    const key = [...base, commission].join("|");
    const ask = async (): Promise<BandQuote> => {
      if (!(await this.takeBudget(c.adapter))) throw new BudgetSpent();
      const quote = await c.adapter.quote({
        from: c.from,
        to: c.to,
        fromAmount: amount,
        commissionBps: c.commissionBps,
        userIp,
        firm: false,
      });
      return { amount, quote };
    };
    let band: BandQuote;
    try {
      band = await this.cache.get(key, ask);
    } catch (e) {
      // A band that straddles a limit: the cached "too low" was for a smaller amount than this one.
      const inRange =
        isProviderError(e) &&
        ((e.kind === "amount_too_low" && e.minAmount && amount.gte(e.minAmount)) ||
          (e.kind === "amount_too_high" && e.maxAmount && amount.lte(e.maxAmount)));
      if (!inRange) throw e;
      band = await this.cache.get(`${key}|${amount.toFixed()}`, ask);
    }
    const { quote } = band;
    if (quote.minAmount && amount.lt(quote.minAmount))
      throw new ProviderError(c.adapter.name, "amount_too_low", "below the pair's minimum", { min: quote.minAmount, max: quote.maxAmount });
    if (quote.maxAmount && amount.gt(quote.maxAmount))
      throw new ProviderError(c.adapter.name, "amount_too_high", "above the pair's maximum", {
        min: quote.minAmount,
        max: quote.maxAmount,
      });
    return { ...quote, toAmount: scaleQuote(quote.toAmount, band.amount, amount) };
  }

  /** Asks every candidate not cooling down, waits at most the deadline, and ranks what came back, best first. */
  async rank(candidates: Candidate[], amount: Dec, userIp?: string): Promise<Ranking> {
    const live = candidates.filter((c) => !this.isCooling(c.adapter.name));
    const ranked: RankedQuote[] = [];
    const errors: ProviderError[] = [];
    const settled = new Set<Candidate>();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.opts.deadlineMs);
    });
    const asks = live.map(async (c) => {
      try {
        const quote = await this.quoteOne(c, amount, userIp);
        if (quote) ranked.push({ ...c, quote });
      } catch (e) {
        if (e instanceof BudgetSpent) return;
        const err = isProviderError(e) ? e : new ProviderError(c.adapter.name, "unavailable", String(e));
        if (err.isOutage) this.coolDown(err);
        errors.push(err);
      } finally {
        settled.add(c);
      }
    });
    await Promise.race([Promise.all(asks), deadline]);
    clearTimeout(timer);
    for (const c of live)
      if (!settled.has(c)) {
        // Missed the deadline: skipped now and cooled down; its request goes on and fills the cache.
        const err = new ProviderError(c.adapter.name, "unavailable", `no quote within ${this.opts.deadlineMs} ms`);
        this.coolDown(err);
        errors.push(err);
      }
    ranked.sort((a, b) => b.quote.toAmount.comparedTo(a.quote.toAmount));
    return { ranked: [...ranked], errors: [...errors] };
  }
}

/** The provider's client-side budget for the minute is spent: skip it, it is not failing. */
class BudgetSpent extends Error {}
