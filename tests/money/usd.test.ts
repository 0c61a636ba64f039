import { describe, expect, it } from "vitest";
import { formatUsd } from "@/components/format";
import { bpsToPercent, D } from "@/lib/money/decimal";
import { USD_PLACES, usdCents, usdValue } from "@/lib/money/usd";

// The one USD rule: values to 8 places half up, display in cents half up, no floats.
describe("USD at reference prices", () => {
  it("a value is the exact product, kept to 8 places, half up", () => {
    expect(usdValue("0.123456789", "2")?.toFixed()).toBe("0.24691358");
    expect(usdValue("0.000000005", "1")?.toFixed()).toBe("0.00000001");
    expect(usdValue("0.000000004", "1")?.toFixed()).toBe("0");
    expect(usdValue("1", null)).toBeNull();
    expect(usdValue("3", "0.1")?.decimalPlaces()).toBeLessThanOrEqual(USD_PLACES);
  });

  it("display rounds to cents half up, groups thousands, and marks tiny amounts", () => {
    expect(usdCents("1234.565")).toBe("1234.57");
    expect(usdCents("1234.56499999")).toBe("1234.56");
    expect(formatUsd("1234567.005")).toBe("$1,234,567.01");
    expect(formatUsd("0.1")).toBe("$0.10");
    expect(formatUsd("0")).toBe("$0.00");
    expect(formatUsd("0.004")).toBe("< $0.01");
    expect(formatUsd("-2.345")).toBe("-$2.35");
    expect(formatUsd(null)).toBe("—");
    // 0.1 + 0.2 in floats is 0.30000000000000004; here it is 0.3.
    expect(formatUsd(new D("0.1").plus("0.2").toFixed())).toBe("$0.30");
  });

  it("percentages of basis points are exact", () => {
    expect(bpsToPercent(1)).toBe("0.01%");
    expect(bpsToPercent(999)).toBe("9.99%");
    expect(bpsToPercent(333)).toBe("3.33%");
    // Asked again (remembered values) and beyond the remembered range: the same exact text.
    expect([1, 175, 999, 175, 1, 25_000, 25_000, 0.5].map(bpsToPercent)).toEqual([
      "0.01%",
      "1.75%",
      "9.99%",
      "1.75%",
      "0.01%",
      "250%",
      "250%",
      "0.005%",
    ]);
  });
});
