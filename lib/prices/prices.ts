import "server-only";
import { type Config, getConfig } from "@/lib/config";
import { getCurrency } from "@/lib/currencies";
import type { Currency } from "@/lib/currencies/types";
import { type Engine, getEngine } from "@/lib/engine";
import { SimulatedEngine } from "@/lib/engine/simulated";
import { AppError } from "@/lib/errors";
import { D, type Dec, formatAmount } from "@/lib/money/decimal";

// Live prices: "what is one unit of currency C worth in asset P, and in US dollars", each
// answer with where it came from and when (docs/prices.md).
//
//   ENGINE=providers  the engine's own best quote C -> P for a reference amount, through its
//                     quote path (the providers' quote cache, budgets and cool-downs); USD is
//                     C -> PRICES_USD_ASSET, that stablecoin taken at 1 USD. No other source:
//                     when no provider quotes, there is no price (never the dated snapshot).
//   simulated         the simulated engine's current market rate: the registry's dated
//                     snapshot moved by the caller's sandbox market move (its starting point).
//
// A price is reused per pair for PRICES_CACHE_SECONDS; concurrent callers for a pair wait on
// one request (single flight). A caller that needs a fresh price (a withdrawal quote) says how
// old it may be, and a cached price older than that is asked for again.

/** The "currency" of USD values. */
export const USD = "usd";

export interface Price {
  /** Ticker priced. */
  from: string;
  /** Ticker it is priced in, or USD. */
  to: string;
  /** Units of `to` per unit of `from`, decimal text. */
  rate: string;
  /** Where the price came from, for people ("providers: best quote for 0.5 btc", "simulated engine", ...). */
  source: string;
  /** When the price was true, at the oldest. */
  at: Date;
}

/** A reference amount: this many times the currency's minimum order, within its maximum. */
const REFERENCE_MULTIPLE = 10;
/** Significant digits a simulated price keeps (rounded down), like the simulated engine's rates. */
const SIM_DIGITS = 32;

export function referenceAmount(c: Currency): Dec {
  return D.min(new D(c.minAmount).mul(REFERENCE_MULTIPLE), new D(c.maxAmount));
}

/** Snapshot prices the simulated engine starts from; counted, so a test can show provider mode never reads one. */
let snapshotReads = 0;
export const snapshotReadCount = () => snapshotReads;
function snapshotUsd(c: Currency): Dec {
  snapshotReads++;
  return new D(c.priceUsd);
}

const unavailable = (from: string, to: string, why: string) =>
  new AppError("PRICE_UNAVAILABLE", `No live price for ${from} in ${to === USD ? "USD" : to} right now (${why}); try again later.`, {
    currency: from,
    priceIn: to,
  });

interface Clock {
  now(): number;
}

export class PriceBook {
  private readonly cache = new Map<string, Price>();
  private readonly inflight = new Map<string, Promise<Price>>();

  constructor(
    private readonly engine: Engine,
    private readonly cfg: Config = getConfig(),
    private readonly clock: Clock = Date,
  ) {}

  /**
   * One unit of `from` in `to` (a ticker or USD). Throws AppError PRICE_UNAVAILABLE when there is
   * no price, or none younger than `maxAgeMs`.
   */
  async price(from: string, to: string, opts: { scope?: string; maxAgeMs?: number } = {}): Promise<Price> {
    const now = this.clock.now();
    if (from === to) return { from, to, rate: "1", source: "same asset", at: new Date(now) };
    const scope = opts.scope ?? "prices";
    const key = this.isSimulated() ? `${scope}|${from}|${to}` : `${from}|${to}`;
    const fresh = (p: Price) =>
      now - p.at.getTime() < this.cfg.PRICES_CACHE_SECONDS * 1000 + this.engineCacheMs() &&
      (opts.maxAgeMs === undefined || now - p.at.getTime() <= opts.maxAgeMs);
    const hit = this.cache.get(key);
    if (hit && fresh(hit)) return hit;
    let running = this.inflight.get(key);
    if (!running) {
      running = this.ask(from, to, scope).finally(() => this.inflight.delete(key));
      this.inflight.set(key, running);
    }
    const p = await running;
    if (this.cfg.PRICES_CACHE_SECONDS > 0) this.cache.set(key, p);
    if (opts.maxAgeMs !== undefined && this.clock.now() - p.at.getTime() > opts.maxAgeMs)
      throw unavailable(from, to, `the newest is from ${p.at.toISOString()}`);
    return p;
  }

  /** Like price(), but null instead of PRICE_UNAVAILABLE (the dashboard's figures then show no USD value). */
  async tryPrice(from: string, to: string, opts: { scope?: string; maxAgeMs?: number } = {}): Promise<Price | null> {
    try {
      return await this.price(from, to, opts);
    } catch (e) {
      if (e instanceof AppError && e.code === "PRICE_UNAVAILABLE") return null;
      throw e;
    }
  }

  /** USD prices of several tickers at once (null where there is none). */
  async usdPrices(tickers: string[], opts: { scope?: string } = {}): Promise<Map<string, Price | null>> {
    const unique = [...new Set(tickers)];
    const prices = await Promise.all(unique.map((t) => this.tryPrice(t, USD, opts)));
    return new Map(unique.map((t, i) => [t, prices[i]]));
  }

  engineOf(): Engine {
    return this.engine;
  }

  private isSimulated(): boolean {
    return this.engine instanceof SimulatedEngine;
  }

  /** How old an engine's answer may already be when it reaches us (its own quote cache). */
  private engineCacheMs(): number {
    return this.isSimulated() ? 0 : this.cfg.PROVIDERS_QUOTE_CACHE_SECONDS * 1000;
  }

  private async ask(from: string, to: string, scope: string): Promise<Price> {
    const f = getCurrency(from);
    if (!f) throw unavailable(from, to, `${from} is not in the registry`);
    const asked = this.clock.now();
    if (this.engine instanceof SimulatedEngine) {
      const move = new D(10_000 + this.engine.getRateMove(scope)).div(10_000);
      const fromUsd = snapshotUsd(f).mul(move);
      let rate: Dec;
      if (to === USD) rate = fromUsd;
      else {
        const t = getCurrency(to);
        if (!t) throw unavailable(from, to, `${to} is not in the registry`);
        rate = fromUsd.div(snapshotUsd(t)).toSignificantDigits(SIM_DIGITS, D.ROUND_DOWN);
      }
      return { from, to, rate: formatAmount(rate), source: "simulated engine (snapshot moved by the sandbox)", at: new Date(asked) };
    }
    const target = to === USD ? this.cfg.PRICES_USD_ASSET : to;
    const t = getCurrency(target);
    if (!t) throw unavailable(from, to, `${target} is not in the registry`);
    if (f.ticker === t.ticker) return { from, to, rate: "1", source: `${t.ticker} taken at 1 USD`, at: new Date(asked) };
    const amount = referenceAmount(f);
    let rate: Dec;
    try {
      rate = (await this.engine.quote({ from: f, to: t, fromAmount: amount, markupBps: 0 }, { scope })).rate;
    } catch (e) {
      if (e instanceof AppError) throw unavailable(from, to, e.message);
      throw e;
    }
    const via = to === USD ? ` of ${t.ticker} (1 USD)` : "";
    return {
      from,
      to,
      rate: formatAmount(rate),
      source: `${this.engine.name}: best quote for ${formatAmount(amount)} ${f.ticker}${via}`,
      // The engine may have answered from its quote cache: count the price as old as that may be.
      at: new Date(asked - this.engineCacheMs()),
    };
  }
}

/** The price book of each engine (so of each app: an engine belongs to one). */
const books = new WeakMap<object, PriceBook>();

/** The current app's price book, over its engine. */
export function getPrices(): PriceBook {
  const engine = getEngine();
  let book = books.get(engine);
  if (!book) {
    book = new PriceBook(engine);
    books.set(engine, book);
  }
  return book;
}
