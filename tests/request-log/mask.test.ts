import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MASK_OVER, maskPath, maskSegment } from "@/lib/request-log/mask";

// What the request log keeps of a path: never a query string, never a long segment (an
// address, a hash, an order id) in full.

describe("the request log's path masking", () => {
  it("drops the query string and the fragment", () => {
    expect(maskPath("/api/v1/estimate?from=btc&to=eth&amount=1&address=bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq")).toBe(
      "/api/v1/estimate",
    );
    expect(maskPath("/api/v1/currencies#x")).toBe("/api/v1/currencies");
    expect(maskPath("/v1/range?")).toBe("/v1/range");
  });

  it("keeps segments of up to 16 characters, shortens longer ones to their first 6 and last 4", () => {
    expect(maskSegment("a".repeat(MASK_OVER))).toBe("a".repeat(16));
    expect(maskSegment("0123456789abcdefX")).toBe("012345…def X".replace(" ", ""));
    // An order id (24 hex characters) is shortened too: one rule for every segment.
    expect(maskPath("/api/v1/exchange/0123456789abcdef01234567/refund-address")).toBe("/api/v1/exchange/012345…4567/refund-address");
    // An address in the path.
    const address = "0x52908400098527886E0F7030069857D2E4169EE7";
    const masked = maskPath(`/api/v1/exchange/${address}`);
    expect(masked).toBe("/api/v1/exchange/0x5290…9EE7");
    expect(masked).not.toContain(address.slice(6, -4));
  });

  it("counts characters, not UTF-16 units, and bounds a path made long on purpose", () => {
    expect(maskSegment("é".repeat(17))).toBe(`${"é".repeat(6)}…${"é".repeat(4)}`);
    expect(maskSegment("😀".repeat(16))).toBe("😀".repeat(16));
    const many = maskPath(`/api/v1${"/abc".repeat(100)}`);
    expect(many.split("/").length).toBeLessThanOrEqual(14);
    expect(many.endsWith("/…")).toBe(true);
    expect(maskPath(`/${"abcdefghijklmno/".repeat(40)}`).length).toBeLessThanOrEqual(200);
  });

  it("answers what the plain rule answers, for any path (the short-cut for paths kept as they are included)", () => {
    // The rule written plainly, without the short-cut: what maskPath must equal.
    const plain = (target: string) => {
      const path = target.split(/[?#]/)[0];
      const segments = path.split("/");
      const kept = segments.slice(0, 13).map(maskSegment);
      let out = kept.join("/");
      if (segments.length > kept.length) out += "/…";
      return out.length > 200 ? `${out.slice(0, 199)}…` : out;
    };
    const segment = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom("api", "v1", "exchange", "0123456789abcdef", "0123456789abcdef0", "😀".repeat(9), "é".repeat(17), "a?b", "#", ""),
    );
    const target = fc.array(segment, { maxLength: 16 }).map((parts) => `/${parts.join("/")}`);
    fc.assert(
      fc.property(fc.oneof(target, fc.string({ maxLength: 260 })), (t) => {
        expect(maskPath(t)).toBe(plain(t));
      }),
      { numRuns: 3000 },
    );
    for (const t of [
      "/api/v1/currencies",
      `/${"a/".repeat(12)}a`,
      `/${"a/".repeat(13)}a`,
      `/${"b".repeat(16)}`,
      `/${"b".repeat(17)}`,
      `/${"x".repeat(199)}`,
      `/${"x/".repeat(100)}`,
    ])
      expect(maskPath(t), t).toBe(plain(t));
  });
});
