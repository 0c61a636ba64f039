import { describe, expect, it } from "vitest";
import { bpsToPercent, D, formatAmount, parseDecimal } from "@/lib/money/decimal";
import { num, stringifyJson } from "@/lib/money/json-number";

describe("decimal helpers", () => {
  it("parses plain decimals only", () => {
    for (const ok of ["0", "1", "0.5", "123.000000000000000001", "10"]) expect(parseDecimal(ok)?.toFixed()).toBe(new D(ok).toFixed());
    for (const bad of ["", "-1", "+1", "1e5", "0x10", ".5", "1.", "01", " 1", "1,5", "NaN", "Infinity", "1".repeat(31)])
      expect(parseDecimal(bad)).toBeNull();
  });

  it("formats without exponent or trailing zeros", () => {
    expect(formatAmount(new D("1.500"))).toBe("1.5");
    expect(formatAmount(new D("0.00000001"))).toBe("0.00000001");
    expect(formatAmount(new D("1e-18"))).toBe("0.000000000000000001");
    expect(formatAmount(new D("120"))).toBe("120");
  });

  it("prints basis points as a percentage", () => {
    expect(bpsToPercent(175)).toBe("1.75%");
    expect(bpsToPercent(25)).toBe("0.25%");
    expect(bpsToPercent(0)).toBe("0%");
    expect(bpsToPercent(1000)).toBe("10%");
  });

  it("JSON numbers keep every digit of the exact decimal", () => {
    const text = stringifyJson({ a: num("123456789.123456789012345678"), b: [num("0.1")], c: "text", d: null });
    expect(text).toBe('{"a":123456789.123456789012345678,"b":[0.1],"c":"text","d":null}');
    expect(stringifyJson({ s: "__num_x__1__num_x__" })).toBe('{"s":"__num_x__1__num_x__"}');
  });
});
