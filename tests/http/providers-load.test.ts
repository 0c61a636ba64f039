import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getCurrency } from "@/lib/currencies";
import { amountBand } from "@/lib/engine/quote-cache";
import { D, type Dec } from "@/lib/money/decimal";
import { newIp } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type Fakes, startFakes } from "../support/fake-providers";
import type { RecordedRequest } from "../support/fake-providers/fake-server";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Public estimate traffic cannot exhaust a provider: 1,000 keyless estimates over 50 pairs
// (each pair asked for amounts in one or two bands, in a shuffled order, 25 at a time) make at
// most one upstream quote per provider, pair and amount band within one cache period, and
// SideShift's 20 quotes a minute are never exceeded (its fake answers 429 beyond, and counts).
// A test of counts, not of timing: the cache period is longer than the run.

const TICKERS = ["btc", "eth", "ltc", "bch", "doge", "xrp", "trx", "sol", "ada", "dot", "xmr"];

let fakes: Fakes;
let db: TestDatabase;
let server: RunningApp;
const pairs: { from: string; to: string; base: Dec }[] = [];

beforeAll(async () => {
  fakes = await startFakes();
  for (const from of TICKERS)
    for (const to of TICKERS) {
      if (from === to || pairs.length >= 50) continue;
      const f = getCurrency(from)!;
      const t = getCurrency(to)!;
      const rate = new D(f.priceUsd).div(t.priceUsd).toSignificantDigits(10).toFixed();
      fakes.setPair(from, to, { changenow: rate, sideshift: rate, fixedfloat: rate }, { min: f.minAmount, max: f.maxAmount });
      pairs.push({ from, to, base: new D(f.minAmount).mul(4).toDecimalPlaces(f.precision) });
    }
  db = await migratedDatabase(inject("dbKind"));
  server = await startApp({
    databaseUrl: db.url,
    env: {
      ...fakes.env(),
      PROVIDERS_QUOTE_CACHE_SECONDS: "600",
      PRICES_MAX_AGE_SECONDS: "900",
      // Hang guards, not the subject: a quote past the deadline or a timed-out request (a
      // machine under load answers slowly) would skip a provider or put it in its cool-down,
      // and the counts below would say so though the cache did its job.
      PROVIDERS_QUOTE_DEADLINE_MS: "120000",
      PROVIDERS_HTTP_TIMEOUT_MS: "120000",
    },
  });
});

afterAll(async () => {
  await server.stop();
  await fakes.stop();
  await db.drop();
});

/** Upstream quotes per (pair, band): the key a recorded request asked about. */
function countByKey(reqs: RecordedRequest[], keyOf: (r: RecordedRequest) => [string, string]) {
  const counts = new Map<string, number>();
  for (const r of reqs) {
    const [pair, amount] = keyOf(r);
    const k = `${pair}|${amountBand(new D(amount))}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

describe("quote cache under public estimate traffic", () => {
  it("1,000 keyless estimates over 50 pairs: at most one upstream quote per provider, pair and band", async () => {
    expect(pairs).toHaveLength(50);
    const jobs = pairs.flatMap((p) =>
      Array.from({ length: 20 }, (_, i) => ({
        ...p,
        amount: p.base.mul(new D(1).plus(new D(i).mul("0.004"))).toDecimalPlaces(getCurrency(p.from)!.precision),
      })),
    );
    for (let i = jobs.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [jobs[i], jobs[j]] = [jobs[j], jobs[i]];
    }
    const statuses = new Map<number, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 25 }, async () => {
        while (next < jobs.length) {
          const job = jobs[next++];
          const res = await fetch(`${server.baseUrl}/api/v1/estimate?from=${job.from}&to=${job.to}&amount=${job.amount.toFixed()}`, {
            headers: { "x-forwarded-for": newIp() },
          });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      }),
    );
    expect(Object.fromEntries(statuses)).toEqual({ 200: 1000 });

    const bandsAsked = new Set(jobs.map((j) => `${j.from}>${j.to}|${amountBand(j.amount)}`)).size;
    const cn = countByKey(fakes.changenow.requestsTo("/v2/exchange/estimated-amount"), (r) => [
      `${r.query.fromCurrency}>${r.query.toCurrency}`,
      r.query.fromAmount,
    ]);
    const ss = countByKey(fakes.sideshift.requestsTo("/api/v2/quotes"), (r) => [
      `${r.body.depositCoin}>${r.body.settleCoin}`,
      r.body.depositAmount,
    ]);
    const ff = countByKey(fakes.fixedfloat.requestsTo("/api/v2/price"), (r) => [
      `${r.body.fromCcy}>${r.body.toCcy}`,
      String(r.body.amount),
    ]);
    for (const counts of [cn, ss, ff]) expect(Math.max(...counts.values())).toBe(1);
    // ChangeNOW and FixedFloat were asked about every pair and band once; SideShift only as far as its budget goes.
    expect(cn.size).toBe(bandsAsked);
    expect(ff.size).toBe(bandsAsked);
    expect(ss.size).toBeGreaterThan(0);
    expect(ss.size).toBeLessThanOrEqual(20);
    expect(fakes.sideshift.rateLimited).toBe(0);
    // ChangeNOW's range call (no amount in it) goes with each quote: per pair, at most one per band asked.
    const bandsPerPair = new Map<string, Set<number>>();
    for (const j of jobs)
      bandsPerPair.set(`${j.from}>${j.to}`, (bandsPerPair.get(`${j.from}>${j.to}`) ?? new Set()).add(amountBand(j.amount)));
    const rangesPerPair = new Map<string, number>();
    for (const r of fakes.changenow.requestsTo("/v2/exchange/range")) {
      const k = `${r.query.fromCurrency}>${r.query.toCurrency}`;
      rangesPerPair.set(k, (rangesPerPair.get(k) ?? 0) + 1);
    }
    for (const [pair, n] of rangesPerPair) expect(n, pair).toBeLessThanOrEqual(bandsPerPair.get(pair)?.size ?? 0);
  });
});
