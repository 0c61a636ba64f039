// Registry invariants and the limits derivation.
import DecimalBase from "decimal.js";
import { describe, expect, it } from "vitest";
import { buildRecords, type PriceSnapshot, type SourceEntry } from "../../lib/currencies/build";
import data from "../../lib/currencies/data/currencies.json";
import source from "../../lib/currencies/data/currencies.source.json";
import snapshot from "../../lib/currencies/data/prices-snapshot.json";
import { getExtraIdValidator } from "../../lib/currencies/extra-id";
import { FAMILY_MAP } from "../../lib/currencies/families/index";
import { FAMILIES, getCurrency, getCurrencyMeta, listCurrencies, validateExtraId } from "../../lib/currencies/index";
import { computeLimits, MAX_USD, MIN_USD } from "../../lib/currencies/limits";

const currencies = listCurrencies();
const Decimal = DecimalBase.clone({ precision: 60 });

describe("registry invariants", () => {
  it("lists at least 180 currencies in a stable order", () => {
    expect(currencies.length).toBeGreaterThanOrEqual(180);
    expect(listCurrencies()).toBe(currencies);
    expect(currencies.map((c) => c.ticker)).toEqual((data as Array<{ ticker: string }>).map((r) => r.ticker));
  });

  it("tickers are unique and lower-case", () => {
    const seen = new Set<string>();
    for (const c of currencies) {
      expect(c.ticker).toBe(c.ticker.toLowerCase());
      expect(seen.has(c.ticker), c.ticker).toBe(false);
      seen.add(c.ticker);
    }
  });

  it("every validator resolves and each currency is listed under its family", () => {
    for (const c of currencies) {
      expect(FAMILY_MAP.get(c.family), c.ticker).toBeDefined();
      expect(FAMILIES.get(c.family)!.tickers).toContain(c.ticker);
    }
  });

  it("the published validation level is what the validator does with a one-character change", () => {
    // "checksum": no single substitution of a generated address validates; "format": some do;
    // "checksum-if-mixed-case": substitutions of the mixed-case form are caught, of the
    // lower-case form not.
    const random = (n: number) => new Uint8Array(n).map((_, i) => (i * 73 + 11) & 0xff);
    for (const f of FAMILY_MAP.values()) {
      const address = f.generate(random);
      const subs = (a: string) => {
        const alphabet = [...new Set(a)].join("");
        const out: string[] = [];
        for (let i = 0; i < a.length; i++) for (const ch of alphabet) if (ch !== a[i]) out.push(a.slice(0, i) + ch + a.slice(i + 1));
        return out;
      };
      const accepted = (a: string) => subs(a).filter((m) => f.validate(m)).length;
      if (f.level === "checksum") expect(accepted(address), `${f.key} ${address}`).toBe(0);
      if (f.level === "format") expect(accepted(address), `${f.key} ${address}`).toBeGreaterThan(0);
      if (f.level === "checksum-if-mixed-case") {
        expect(accepted(address), `${f.key} ${address}`).toBe(0);
        expect(accepted(address.toLowerCase()), `${f.key} ${address}`).toBeGreaterThan(0);
      }
    }
    for (const c of currencies) expect(c.validationLevel, c.ticker).toBe(FAMILY_MAP.get(c.family)!.level);
  });

  it("every currency has a dated positive price, precision <= decimals and min < max", () => {
    for (const c of currencies) {
      expect(c.priceUsd, c.ticker).toMatch(/^\d+(\.\d+)?$/);
      expect(new Decimal(c.priceUsd).gt(0), c.ticker).toBe(true);
      expect(c.priceDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(c.precision).toBeLessThanOrEqual(c.decimals);
      expect(new Decimal(c.minAmount).lt(new Decimal(c.maxAmount)), c.ticker).toBe(true);
      expect(new Decimal(c.minAmount).gt(0), c.ticker).toBe(true);
      expect(new Decimal(c.minAmount).decimalPlaces()).toBeLessThanOrEqual(c.precision);
      expect(new Decimal(c.maxAmount).decimalPlaces()).toBeLessThanOrEqual(c.precision);
      expect(c.minAmount.split(".")[1]?.length ?? 0).toBe(c.precision);
      expect(getCurrencyMeta(c)!.priceSource).toBeTruthy();
    }
  });

  it("every hasExtraId currency has a label and an extra-ID validator; others have none", () => {
    for (const c of currencies) {
      const meta = getCurrencyMeta(c)!;
      if (c.hasExtraId) {
        expect(c.extraIdName, c.ticker).toBeTruthy();
        expect(getExtraIdValidator(meta.extraIdFormat), c.ticker).toBeDefined();
      } else {
        expect(c.extraIdName).toBeNull();
        expect(meta.extraIdFormat).toBeNull();
        expect(validateExtraId(c, "123")).toBe(false);
      }
    }
  });

  it("lookup is case-insensitive and returns the lower-case ticker", () => {
    expect(getCurrency("BTC")!.ticker).toBe("btc");
    expect(getCurrency("UsdtTrc20")!.ticker).toBe("usdttrc20");
    expect(getCurrency("nope")).toBeUndefined();
    expect(getCurrency(undefined as unknown as string)).toBeUndefined();
  });

  it("USDT and USDC are listed on the major networks, each with its own ticker", () => {
    const nets = (sym: string) => new Set(currencies.filter((c) => c.symbol === sym && c.isAvailable).map((c) => c.network));
    for (const n of ["ethereum", "tron", "bsc", "solana", "polygon", "arbitrum", "avaxc", "ton"])
      expect(nets("USDT").has(n), `USDT ${n}`).toBe(true);
    for (const n of ["ethereum", "solana", "bsc", "polygon", "arbitrum", "base", "avaxc", "stellar", "optimism"])
      expect(nets("USDC").has(n), `USDC ${n}`).toBe(true);
  });

  it("retired networks are listed as unavailable", () => {
    expect(getCurrency("bnbbep2")!.isAvailable).toBe(false);
    expect(getCurrency("usdctrc20")!.isAvailable).toBe(false);
    expect(getCurrency("btc")!.isAvailable).toBe(true);
  });

  it("currency objects are frozen", () => {
    expect(Object.isFrozen(currencies[0])).toBe(true);
    expect(Object.isFrozen(currencies)).toBe(true);
  });
});

describe("limits", () => {
  it("currencies.json matches the derivation from the source inputs", () => {
    const rebuilt = buildRecords(source as SourceEntry[], snapshot as unknown as PriceSnapshot);
    expect(rebuilt).toEqual(data);
  });

  it("min = ceil(MIN_USD / price), max = floor(MAX_USD / price) at precision unless overridden", () => {
    const src = new Map((source as SourceEntry[]).map((s) => [s.ticker, s]));
    for (const c of currencies) {
      const o = src.get(c.ticker)!.limits;
      const p = new Decimal(c.priceUsd);
      const min = new Decimal(
        o?.minAmount ?? new Decimal(o?.minUsd ?? MIN_USD).div(p).toDecimalPlaces(c.precision, DecimalBase.ROUND_CEIL),
      );
      const max = new Decimal(
        o?.maxAmount ?? new Decimal(o?.maxUsd ?? MAX_USD).div(p).toDecimalPlaces(c.precision, DecimalBase.ROUND_FLOOR),
      );
      expect(c.minAmount, c.ticker).toBe(min.toFixed(c.precision));
      expect(c.maxAmount, c.ticker).toBe(max.toFixed(c.precision));
      // the floor really is worth at least the USD floor, the cap at most the USD cap
      if (!o) {
        expect(new Decimal(c.minAmount).mul(p).gte(MIN_USD), c.ticker).toBe(true);
        expect(new Decimal(c.maxAmount).mul(p).lte(MAX_USD), c.ticker).toBe(true);
      }
    }
  });

  it("computeLimits rounds at precision and honours overrides", () => {
    expect(computeLimits("3", 2, null)).toEqual({ minAmount: "6.67", maxAmount: "16666.66" });
    expect(computeLimits("71486", 8, null)).toEqual({ minAmount: "0.00027978", maxAmount: "0.69943765" });
    expect(computeLimits("2", 0, null)).toEqual({ minAmount: "10", maxAmount: "25000" });
    expect(computeLimits("1", 6, { minUsd: "50" }).minAmount).toBe("50.000000");
    expect(computeLimits("1", 6, { maxAmount: "1000" }).maxAmount).toBe("1000.000000");
    expect(() => computeLimits("0", 2, null)).toThrow();
    expect(() => computeLimits("1", 2, { minAmount: "0.001" })).toThrow();
  });
});
