import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { amountPlaces, D } from "@/lib/money/decimal";
import { applyRate, fromAmountFor } from "@/lib/quotes/compute-quote";

describe("fromAmountFor (reverse quotes)", () => {
  it("gives the least source amount (at its precision) whose forward quote pays at least the target", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 9 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 10 ** 12 }),
        fc.integer({ min: -6, max: 6 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 18 }),
        fc.integer({ min: 0, max: 999 }),
        (targetUnits, targetScale, rateUnits, rateExp, fromPrecision, toPrecision, markupBps) => {
          const target = new D(targetUnits).div(new D(10).pow(Math.min(targetScale, toPrecision)));
          const rate = new D(rateUnits).div(10 ** 6).mul(new D(10).pow(rateExp));
          const from = fromAmountFor(target, rate, fromPrecision, toPrecision, markupBps);
          expect(applyRate(from, rate, toPrecision, markupBps).toAmount.gte(target)).toBe(true);
          expect(from.decimalPlaces()).toBeLessThanOrEqual(fromPrecision);
          const less = from.minus(new D(10).pow(-amountPlaces(from, fromPrecision)));
          if (less.gt(0)) expect(applyRate(less, rate, toPrecision, markupBps).toAmount.lt(target)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a worked example: 1.5 XMR at 150 bps", () => {
    const from = fromAmountFor(new D("1.5"), new D("0.0421"), 8, 12, 150);
    expect(applyRate(from, new D("0.0421"), 12, 150).toAmount.gte("1.5")).toBe(true);
    expect(applyRate(from.minus("0.00000001"), new D("0.0421"), 12, 150).toAmount.lt("1.5")).toBe(true);
  });
});
