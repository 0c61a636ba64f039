import { describe, expect, it } from "vitest";
import { newOrderId, pooledRandomBytes } from "@/lib/ids";

// Ids on the request path come from a pool of random bytes (lib/ids.ts): every byte must be
// handed out once, across refills, and the pool must hold random bytes, not whatever
// Buffer.allocUnsafe left there.
describe("pooledRandomBytes", () => {
  it("hands out each byte once, across many refills of the pool", () => {
    const draws = Array.from({ length: 3000 }, (_, i) => pooledRandomBytes(5 + (i % 20)));
    expect(draws.map((d) => d.length)).toEqual(draws.map((_, i) => 5 + (i % 20)));
    // 3,000 draws of 5 to 24 bytes: about 40 KB, ten pools. Any overlap repeats a draw's bytes.
    const hex = draws.map((d) => d.toString("hex"));
    expect(new Set(hex).size).toBe(hex.length);
    const all = Buffer.concat(draws);
    const windows = new Set<string>();
    for (let i = 0; i + 8 <= all.length; i += 8) windows.add(all.subarray(i, i + 8).toString("hex"));
    expect(windows.size).toBe(Math.floor(all.length / 8));
  });

  it("gives bytes spread over every value, as a random source does", () => {
    const counts = new Array(256).fill(0);
    for (let i = 0; i < 4000; i++) for (const b of pooledRandomBytes(16)) counts[b]++;
    // 64,000 bytes: 250 of each value expected; a biased or zero-filled pool is far outside this.
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(350);
  });

  it("serves a request larger than the pool in full", () => {
    const big = pooledRandomBytes(10_000);
    expect(big.length).toBe(10_000);
    expect(new Set(big).size).toBeGreaterThan(200);
  });

  it("makes order ids of 24 lower-case hex digits, all different", () => {
    const ids = Array.from({ length: 2000 }, newOrderId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
