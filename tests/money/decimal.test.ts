import { describe, expect, it } from "vitest";
import {
  amountPlaces,
  bpsToPercent,
  ceilAmount,
  D,
  floorAmount,
  formatAmount,
  MAX_EXPONENT,
  parseDecimal,
  parseNumberText,
  percentOfBps,
} from "@/lib/money/decimal";
import { num, stringifyJson } from "@/lib/money/json-number";

describe("decimal helpers", () => {
  it("parseNumberText reads JSON number text, and refuses an exponent beyond MAX_EXPONENT before expanding it", () => {
    for (const [text, value] of [
      ["5e-1", "0.5"],
      ["-2.5", "-2.5"],
      ["1E+3", "1000"],
      [`1e${MAX_EXPONENT}`, `1${"0".repeat(MAX_EXPONENT)}`],
      [`1e-${MAX_EXPONENT}`, `0.${"0".repeat(MAX_EXPONENT - 1)}1`],
      ["007", "7"],
    ])
      expect(parseNumberText(text)?.toFixed()).toBe(value);
    for (const bad of [
      `1e${MAX_EXPONENT + 1}`,
      `1e-${MAX_EXPONENT + 1}`,
      "1e30000000",
      `1e${"9".repeat(400)}`,
      "",
      "1.",
      ".5",
      "0x10",
      "1e",
      " 1",
      "NaN",
    ])
      expect(parseNumberText(bad), bad).toBeNull();
  });

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
    expect(formatAmount(new D("100.000"))).toBe("100");
    expect(formatAmount(new D("-0"))).toBe("0");
    expect(formatAmount(new D("1e21"))).toBe("1000000000000000000000");
  });

  it("prints basis points as a percentage", () => {
    expect(bpsToPercent(175)).toBe("1.75%");
    expect(bpsToPercent(25)).toBe("0.25%");
    expect(bpsToPercent(0)).toBe("0%");
    expect(bpsToPercent(1000)).toBe("10%");
    expect(bpsToPercent(1.5)).toBe("0.015%");
    expect(bpsToPercent(-1)).toBe("-0.01%");
  });

  it("remembers the percentage of a fee plus a markup (integers from 0 to 19,999) and of nothing else", () => {
    percentOfBps.clear();
    for (const bps of [0, 175, 19_999, 20_000, 25_000, -1, 1.5, 1e9, Number.NaN]) bpsToPercent(bps);
    expect([...percentOfBps.keys()].sort((a, b) => a - b)).toEqual([0, 175, 19_999]);
    // What it remembers is what it answers next time, without working it out again.
    percentOfBps.set(175, "remembered");
    expect(bpsToPercent(175)).toBe("remembered");
    percentOfBps.clear();
  });

  it("JSON numbers keep every digit of the exact decimal", () => {
    const text = stringifyJson({ a: num("123456789.123456"), b: [num("0.1")], c: "text", d: null, e: undefined });
    expect(text).toBe('{"a":123456789.123456,"b":[0.1],"c":"text","d":null}');
    expect(stringifyJson({ s: "1.5" })).toBe('{"s":"1.5"}');
    // Nothing to write is still a JSON text.
    expect(stringifyJson(undefined)).toBe("null");
  });

  it("an amount beyond 15 significant digits never reaches a client", () => {
    expect(() => num("9123456789.12345678")).toThrow(/significant digits/);
    expect(num("1000000000000000000000").toString()).toBe("1000000000000000000000");
    // Exactly 15 significant digits is the most an amount may have, and passes unchanged.
    expect(num("912345678.912345").toString()).toBe("912345678.912345");
    expect(num(new D("0.000123456789012345")).toString()).toBe("0.000123456789012345");
    expect(() => num(new D("0.0001234567890123456"))).toThrow(/more than 15 significant digits/);
  });

  it("amounts are rounded to the precision and to 15 significant digits, limits inward", () => {
    expect(floorAmount(new D("9123456789.12345678"), 8).toFixed()).toBe("9123456789.12345");
    expect(ceilAmount(new D("9123456789.12345678"), 8).toFixed()).toBe("9123456789.12346");
    expect(floorAmount(new D("0.123456789"), 8).toFixed()).toBe("0.12345678");
    expect(ceilAmount(new D("0.123456781"), 8).toFixed()).toBe("0.12345679");
    // Exact beyond the 64 digits of D's arithmetic: a digit far down still rounds a ceiling up.
    expect(ceilAmount(new D(`1.${"0".repeat(70)}1`), 8).toFixed()).toBe("1.00000001");
    expect(ceilAmount(new D(`1.${"0".repeat(70)}1`), 0).toFixed()).toBe("2");
    expect(floorAmount(new D(`1.${"9".repeat(80)}`), 8).toFixed()).toBe("1.99999999");
    expect(floorAmount(new D("1234567890123456789"), 0).toFixed()).toBe("1234567890123450000");
    expect(floorAmount(new D("0"), 8).toFixed()).toBe("0");
    expect(amountPlaces(new D("0.5"), 18)).toBe(15);
    expect(amountPlaces(new D("1234.5"), 18)).toBe(11);
    expect(amountPlaces(new D("1234.5"), 2)).toBe(2);
  });
});
