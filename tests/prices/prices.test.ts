import { describe, expect, it } from "vitest";
import { type Config, getConfig } from "@/lib/config";
import { getCurrency } from "@/lib/currencies";
import { SimulatedEngine } from "@/lib/engine/simulated";
import type { Engine, EngineContext, PairTerms, QuoteRequest } from "@/lib/engine/types";
import { AppError } from "@/lib/errors";
import { D } from "@/lib/money/decimal";
import { getPrices, PriceBook, referenceAmount, snapshotReadCount, USD } from "@/lib/prices/prices";
import { withSettings } from "../support/settings";

// The price book over a stand-in engine (what it asks, how often, and what it answers) and
// over the simulated engine (the snapshot moved by the caller's sandbox market move).

const eth = getCurrency("eth")!;
const btc = getCurrency("btc")!;

/** An engine that quotes `rates[from>to]` and records every request; `gate` holds its answers until released. */
function stubEngine(rates: Record<string, string>) {
  const asked: QuoteRequest[] = [];
  const scopes: string[] = [];
  let release: (() => void) | null = null;
  let gate: Promise<void> | null = null;
  const engine: Engine & { asked: QuoteRequest[]; scopes: string[]; hold(): void; letGo(): void; down: boolean } = {
    name: "providers",
    asked,
    scopes,
    down: false,
    hold() {
      gate = new Promise((r) => {
        release = r;
      });
    },
    letGo() {
      release?.();
      gate = null;
    },
    async quote(req: QuoteRequest, ctx: EngineContext): Promise<PairTerms> {
      asked.push(req);
      scopes.push(ctx.scope);
      if (gate) await gate;
      if (engine.down) throw new AppError("ENGINE_UNAVAILABLE", "No exchange provider answered in time; try again later.");
      const rate = rates[`${req.from.ticker}>${req.to.ticker}`];
      if (!rate) throw new AppError("CURRENCY_UNAVAILABLE", "not offered");
      return { rate: new D(rate), platformFeeBps: 25, minAmount: new D(0), maxAmount: new D(1e9) };
    },
    openSwap: () => Promise.reject(new Error("not here")),
    readSwap: () => Promise.reject(new Error("not here")),
    nextCheckDelayMs: () => 0,
  };
  return engine;
}

function clock(start = Date.UTC(2026, 10, 25, 6)) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

const cfg = (over: Partial<Config> = {}): Config =>
  withSettings({}, () => ({
    ...getConfig(),
    PRICES_CACHE_SECONDS: 30,
    PRICES_MAX_AGE_SECONDS: 120,
    PRICES_USD_ASSET: "usdc",
    PROVIDERS_QUOTE_CACHE_SECONDS: 10,
    ...over,
  }));

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return "OK";
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
};

describe("live prices from an upstream engine", () => {
  it("asks the engine's best quote for a reference amount, and says where and when the price is from", async () => {
    const engine = stubEngine({ "btc>eth": "20.5" });
    const c = clock();
    const book = new PriceBook(engine, cfg(), c);
    const p = await book.price("btc", "eth", { scope: "reseller:r1" });
    expect(p.rate).toBe("20.5");
    expect(engine.asked).toHaveLength(1);
    expect(engine.asked[0]).toMatchObject({ from: btc, to: eth, markupBps: 0 });
    // Ten times the minimum, within the maximum.
    expect(engine.asked[0].fromAmount!.toFixed()).toBe(new D(btc.minAmount).mul(10).toFixed());
    expect(referenceAmount({ ...btc, minAmount: "1", maxAmount: "5" }).toFixed()).toBe("5");
    expect(p.source).toBe(`providers: best quote for ${new D(btc.minAmount).mul(10).toFixed()} btc`);
    // The engine may have answered from its own quote cache: the price counts as that old.
    expect(p.at.getTime()).toBe(c.now() - 10_000);
  });

  it("USD is the quote in PRICES_USD_ASSET taken at 1 USD; the stablecoin itself and a same-asset price need no quote", async () => {
    const engine = stubEngine({ "eth>usdc": "3000.5" });
    const book = new PriceBook(engine, cfg(), clock());
    const p = await book.price("eth", USD);
    expect([p.rate, p.to, p.source]).toEqual([
      "3000.5",
      USD,
      `providers: best quote for ${new D(eth.minAmount).mul(10).toFixed()} eth of usdc (1 USD)`,
    ]);
    expect(engine.asked.map((r) => `${r.from.ticker}>${r.to.ticker}`)).toEqual(["eth>usdc"]);
    expect(await book.price("usdc", USD)).toMatchObject({ rate: "1", source: "usdc taken at 1 USD" });
    expect(await book.price("eth", "eth")).toMatchObject({ rate: "1", source: "same asset" });
    expect(engine.asked).toHaveLength(1);
  });

  it("reuses a price for PRICES_CACHE_SECONDS per pair, then asks again", async () => {
    const engine = stubEngine({ "btc>eth": "20", "eth>btc": "0.05" });
    const c = clock();
    const book = new PriceBook(engine, cfg({ PROVIDERS_QUOTE_CACHE_SECONDS: 0 }), c);
    await book.price("btc", "eth");
    c.advance(29_999);
    await book.price("btc", "eth");
    expect(engine.asked).toHaveLength(1);
    await book.price("eth", "btc"); // another pair
    expect(engine.asked).toHaveLength(2);
    c.advance(1);
    expect((await book.price("btc", "eth")).at.getTime()).toBe(c.now());
    expect(engine.asked).toHaveLength(3);
  });

  it("PRICES_CACHE_SECONDS=0 asks every time", async () => {
    const engine = stubEngine({ "btc>eth": "20" });
    const book = new PriceBook(engine, cfg({ PRICES_CACHE_SECONDS: 0 }), clock());
    await book.price("btc", "eth");
    await book.price("btc", "eth");
    expect(engine.asked).toHaveLength(2);
  });

  it("concurrent callers for one pair share one request (single flight)", async () => {
    const engine = stubEngine({ "btc>eth": "20" });
    const book = new PriceBook(engine, cfg(), clock());
    engine.hold();
    const all = Promise.all(Array.from({ length: 10 }, () => book.price("btc", "eth")));
    // Wait until the one request is in flight, then let it answer.
    while (engine.asked.length === 0) await new Promise((r) => setImmediate(r));
    engine.letGo();
    const prices = await all;
    expect(engine.asked).toHaveLength(1);
    expect(new Set(prices.map((p) => p.rate))).toEqual(new Set(["20"]));
  });

  it("a caller's maximum age: an older cached price is asked again, and a price that is still too old is refused", async () => {
    const engine = stubEngine({ "btc>eth": "20" });
    const c = clock();
    const book = new PriceBook(engine, cfg({ PROVIDERS_QUOTE_CACHE_SECONDS: 0, PRICES_CACHE_SECONDS: 300 }), c);
    await book.price("btc", "eth");
    c.advance(60_001);
    await book.price("btc", "eth"); // the display takes it from the cache
    expect(engine.asked).toHaveLength(1);
    await book.price("btc", "eth", { maxAgeMs: 60_000 }); // a withdrawal does not
    expect(engine.asked).toHaveLength(2);
    // An engine whose own cache may be older than the caller accepts: never fresh enough.
    const stale = new PriceBook(engine, cfg({ PROVIDERS_QUOTE_CACHE_SECONDS: 90 }), c);
    expect(await code(stale.price("btc", "eth", { maxAgeMs: 60_000 }))).toBe("PRICE_UNAVAILABLE");
    expect(await stale.tryPrice("btc", "eth", { maxAgeMs: 60_000 })).toBeNull();
  });

  it("no quote: PRICE_UNAVAILABLE naming the pair, not cached (the next caller asks again)", async () => {
    const engine = stubEngine({ "btc>eth": "20" });
    const book = new PriceBook(engine, cfg(), clock());
    engine.down = true;
    const err = await book.price("btc", "eth").catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: "PRICE_UNAVAILABLE", details: { currency: "btc", priceIn: "eth" } });
    expect(err.message).toMatch(/No live price for btc in eth/);
    expect(await book.tryPrice("btc", USD)).toBeNull();
    engine.down = false;
    expect((await book.price("btc", "eth")).rate).toBe("20");
    expect(await code(book.price("nosuchcoin", "eth"))).toBe("PRICE_UNAVAILABLE");
    expect(await code(book.price("btc", "nosuchcoin"))).toBe("PRICE_UNAVAILABLE");
  });

  it("a programming error in the engine is not dressed up as a missing price", async () => {
    const engine = stubEngine({});
    engine.quote = () => Promise.reject(new TypeError("boom"));
    const book = new PriceBook(engine, cfg(), clock());
    await expect(book.price("btc", "eth")).rejects.toThrow("boom");
    await expect(book.tryPrice("btc", "eth")).rejects.toThrow("boom");
  });

  it("asks in the caller's scope (default: prices), and says why a price is missing", async () => {
    const engine = stubEngine({ "btc>eth": "20" });
    const book = new PriceBook(engine, cfg({ PRICES_CACHE_SECONDS: 0 }), clock());
    await book.price("btc", "eth", { scope: "reseller:r9" });
    await book.price("btc", "eth");
    expect(engine.scopes).toEqual(["reseller:r9", "prices"]);
    expect((await book.price("nosuchcoin", "eth").catch((e) => e)).message).toMatch(/nosuchcoin is not in the registry/);
    expect((await book.price("btc", "nosuchcoin").catch((e) => e)).message).toMatch(/nosuchcoin is not in the registry/);
    const sim = new PriceBook(new SimulatedEngine(), cfg(), clock());
    expect((await sim.price("btc", "nosuchcoin").catch((e) => e)).message).toMatch(/nosuchcoin is not in the registry/);
    expect((await sim.price("nosuchcoin", USD).catch((e) => e)).message).toMatch(/nosuchcoin is not in the registry/);
  });

  it("freshness at the edges: the cache counts the engine's own cache; a price exactly the maximum age is fresh", async () => {
    const engine = stubEngine({ "btc>eth": "20" });
    const c = clock();
    // Cached for 30 s after the engine's answer, which may itself be 10 s old: fresh until 40 s after its time.
    const book = new PriceBook(engine, cfg({ PRICES_CACHE_SECONDS: 30, PROVIDERS_QUOTE_CACHE_SECONDS: 10 }), c);
    await book.price("btc", "eth");
    c.advance(25_000);
    await book.price("btc", "eth");
    expect(engine.asked).toHaveLength(1);
    // The maximum age: exactly that old is fresh, a millisecond more is asked again.
    const strict = new PriceBook(engine, cfg({ PRICES_CACHE_SECONDS: 300, PROVIDERS_QUOTE_CACHE_SECONDS: 0 }), c);
    await strict.price("btc", "eth");
    c.advance(60_000);
    await strict.price("btc", "eth", { maxAgeMs: 60_000 });
    expect(engine.asked).toHaveLength(2);
    c.advance(1);
    await strict.price("btc", "eth", { maxAgeMs: 60_000 });
    expect(engine.asked).toHaveLength(3);
    // An engine answer as old as the maximum age is still fresh enough; older is refused, saying how old.
    expect(
      (await new PriceBook(engine, cfg({ PROVIDERS_QUOTE_CACHE_SECONDS: 60 }), c).price("btc", "eth", { maxAgeMs: 60_000 })).rate,
    ).toBe("20");
    const err = await new PriceBook(engine, cfg({ PROVIDERS_QUOTE_CACHE_SECONDS: 61 }), c)
      .price("btc", "eth", { maxAgeMs: 60_000 })
      .catch((e) => e);
    expect(err.message).toMatch(/the newest is from \d{4}-/);
  });

  it("one price book per engine", () => {
    expect(getPrices()).toBe(getPrices());
    expect(getPrices().engineOf()).toBeInstanceOf(SimulatedEngine);
  });

  it("usdPrices: one price per ticker, null where there is none", async () => {
    const engine = stubEngine({ "btc>usdc": "60000" });
    const book = new PriceBook(engine, cfg(), clock());
    const m = await book.usdPrices(["btc", "xmr", "btc"]);
    expect([...m.keys()]).toEqual(["btc", "xmr"]);
    expect(m.get("btc")?.rate).toBe("60000");
    expect(m.get("xmr")).toBeNull();
  });
});

describe("live prices from the simulated engine", () => {
  it("are its current rates: the snapshot (its starting point) moved by the caller's sandbox market move", async () => {
    const engine = new SimulatedEngine();
    const c = clock();
    const book = new PriceBook(engine, cfg({ PRICES_CACHE_SECONDS: 0 }), c);
    const before = snapshotReadCount();
    const usd = await book.price("eth", USD, { scope: "reseller:a" });
    expect(snapshotReadCount()).toBeGreaterThan(before);
    expect(usd).toMatchObject({ rate: new D(eth.priceUsd).toFixed(), source: "simulated engine (snapshot moved by the sandbox)" });
    expect(usd.at.getTime()).toBe(c.now()); // no cache in between
    expect((await book.price("btc", "eth", { scope: "reseller:a" })).rate).toBe(
      new D(btc.priceUsd).div(eth.priceUsd).toSignificantDigits(32, D.ROUND_DOWN).toFixed(),
    );
    engine.setRateMove("reseller:a", 1000);
    expect((await book.price("eth", USD, { scope: "reseller:a" })).rate).toBe(new D(eth.priceUsd).mul("1.1").toFixed());
    expect((await book.price("btc", "eth", { scope: "reseller:a" })).rate).toBe(
      new D(btc.priceUsd).mul("1.1").div(eth.priceUsd).toSignificantDigits(32, D.ROUND_DOWN).toFixed(),
    );
    // Another caller's prices do not move.
    expect((await book.price("eth", USD, { scope: "reseller:b" })).rate).toBe(new D(eth.priceUsd).toFixed());
  });

  it("caches per caller scope (moves are per caller)", async () => {
    const engine = new SimulatedEngine();
    const book = new PriceBook(engine, cfg({ PRICES_CACHE_SECONDS: 30 }), clock());
    expect((await book.price("eth", USD, { scope: "s1" })).rate).toBe(new D(eth.priceUsd).toFixed());
    engine.setRateMove("s2", -500);
    expect((await book.price("eth", USD, { scope: "s2" })).rate).toBe(new D(eth.priceUsd).mul("0.95").toFixed());
  });
});
