import { parseGwei } from "viem";
import { describe, expect, it } from "vitest";
import { bumpedFees, initialFees } from "@/lib/withdrawals/process";

// The fee arithmetic of a replacement: both EIP-1559 fees raised by at least the bump percent
// plus 1 wei (what nodes require), or to the node's estimate when higher, never past the ceiling.

const fees = (max: string, tip: string) => ({ maxFeePerGas: parseGwei(max), maxPriorityFeePerGas: parseGwei(tip) });

describe("bumpedFees", () => {
  it("raises both fees by the percent (rounded up) plus 1 wei when the estimate is lower", () => {
    const prev = { maxFeePerGas: 1_000_000_001n, maxPriorityFeePerGas: 100n };
    const next = bumpedFees(prev, fees("1", "0"), 12, parseGwei("500"));
    // 1,000,000,001 x 1.12 = 1,120,000,001.12 -> 1,120,000,002, + 1 wei
    expect(next).toEqual({ maxFeePerGas: 1_120_000_003n, maxPriorityFeePerGas: 113n });
  });

  it("follows the node's estimate when it is higher than the minimum raise", () => {
    expect(bumpedFees(fees("2", "1"), fees("120", "3"), 12, parseGwei("500"))).toEqual(fees("120", "3"));
  });

  it("keeps the max fee at the ceiling when the estimate passes it, as long as the minimum raise fits", () => {
    expect(bumpedFees(fees("2", "1"), fees("120", "1"), 12, parseGwei("50"))?.maxFeePerGas).toBe(parseGwei("50"));
  });

  it("gives up (null) when even the minimum raise passes the ceiling", () => {
    expect(bumpedFees(fees("50", "1"), fees("120", "1"), 12, parseGwei("50"))).toBeNull();
    expect(bumpedFees(fees("45", "1"), fees("45", "1"), 12, parseGwei("50"))).toBeNull();
  });

  it("never signs a priority fee above the max fee", () => {
    const next = bumpedFees(fees("10", "1"), fees("12", "40"), 12, parseGwei("30"))!;
    expect(next.maxPriorityFeePerGas).toBeLessThanOrEqual(next.maxFeePerGas);
    expect(next.maxFeePerGas).toBeLessThanOrEqual(parseGwei("30"));
  });
});

describe("initialFees", () => {
  it("is the estimate, under the ceiling", () => {
    expect(initialFees(fees("3", "1"), parseGwei("500"))).toEqual(fees("3", "1"));
    expect(initialFees(fees("900", "2"), parseGwei("500"))).toEqual(fees("500", "2"));
    expect(initialFees(fees("900", "700"), parseGwei("500"))).toEqual(fees("500", "500"));
  });
});
