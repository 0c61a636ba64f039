import { describe, expect, it } from "vitest";
import { retryDelayMs } from "@/lib/jobs/backoff";

describe("retry delays", () => {
  const opts = { baseMs: 1000, maxMs: 60_000 };

  it("double with each failure in a row, from the base", () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, opts, () => 0))).toEqual([1000, 2000, 4000, 8000, 16000]);
  });

  it("add at most 20% jitter, so failures of many orders spread out", () => {
    expect(retryDelayMs(3, opts, () => 0.5)).toBe(4400);
    expect(retryDelayMs(3, opts, () => 0.999999)).toBe(4800);
  });

  it("never exceed the maximum, jitter included", () => {
    expect(retryDelayMs(7, opts, () => 0)).toBe(60_000);
    expect(retryDelayMs(6, opts, () => 0.99)).toBe(38_336);
    expect(retryDelayMs(30, opts, () => 0.99)).toBe(60_000);
  });
});
