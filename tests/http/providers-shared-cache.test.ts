import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newIp } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type Fakes, startFakes } from "../support/fake-providers";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Issue 31, shared caches and budgets: two instances of the built server with one Redis send
// one upstream quote per provider, pair and amount band per cache period, however the
// estimates are spread over them (counted by the fake providers), and share each provider's
// quote budget. Each run's fakes listen on their own ports, and the shared keys are scoped by
// the providers' endpoints, so runs sharing the Redis never read each other's quotes.

const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
let fakes: Fakes;
let db: TestDatabase;
const servers: RunningApp[] = [];

beforeAll(async () => {
  fakes = await startFakes();
  fakes.sideshift.quotesPerMinute = 10_000;
  fakes.setPair("btc", "eth", { changenow: "20", sideshift: "20.6", fixedfloat: "20.1" }, { min: "0.001", max: "1000" });
  fakes.setPair("eth", "btc", { changenow: "0.049", sideshift: "0.0485", fixedfloat: "0.048" }, { min: "0.01", max: "1000" });
  db = await migratedDatabase(inject("dbKind"));
  const env = {
    ...fakes.env(),
    REDIS_URL,
    // Longer than the test: one cache period covers it.
    PROVIDERS_QUOTE_CACHE_SECONDS: "3600",
    // Live prices must be able to come from quotes this old (lib/config.ts refuses the start otherwise).
    PRICES_MAX_AGE_SECONDS: "7200",
    SIDESHIFT_QUOTES_PER_MINUTE: "1000",
    FIXEDFLOAT_QUOTES_PER_MINUTE: "1000",
    CHANGENOW_QUOTES_PER_MINUTE: "1000",
  };
  // One after the other: both migrate the same database.
  servers.push(await startApp({ databaseUrl: db.url, env }));
  servers.push(await startApp({ databaseUrl: db.url, env }));
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  await fakes.stop();
  await db.drop();
});

const estimate = async (server: RunningApp, from: string, to: string, amount: string) => {
  const r = await fetch(`${server.baseUrl}/api/v1/estimate?from=${from}&to=${to}&amount=${amount}`, {
    headers: { "x-forwarded-for": newIp() },
  });
  return { status: r.status, body: (await r.json()) as any };
};

/** Upstream quote requests each fake has received for a pair (its own asset ids). */
function quoteCounts() {
  return {
    changenow: fakes.changenow.requestsTo("/v2/exchange/estimated-amount").length,
    sideshift: fakes.sideshift.requestsTo("/api/v2/quotes").length,
    fixedfloat: fakes.fixedfloat.requestsTo("/api/v2/price").length,
  };
}

describe("two instances with Redis", () => {
  it("send one upstream quote per provider, pair and band per cache period, however the estimates are spread", async () => {
    const before = quoteCounts();
    // 0.1 to 0.104 BTC: one band (four per doubling). Twenty estimates at once, alternating instances.
    const amounts = ["0.1", "0.101", "0.102", "0.103", "0.104"];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => estimate(servers[i % 2], "btc", "eth", amounts[i % amounts.length])),
    );
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const after = quoteCounts();
    expect({
      changenow: after.changenow - before.changenow,
      sideshift: after.sideshift - before.sideshift,
      fixedfloat: after.fixedfloat - before.fixedfloat,
    }).toEqual({ changenow: 1, sideshift: 1, fixedfloat: 1 });
    // Both instances answered from the one quote: the same best amount for the same request.
    const a = await estimate(servers[0], "btc", "eth", "0.1");
    const b = await estimate(servers[1], "btc", "eth", "0.1");
    expect(a.body.toAmount).toBe(b.body.toAmount);

    // Another pair, and another band of the first: one more quote each.
    const ffBefore = fakes.fixedfloat.requestsTo("/api/v2/price").length;
    const more = await Promise.all([
      estimate(servers[0], "eth", "btc", "1"),
      estimate(servers[1], "eth", "btc", "1"),
      estimate(servers[1], "btc", "eth", "0.5"),
      estimate(servers[0], "btc", "eth", "0.5"),
    ]);
    for (const r of more) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const last = quoteCounts();
    const asked = fakes.fixedfloat
      .requestsTo("/api/v2/price")
      .slice(ffBefore)
      .map((r) => `${r.body.fromCcy}>${r.body.toCcy} ${r.body.amount}`);
    expect(
      {
        changenow: last.changenow - after.changenow,
        sideshift: last.sideshift - after.sideshift,
        fixedfloat: last.fixedfloat - after.fixedfloat,
      },
      asked.join("; "),
    ).toEqual({ changenow: 2, sideshift: 2, fixedfloat: 2 });
  });
});

describe("two instances with Redis and a budget of 3 SideShift quotes a minute", () => {
  // Their own fakes (other endpoints: their own keys in Redis, a budget nobody else spent).
  let own: Fakes;
  const pair: RunningApp[] = [];

  beforeAll(async () => {
    own = await startFakes();
    own.sideshift.quotesPerMinute = 10_000;
    own.setPair("btc", "eth", { changenow: "20", sideshift: "20.6", fixedfloat: "20.1" }, { min: "0.001", max: "1000" });
    const env = {
      ...own.env(),
      REDIS_URL,
      SIDESHIFT_QUOTES_PER_MINUTE: "3",
      PROVIDERS_QUOTE_CACHE_SECONDS: "3600",
      PRICES_MAX_AGE_SECONDS: "7200",
    };
    pair.push(await startApp({ databaseUrl: db.url, env }));
    pair.push(await startApp({ databaseUrl: db.url, env }));
  });

  afterAll(async () => {
    for (const s of pair) await s.stop();
    await own.stop();
  });

  it("share it: ten bands over both instances send SideShift at most 3 quotes a minute in all", async () => {
    // Ten different bands, alternating instances (each alone would allow itself 3: 6 in all).
    const amounts = Array.from({ length: 10 }, (_, i) => (0.002 * 2 ** i).toFixed(6));
    const started = Date.now();
    for (const [i, amount] of amounts.entries()) {
      const r = await estimate(pair[i % 2], "btc", "eth", amount);
      expect(r.status, JSON.stringify(r.body)).toBe(200); // the other providers still quote
    }
    const sent = own.sideshift.requestsTo("/api/v2/quotes").length;
    expect(sent).toBeGreaterThan(0);
    // 3 per budget minute (a run slower than a minute, on a loaded machine, spans more of them).
    const minutes = Math.ceil((Date.now() - started + 1) / 60_000);
    expect(sent).toBeLessThanOrEqual(3 * minutes);
  });
});
