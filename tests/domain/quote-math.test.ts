import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyRate, effectiveRate } from "@/lib/domain/quote-math";
import { amountPlaces, D, floorTo, formatAmount } from "@/lib/money/decimal";

describe("markup math", () => {
  it("the spec's worked example: raw 50 XMR at 150 bps -> 49.25 to the user, 0.75 profit", () => {
    const q = applyRate(new D(50), new D(1), 12, 150);
    expect(q.rawToAmount.toFixed()).toBe("50");
    expect(q.toAmount.toFixed()).toBe("49.25");
    expect(q.profit.toFixed()).toBe("0.75");
  });

  it("rounds down to the destination precision, never up", () => {
    const q = applyRate(new D("1"), new D("0.123456789"), 8, 0);
    expect(q.toAmount.toFixed()).toBe("0.12345678");
    const m = applyRate(new D("1"), new D("0.99999999"), 8, 1);
    // 0.99999999 * 0.9999 = 0.999899990001 -> 0.99989999
    expect(m.toAmount.toFixed()).toBe("0.99989999");
    expect(m.profit.toFixed()).toBe("0.0001");
  });

  it("rejects a markup outside 0..9999 bps", () => {
    expect(() => applyRate(new D(1), new D(1), 8, -1)).toThrow(RangeError);
    expect(() => applyRate(new D(1), new D(1), 8, -1)).toThrow("markup out of range: -1");
    expect(() => applyRate(new D(1), new D(1), 8, 10_000)).toThrow(RangeError);
    expect(() => applyRate(new D(1), new D(1), 8, 1.5)).toThrow(RangeError);
  });

  const amount = fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** 14n }), fc.integer({ min: 0, max: 8 }))
    .map(([n, s]) => new D(n.toString()).div(new D(10).pow(s)));
  const rate = fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** 20n }), fc.integer({ min: 0, max: 16 }))
    .map(([n, s]) => new D(n.toString()).div(new D(10).pow(s)));

  it("property: keyed toAmount = floor(keyless toAmount * (1 - bps/10000)); profit = raw - toAmount >= 0; exact", () => {
    fc.assert(
      fc.property(amount, rate, fc.integer({ min: 0, max: 18 }), fc.integer({ min: 0, max: 1000 }), (a, r, precision, bps) => {
        const keyless = applyRate(a, r, precision, 0);
        const keyed = applyRate(a, r, precision, bps);
        expect(keyless.toAmount.eq(keyless.rawToAmount)).toBe(true);
        expect(keyed.rawToAmount.eq(keyless.toAmount)).toBe(true);
        // The user's amount is floored at the raw amount's last place.
        const places = amountPlaces(keyless.toAmount, precision);
        const expected = floorTo(keyless.toAmount.mul(new D(10_000 - bps).div(10_000)), places);
        expect(keyed.toAmount.eq(expected)).toBe(true);
        expect(keyed.profit.eq(keyed.rawToAmount.minus(keyed.toAmount))).toBe(true);
        expect(keyed.profit.gte(0)).toBe(true);
        // Rounding down never gives the user more than the exact markup formula.
        expect(keyed.toAmount.lte(a.mul(r).mul(new D(10_000 - bps).div(10_000)))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("property: every amount it makes has at most the precision's places and 15 significant digits, exact as a double", () => {
    fc.assert(
      fc.property(amount, rate, fc.integer({ min: 0, max: 18 }), fc.integer({ min: 0, max: 9999 }), (a, r, precision, bps) => {
        const q = applyRate(a, r, precision, bps);
        // The raw amount is the largest such amount not above the exact product.
        const unit = new D(10).pow(-amountPlaces(q.rawToAmount, precision));
        expect(q.rawToAmount.lte(a.mul(r))).toBe(true);
        expect(q.rawToAmount.plus(unit).gt(a.mul(r))).toBe(true);
        for (const x of [q.rawToAmount, q.toAmount, q.profit]) {
          expect(x.decimalPlaces()).toBeLessThanOrEqual(precision);
          expect(x.sd()).toBeLessThanOrEqual(15);
          // What JavaScript's JSON.parse makes of it prints back as the same decimal.
          expect(new D(String(Number(formatAmount(x)))).eq(x)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("an output beyond 15 significant digits is floored to 15; the markup comes off at the same place", () => {
    // 1.5 BTC at 20.123456789012345678 ETH each: 30.185185183518518517 -> 30.1851851835185 (15 digits).
    const q = applyRate(new D("1.5"), new D("20.123456789012345678"), 18, 150);
    expect(q.rawToAmount.toFixed()).toBe("30.1851851835185");
    // 30.1851851835185 * 0.985 = 29.7324074057657225 -> 29.7324074057657 (the raw amount's 13th place)
    expect(q.toAmount.toFixed()).toBe("29.7324074057657");
    expect(q.profit.toFixed()).toBe("0.4527777777528");
  });

  it("effectiveRate is toAmount / fromAmount to 12 significant digits, rounded down", () => {
    expect(effectiveRate(new D("3"), new D("1")).toFixed()).toBe("0.333333333333");
    expect(effectiveRate(new D("0"), new D("1")).toFixed()).toBe("0");
  });
});
