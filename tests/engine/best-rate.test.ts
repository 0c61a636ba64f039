import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyRate, termsForUserAmount } from "@/lib/domain/quote-math";
import { BestRate, type Candidate } from "@/lib/engine/best-rate";
import { amountBand, QuoteCache } from "@/lib/engine/quote-cache";
import { amountPlaces, ceilAmount, D, floorAmount, formatAmount, MAX_SIGNIFICANT_DIGITS } from "@/lib/money/decimal";
import { ProviderError } from "@/lib/providers/http";
import { getMapping } from "@/lib/providers/mapping";
import type { ProviderName } from "@/lib/providers/registry";
import type { ProviderAdapter, ProviderQuote, QuoteInput, SwapReading } from "@/lib/providers/types";
import { cur, engineWith, snapshot } from "./providers/helpers";

// The pieces of best-rate routing on their own: the cache's single flight, ranking with a
// deadline, cool-downs and budgets, and the commission math of docs/providers.md.

/** An adapter whose quote is scripted per test: a rate, a delay, or a failure. Counts its calls. */
class ScriptedAdapter implements ProviderAdapter {
  calls: QuoteInput[] = [];
  rate = new D(1);
  /** When set, a quote answers only once it settles (a provider that is slow for as long as a test wants). */
  held: Promise<void> | null = null;
  fail: ProviderError | null = null;
  commission: ProviderAdapter["commission"] = { kind: "per-request", maxBps: 200 };
  constructor(
    readonly name: ProviderName,
    readonly quotesPerMinute = 1000,
  ) {}
  assetKey(a: Record<string, string>) {
    return JSON.stringify(a);
  }
  /** Offers every currency of its provider's mapping file. */
  async listCurrencies() {
    return [...getMapping(this.name).assets.values()].map((asset) => ({ asset, available: true, hasMemo: false }));
  }
  async quote(q: QuoteInput): Promise<ProviderQuote> {
    this.calls.push(q);
    if (this.held) await this.held;
    if (this.fail) throw this.fail;
    return { toAmount: q.fromAmount.mul(this.rate), minAmount: new D("0.001"), maxAmount: new D(100) };
  }
  async createSwap(): Promise<never> {
    throw new Error("not here");
  }
  /** What readSwap answers, when a test scripts it. */
  reading: SwapReading | null = null;
  async readSwap(): Promise<SwapReading> {
    if (!this.reading) throw new Error("not here");
    return this.reading;
  }
}

const cand = (a: ProviderAdapter): Candidate => ({ adapter: a, from: { x: "btc" }, to: { x: "eth" }, commissionBps: 25 });

describe("quote cache", () => {
  it("one upstream request per key however many callers wait on it; a new one after the TTL", async () => {
    let now = 0;
    let fetches = 0;
    const cache = new QuoteCache<number>({ ttlMs: 1000, isAnswer: () => false, now: () => now });
    const fetch = async () => {
      fetches++;
      await new Promise((r) => setTimeout(r, 20));
      return 42;
    };
    const all = await Promise.all(Array.from({ length: 100 }, () => cache.get("k", fetch)));
    expect(all.every((v) => v === 42)).toBe(true);
    expect(fetches).toBe(1);
    now = 999;
    await cache.get("k", fetch);
    expect(fetches).toBe(1);
    now = 1001;
    await cache.get("k", fetch);
    expect(fetches).toBe(2);
    await cache.get("other", fetch);
    expect(fetches).toBe(3);
  });

  it("answers (amount out of range) are cached, outages are not", async () => {
    const cache = new QuoteCache<number>({ ttlMs: 60_000, isAnswer: (e) => (e as ProviderError).kind === "amount_too_low" });
    let n = 0;
    const low = async () => {
      n++;
      throw new ProviderError("sideshift", "amount_too_low", "low");
    };
    const down = async () => {
      n++;
      throw new ProviderError("sideshift", "unavailable", "down");
    };
    await expect(cache.get("a", low)).rejects.toThrow("low");
    await expect(cache.get("a", low)).rejects.toThrow("low");
    expect(n).toBe(1);
    await expect(cache.get("b", down)).rejects.toThrow("down");
    await expect(cache.get("b", down)).rejects.toThrow("down");
    expect(n).toBe(3);
  });

  it("bands: four per doubling, so 1 and 1.15 share one and 1.2 does not", () => {
    expect(amountBand(new D("1"))).toBe(amountBand(new D("1.15")));
    expect(amountBand(new D("1.2"))).toBe(amountBand(new D("1")) + 1);
    expect(amountBand(new D("0.5"))).toBe(amountBand(new D("1")) - 4);
  });
});

describe("best rate", () => {
  const best = (over: Partial<ConstructorParameters<typeof BestRate>[0]> = {}) =>
    new BestRate({ deadlineMs: 300, cooldownMs: 60_000, cacheTtlMs: 60_000, ...over });

  it("ranks by what the user gets and serves other amounts of the band from the cache, scaled", async () => {
    const a = new ScriptedAdapter("changenow");
    const b = new ScriptedAdapter("sideshift");
    a.rate = new D("20");
    b.rate = new D("20.5");
    const br = best();
    const r1 = await br.rank([cand(a), cand(b)], new D("1"));
    expect(r1.ranked.map((r) => [r.adapter.name, r.quote.toAmount.toFixed()])).toEqual([
      ["sideshift", "20.5"],
      ["changenow", "20"],
    ]);
    const r2 = await br.rank([cand(a), cand(b)], new D("1.1"));
    expect(r2.ranked[0].quote.toAmount.toFixed()).toBe("22.55");
    expect([a.calls.length, b.calls.length]).toEqual([1, 1]);
  });

  it("a provider that fails is skipped and cooled down; one that misses the deadline too, and its late answer fills the cache", async () => {
    const ok = new ScriptedAdapter("changenow");
    const down = new ScriptedAdapter("sideshift");
    const slow = new ScriptedAdapter("fixedfloat");
    down.fail = new ProviderError("sideshift", "unavailable", "HTTP 502");
    // Slow until the test lets it answer: the ranking can only come back through its deadline.
    let answer!: () => void;
    slow.held = new Promise((r) => {
      answer = r;
    });
    slow.rate = new D(5);
    const br = best();
    const r = await br.rank([cand(ok), cand(down), cand(slow)], new D("1"));
    answer();
    expect(r.ranked.map((x) => x.adapter.name)).toEqual(["changenow"]);
    expect(r.errors.map((e) => e.provider).sort()).toEqual(["fixedfloat", "sideshift"]);
    expect([br.isCooling("sideshift"), br.isCooling("fixedfloat"), br.isCooling("changenow")]).toEqual([true, true, false]);
    await new Promise((x) => setTimeout(x, 400));
    const again = await br.rank([cand(ok), cand(down), cand(slow)], new D("1"));
    expect(again.ranked.map((x) => x.adapter.name)).toEqual(["changenow"]);
    expect([down.calls.length, slow.calls.length]).toEqual([1, 1]);
  });

  it("answers such as an amount below the minimum do not cool a provider down", async () => {
    const a = new ScriptedAdapter("changenow");
    a.fail = new ProviderError("changenow", "amount_too_low", "low", { min: new D(1) });
    const br = best();
    const r = await br.rank([cand(a)], new D("0.5"));
    expect(r.errors[0].kind).toBe("amount_too_low");
    expect(br.isCooling("changenow")).toBe(false);
  });

  it("a spent per-minute budget skips the provider without calling it or cooling it down", async () => {
    const a = new ScriptedAdapter("sideshift", 2);
    const br = best();
    for (const amt of ["1", "2", "4", "8"]) await br.rank([cand(a)], new D(amt));
    expect(a.calls.length).toBe(2);
    expect(br.isCooling("sideshift")).toBe(false);
  });
});

describe("commission math (docs/providers.md section 1)", () => {
  it("the worked example: SideShift quotes 49.3125 XMR at 150 bps markup", () => {
    const t = termsForUserAmount(new D("49.3125"), new D("1"), 8, 150);
    expect([t.toAmount.toFixed(), t.rawToAmount.toFixed(), t.profit.toFixed()]).toEqual(["49.3125", "50.06345178", "0.75095178"]);
  });

  it("for any amounts: the user gets the provider's amount as an amount, the markup math reproduces it, and profit <= toAmount x m / (1 - m)", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 17n }),
        fc.bigInt({ min: 1n, max: 10n ** 14n }),
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: 2, max: 18 }),
        (qUnits, fromUnits, bps, p) => {
          const q = new D(qUnits.toString()).div(new D(10).pow(p));
          const from = new D(fromUnits.toString()).div(1e8);
          const t = termsForUserAmount(q, from, p, bps);
          // Amounts (docs/api.md, Amounts): 15 significant digits at most, so no answer can throw in num().
          for (const x of [t.toAmount, t.rawToAmount, t.profit]) expect(x.sd()).toBeLessThanOrEqual(MAX_SIGNIFICANT_DIGITS);
          // Never more than the provider commits to; exactly it when it fits in 14 digits;
          // otherwise less by under one unit of rawToAmount's last place.
          const unit = new D(10).pow(-amountPlaces(t.rawToAmount, p));
          expect(t.toAmount.lte(q)).toBe(true);
          if (q.sd() <= 14) expect(t.toAmount.toFixed()).toBe(q.toFixed());
          expect(q.minus(t.toAmount).lt(unit)).toBe(true);
          const again = applyRate(from, t.rate, p, bps);
          expect([again.rawToAmount.eq(t.rawToAmount), again.toAmount.eq(t.toAmount)]).toEqual([true, true]);
          // The profit is the markup on what the user is shown, never the digits cut off it.
          const bound = t.toAmount
            .mul(bps)
            .div(10_000 - bps)
            .plus(unit);
          expect(t.profit.lte(bound)).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("routing by commission", () => {
  it("a per-account provider gets only orders its stated rate covers; a per-request one only up to its maximum", async () => {
    const acct = new ScriptedAdapter("changenow");
    acct.commission = { kind: "per-account", accountBps: 100 };
    const req = new ScriptedAdapter("sideshift");
    acct.rate = new D(30);
    req.rate = new D(20);
    const e = engineWith([acct, req], { PLATFORM_FEE_BPS: "25", FIXEDFLOAT_ENABLED: "false" });
    const q = (markupBps: number) => e.quote({ from: cur("btc"), to: cur("eth"), fromAmount: new D("1"), markupBps }, { scope: "t" });
    // 25 + 75 = 100 <= 100: the account covers it, and its better rate wins.
    await q(75);
    expect([acct.calls.length, req.calls.length]).toEqual([1, 1]);
    expect(req.calls[0].commissionBps).toBe(100);
    // 25 + 100 = 125 > 100: only the per-request provider is asked, with commission 125.
    await q(100);
    expect([acct.calls.length, req.calls.length]).toEqual([1, 2]);
    expect(req.calls[1].commissionBps).toBe(125);
    // 25 + 200 = 225 > 200 (SideShift's maximum) and > 100: nobody can fill it.
    await expect(q(200)).rejects.toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    expect([acct.calls.length, req.calls.length]).toEqual([1, 2]);
  });
});

describe("provider amounts become amounts (docs/api.md, Amounts)", () => {
  const digits = "0.123456789012345678901";
  const engine = (a: ScriptedAdapter) => engineWith([a], { CHANGENOW_ENABLED: "false", FIXEDFLOAT_ENABLED: "false" });

  it("limits a provider states with more digits than an amount has are rounded inward", async () => {
    const a = new ScriptedAdapter("sideshift");
    const btc = cur("btc");
    a.fail = new ProviderError("sideshift", "amount_too_low", "below", {
      min: new D("0.00123456789012345678"),
      max: new D("12345.123456789123456"),
    });
    const e = await engine(a)
      .quote({ from: btc, to: cur("eth"), fromAmount: new D("0.001"), markupBps: 0 }, { scope: "t" })
      .catch((x) => x);
    expect([e.code, e.details.minAmount.toString(), e.details.maxAmount.toString()]).toEqual([
      "AMOUNT_TOO_LOW",
      formatAmount(ceilAmount(new D("0.00123456789012345678"), btc.precision)),
      formatAmount(floorAmount(new D("12345.123456789123456"), btc.precision)),
    ]);
    expect(e.details.minAmount.toString()).toBe("0.00123457");
  });

  it("a deposit and a refund the provider reports with more digits are rounded down to amounts of the source currency", async () => {
    const a = new ScriptedAdapter("sideshift");
    const e = engine(a);
    const up = { provider: "sideshift", id: "s1", data: null, status: "waiting", reason: null };
    const reading = { payinHash: "0xin", payoutHash: null, refundHash: null, refundAmount: null };
    a.reading = {
      ...reading,
      status: "processing",
      mapped: { state: "exchanging", reason: null, final: false },
      amountReceived: new D(digits),
    };
    const step = await e.readSwap(snapshot({ state: "waiting", fromCurrency: "btc", upstream: up }), { scope: "w" });
    expect(step).toMatchObject({ to: "confirming", amountReceived: "0.12345678" });
    a.reading = {
      ...reading,
      status: "refunded",
      mapped: { state: "failed", reason: "refunded", final: true },
      amountReceived: new D(digits),
      refundAmount: new D("12345678.123456789"),
      refundHash: "0xback",
    };
    const failed = await e.readSwap(snapshot({ state: "confirming", fromCurrency: "btc", upstream: up }), { scope: "w" });
    expect(failed).toMatchObject({ to: "failed", reason: "refunded", refund: { amount: "12345678.1234567", hash: "0xback" } });
  });
});
