import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyRate, fromAmountFor, leastRawFor } from "@/lib/domain/quote-math";
import { D, type Dec, floorAmount } from "@/lib/money/decimal";

/** The largest amount (at the precision, 15 significant digits) strictly below x. */
const previousAmount = (x: Dec, precision: number) => floorAmount(x.minus(new D(10).pow(-(precision + 30))), precision);

/** A target amount: 1 to 15 significant digits, at most toPrecision places. */
const target = (digits: bigint, scale: number, toPrecision: number) =>
  new D(digits.toString()).div(new D(10).pow(Math.min(scale, toPrecision)));

const digits = fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.bigInt({ min: 10n ** 14n, max: 10n ** 15n - 1n }));

describe("leastRawFor (the raw output a reverse quote needs)", () => {
  // applyRate at rate 1 turns a raw amount into what the user gets after the markup.
  const userPart = (raw: Dec, toPrecision: number, bps: number) => applyRate(raw, new D(1), toPrecision, bps).toAmount;

  it("is the least raw amount whose part after the markup reaches the target", () => {
    fc.assert(
      fc.property(
        digits,
        fc.integer({ min: 0, max: 18 }),
        fc.integer({ min: 0, max: 18 }),
        fc.integer({ min: 0, max: 999 }),
        (d, scale, toPrecision, bps) => {
          const t = target(d, scale, toPrecision);
          const raw = leastRawFor(t, toPrecision, bps);
          expect(floorAmount(raw, toPrecision).eq(raw)).toBe(true);
          expect(userPart(raw, toPrecision, bps).gte(t)).toBe(true);
          expect(userPart(previousAmount(raw, toPrecision), toPrecision, bps).lt(t)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("steps past a power of ten, where the raw amount has one place fewer than the target", () => {
    // 0.999999999999999 (15 places) at 100 bps: the quotient 1.0101010101010090... rounds up to
    // 1.01010101010101 (14 places), which after the markup floors to 0.99999999999999: short.
    const t = new D("0.999999999999999");
    const raw = leastRawFor(t, 18, 100);
    expect(raw.toFixed()).toBe("1.01010101010102");
    expect(userPart(raw, 18, 100).toFixed()).toBe("1");
    expect(userPart(new D("1.01010101010101"), 18, 100).lt(t)).toBe(true);
  });
});

describe("fromAmountFor (reverse quotes)", () => {
  it("gives the least source amount (at its precision) whose forward quote pays at least the target", () => {
    fc.assert(
      fc.property(
        digits,
        fc.integer({ min: 0, max: 18 }),
        fc.integer({ min: 1, max: 10 ** 12 }),
        fc.integer({ min: -6, max: 6 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 18 }),
        fc.integer({ min: 0, max: 999 }),
        (d, scale, rateUnits, rateExp, fromPrecision, toPrecision, markupBps) => {
          const t = target(d, scale, toPrecision);
          const rate = new D(rateUnits).div(10 ** 6).mul(new D(10).pow(rateExp));
          const from = fromAmountFor(t, rate, fromPrecision, toPrecision, markupBps);
          expect(applyRate(from, rate, toPrecision, markupBps).toAmount.gte(t)).toBe(true);
          expect(floorAmount(from, fromPrecision).eq(from)).toBe(true);
          const less = previousAmount(from, fromPrecision);
          if (less.gt(0)) expect(applyRate(less, rate, toPrecision, markupBps).toAmount.lt(t)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("a worked example: 1.5 XMR at 150 bps", () => {
    // raw: 1.5 / 0.985 = 1.52284263959390... rounded up at 12 places = 1.522842639594;
    // from: 1.522842639594 / 0.0421 = 36.1720341946... rounded up at 8 places.
    const from = fromAmountFor(new D("1.5"), new D("0.0421"), 8, 12, 150);
    expect(from.toFixed()).toBe("36.1720342");
    expect(applyRate(from, new D("0.0421"), 12, 150).toAmount.gte("1.5")).toBe(true);
    expect(applyRate(from.minus("0.00000001"), new D("0.0421"), 12, 150).toAmount.lt("1.5")).toBe(true);
  });

  it("crosses a power of ten in the raw output (the target has 15 significant digits)", () => {
    const t = new D("0.999999999999999");
    const from = fromAmountFor(t, new D("2"), 18, 18, 100);
    expect(from.toFixed()).toBe("0.50505050505051");
    expect(applyRate(from, new D("2"), 18, 100).toAmount.gte(t)).toBe(true);
    expect(applyRate(new D("0.50505050505050"), new D("2"), 18, 100).toAmount.lt(t)).toBe(true);
  });

  it("refuses a rate that is zero or negative", () => {
    expect(() => fromAmountFor(new D(1), new D(0), 8, 8, 0)).toThrow(new RangeError("rate must be positive"));
    expect(() => fromAmountFor(new D(1), new D(-1), 8, 8, 0)).toThrow(new RangeError("rate must be positive"));
  });
});
