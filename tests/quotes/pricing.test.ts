import { LosslessNumber } from "lossless-json";
import { describe, expect, it } from "vitest";
import { getCurrency } from "@/lib/currencies";
import { applyRate } from "@/lib/domain/quote-math";
import { D } from "@/lib/money/decimal";
import { getEstimate } from "@/lib/quotes/get-estimate";
import { amountLimits, getTermsWithinLimits, parseAmount, resolveCurrency, resolvePair } from "@/lib/quotes/pricing";
import { refusalOf, refusalOfSync } from "../support/app-error";
import { settingsForTests } from "../support/settings";

// The checks /estimate and /exchange share, in-process with the simulated engine.

const ctx = { scope: "test" };
const btc = getCurrency("btc")!;
const eth = getCurrency("eth")!;
settingsForTests({ QUOTE_TTL_SECONDS: "60", PLATFORM_FEE_BPS: "25" });

const fail = refusalOfSync;
const failAsync = refusalOf;

describe("currencies and pairs", () => {
  it("resolves tickers case-insensitively and names the field it refuses", () => {
    expect(resolveCurrency("BTC", "from").ticker).toBe("btc");
    expect(fail(() => resolveCurrency("nope", "to"))).toEqual({
      code: "UNKNOWN_CURRENCY",
      message: "Unknown currency 'nope'.",
      details: { field: "to" },
    });
    expect(fail(() => resolveCurrency(42, "from"))).toMatchObject({ code: "UNKNOWN_CURRENCY", details: { field: "from" } });
    expect(fail(() => resolveCurrency(undefined, "from"))).toMatchObject({ message: "Unknown currency 'undefined'." });
    const { from, to } = resolvePair("btc", "eth");
    expect([from.ticker, to.ticker]).toEqual(["btc", "eth"]);
    expect(fail(() => resolvePair("btc", "BTC"))).toMatchObject({
      code: "SAME_CURRENCY",
      message: "Source and destination currencies must differ.",
    });
    expect(fail(() => resolvePair("nope", "btc"))).toMatchObject({ code: "UNKNOWN_CURRENCY", details: { field: "from" } });
    expect(fail(() => resolvePair("btc", "nope"))).toMatchObject({ code: "UNKNOWN_CURRENCY", details: { field: "to" } });
  });

  it("an unavailable currency (the registry's bnbbep2) is refused with its own code", () => {
    const c = getCurrency("bnbbep2")!;
    expect(c.isAvailable).toBe(false);
    expect(fail(() => resolveCurrency("bnbbep2", "to"))).toEqual({
      code: "CURRENCY_UNAVAILABLE",
      message: `${c.name} (bnbbep2) is not available right now.`,
      details: { field: "to" },
    });
  });
});

describe("parseAmount", () => {
  it("takes decimal strings (trimmed) and exact JSON numbers, exponents included", () => {
    expect(parseAmount(" 0.5 ", btc).toFixed()).toBe("0.5");
    expect(parseAmount(new LosslessNumber("5e-1"), btc).toFixed()).toBe("0.5");
    expect(parseAmount(new LosslessNumber("9123456789.12345"), eth).toFixed()).toBe("9123456789.12345");
    expect(parseAmount("0.00000001", btc).toFixed()).toBe("0.00000001");
  });

  it("refuses what is not a positive amount, quoting what was received", () => {
    expect(fail(() => parseAmount("abc", btc))).toEqual({
      code: "INVALID_AMOUNT",
      message: 'The amount must be a positive decimal number, e.g. "0.5"; received abc.',
      details: undefined,
    });
    expect(fail(() => parseAmount(null, btc))).toMatchObject({ message: 'The amount must be a positive decimal number, e.g. "0.5".' });
    expect(fail(() => parseAmount(0.5, btc))).toMatchObject({ code: "INVALID_AMOUNT" });
    expect(fail(() => parseAmount("0", btc))).toMatchObject({ code: "INVALID_AMOUNT" });
    expect(fail(() => parseAmount(new LosslessNumber("-1"), btc))).toMatchObject({ message: expect.stringContaining("received -1") });
    expect(fail(() => parseAmount(new LosslessNumber("0"), btc))).toMatchObject({ code: "INVALID_AMOUNT" });
    expect(fail(() => parseAmount("", btc))).toMatchObject({ message: 'The amount must be a positive decimal number, e.g. "0.5".' });
  });

  it("refuses more places than the currency has, and more than 15 significant digits", () => {
    expect(fail(() => parseAmount("0.123456789", btc))).toMatchObject({
      code: "INVALID_AMOUNT",
      message: "btc amounts have at most 8 decimal places; received 0.123456789 (9).",
    });
    expect(parseAmount("0.12345678", btc).toFixed()).toBe("0.12345678");
    expect(fail(() => parseAmount(new LosslessNumber("9123456789.12345678"), eth))).toMatchObject({
      code: "INVALID_AMOUNT",
      message: expect.stringContaining("received 9123456789.12345678 (18)"),
    });
    expect(parseAmount("123456789012345", eth).toFixed()).toBe("123456789012345");
    expect(fail(() => parseAmount("1234567890123456", eth))).toMatchObject({
      message: expect.stringContaining("at most 15 significant digits"),
    });
  });

  it("refuses huge exponents from their text, and amounts of 10^30 or more, quoting them cut short", () => {
    for (const text of ["1e30000000", "1E+30000000", "1e101", "0.1e102", `1e${"9".repeat(400)}`])
      expect(fail(() => parseAmount(new LosslessNumber(text), eth))).toMatchObject({
        code: "INVALID_AMOUNT",
        message: `The amount must be a positive decimal number, e.g. "0.5"; received ${text.length > 40 ? `${text.slice(0, 40)}...` : text}.`,
      });
    // Tiny ones too: their decimal places would be printed one by one.
    expect(fail(() => parseAmount(new LosslessNumber("5e-30000000"), eth))).toMatchObject({ code: "INVALID_AMOUNT" });
    expect(fail(() => parseAmount(new LosslessNumber("1e30"), eth))).toMatchObject({ message: "Amounts are below 10^30; received 1e30." });
    expect(fail(() => parseAmount(new LosslessNumber(`1${"0".repeat(5000)}`), eth))).toMatchObject({
      message: `Amounts are below 10^30; received 1${"0".repeat(39)}....`,
    });
    // The largest allowed exponent and the largest allowed amount still parse.
    expect(parseAmount(new LosslessNumber("1e29"), eth).toFixed()).toBe(`1${"0".repeat(29)}`);
    expect(parseAmount(new LosslessNumber("100e-2"), btc).toFixed()).toBe("1");
    expect(fail(() => parseAmount("1e5", btc))).toMatchObject({ code: "INVALID_AMOUNT" }); // a string is a plain decimal
  });
});

describe("limits", () => {
  it("rounds limits inward: the minimum up, the maximum down, to amounts of the currency", () => {
    const l = amountLimits({ minAmount: new D("0.000123456789"), maxAmount: new D("12.999999999") }, 8);
    expect(l.minAmount.toFixed()).toBe("0.00012346");
    expect(l.maxAmount.toFixed()).toBe("12.99999999");
  });

  it("an amount outside the pair's limits is refused with the limits in the details; the limits themselves pass", async () => {
    const terms = await getTermsWithinLimits(btc, eth, new D("0.1"), ctx);
    const min = terms.minAmount;
    const max = terms.maxAmount;
    expect(min.lt(max)).toBe(true);
    expect(terms.platformFeeBps).toBe(25);
    await expect(getTermsWithinLimits(btc, eth, min, ctx)).resolves.toBeTruthy();
    await expect(getTermsWithinLimits(btc, eth, max, ctx)).resolves.toBeTruthy();
    const low = await failAsync(getTermsWithinLimits(btc, eth, min.minus("0.00000001"), ctx));
    expect(low).toMatchObject({ code: "AMOUNT_TOO_LOW", message: `The minimum for btc -> eth is ${min.toFixed()} btc.` });
    expect(String((low.details as { minAmount: unknown }).minAmount)).toBe(min.toFixed());
    expect(String((low.details as { maxAmount: unknown }).maxAmount)).toBe(max.toFixed());
    const high = await failAsync(getTermsWithinLimits(btc, eth, max.plus("0.00000001"), ctx));
    expect(high).toMatchObject({ code: "AMOUNT_TOO_HIGH", message: `The maximum for btc -> eth is ${max.toFixed()} btc.` });
  });
});

describe("getEstimate", () => {
  it("answers the keyed amount, the effective rate, fee plus markup, the limits and a validity of QUOTE_TTL_SECONDS", async () => {
    const now = new Date("2026-11-22T10:00:00.000Z");
    const e = await getEstimate({ from: "BTC", to: "eth", amount: "0.1", markupBps: 150, ctx, now });
    const terms = await getTermsWithinLimits(btc, eth, new D("0.1"), ctx, 150);
    const q = applyRate(new D("0.1"), terms.rate, eth.precision, 150);
    expect(e.from.ticker).toBe("btc");
    expect(e.to.ticker).toBe("eth");
    expect(e.fromAmount.toFixed()).toBe("0.1");
    expect(e.toAmount.toFixed()).toBe(q.toAmount.toFixed());
    expect(e.rate.toFixed()).toBe(q.toAmount.div("0.1").toSignificantDigits(12, D.ROUND_DOWN).toFixed());
    expect(e.feeBps).toBe(175);
    expect(e.validUntil.toISOString()).toBe("2026-11-22T10:01:00.000Z");
    expect(e.minAmount.eq(terms.minAmount)).toBe(true);
    expect(e.maxAmount.eq(terms.maxAmount)).toBe(true);
    const keyless = await getEstimate({ from: "btc", to: "eth", amount: "0.1", markupBps: 0, ctx, now });
    expect(keyless.feeBps).toBe(25);
    expect(keyless.toAmount.gt(e.toAmount)).toBe(true);
    const t0 = Date.now();
    const later = await getEstimate({ from: "btc", to: "eth", amount: "0.1", markupBps: 0, ctx });
    // Without `now`: valid for QUOTE_TTL_SECONDS from the moment it was made, however long that took.
    expect(later.validUntil.getTime()).toBeGreaterThanOrEqual(t0 + 60_000);
    expect(later.validUntil.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
  });
});
