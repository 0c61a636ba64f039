import { describe, expect, it } from "vitest";
import { getCurrency } from "@/lib/currencies";
import { D } from "@/lib/money/decimal";
import { api, makeReseller } from "../support/api";

describe("GET /range", () => {
  it("answers the same minAmount and maxAmount the estimate's errors carry", async () => {
    for (const [from, to] of [
      ["btc", "eth"],
      ["xmr", "ltc"],
      ["usdttrc20", "btc"],
    ]) {
      const range = await api(`/range?from=${from}&to=${to}`);
      expect(range.status, range.text).toBe(200);
      expect(range.body).toMatchObject({ fromCurrency: from, toCurrency: to, rateType: "floating" });
      const { minAmount, maxAmount } = range.body;
      expect(minAmount).toBeLessThan(maxAmount);

      const places = getCurrency(from)!.precision;
      const below = new D(String(minAmount)).minus(new D(10).pow(-places)).toFixed();
      const low = await api(`/estimate?from=${from}&to=${to}&amount=${below}`);
      expect(low.status).toBe(422);
      expect(low.body.error).toMatchObject({ code: "AMOUNT_TOO_LOW", minAmount, maxAmount });

      const above = new D(String(maxAmount)).mul(10).toFixed();
      const high = await api(`/estimate?fromCurrency=${from}&toCurrency=${to}&fromAmount=${above}`);
      expect(high.status).toBe(422);
      expect(high.body.error).toMatchObject({ code: "AMOUNT_TOO_HIGH", minAmount, maxAmount });

      // The limits themselves are accepted, and the estimate repeats them.
      for (const amount of [minAmount, maxAmount]) {
        const ok = await api(`/estimate?from=${from}&to=${to}&amount=${amount}`);
        expect(ok.status, ok.text).toBe(200);
        expect(ok.body).toMatchObject({ minAmount, maxAmount });
      }
    }
  });

  it("takes rateType, the long parameter names and a key; refuses what /estimate refuses", async () => {
    const { key } = await makeReseller({ markupBps: 150 });
    const fixed = await api("/range?fromCurrency=ltc&toCurrency=xmr&rateType=fixed", { key });
    expect(fixed.status).toBe(200);
    expect(fixed.body.rateType).toBe("fixed");
    const floating = await api("/range?from=ltc&to=xmr");
    expect(fixed.body.minAmount).toBe(floating.body.minAmount);

    expect((await api("/range?from=ltc&to=ltc")).body.error.code).toBe("SAME_CURRENCY");
    expect((await api("/range?from=nope&to=ltc")).body.error.code).toBe("UNKNOWN_CURRENCY");
    const bad = await api("/range?from=ltc&to=xmr&rateType=sometimes");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("INVALID_REQUEST");
    expect((await api("/range?to=xmr")).status).toBe(400);
    expect((await api("/range?from=btc&fromCurrency=ltc&to=xmr")).body.error.code).toBe("INVALID_REQUEST");
  });
});
