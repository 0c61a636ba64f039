// Extra-ID formats (currencies.md): destination tag, memo, comment, transfer id.
import { describe, expect, it } from "vitest";
import { generateAddress, getCurrency, listCurrencies, validateExtraId } from "../../lib/currencies/index";

const c = (t: string) => getCurrency(t)!;

describe("extra IDs", () => {
  it("XRP destination tag: uint32, canonical decimal", () => {
    for (const ok of ["0", "1", "123456", "4294967295"]) expect(validateExtraId(c("xrp"), ok), ok).toBe(true);
    for (const bad of ["4294967296", "-1", "1.5", "01", " 1", "1 ", "", "0x10", "1e3", "abc", "99999999999999999999999"]) {
      expect(validateExtraId(c("xrp"), bad), bad).toBe(false);
    }
  });

  it("Stellar memo: text <= 28 bytes, uint64 id, or 32-byte hash", () => {
    const xlm = c("xlm");
    expect(validateExtraId(xlm, "a".repeat(28))).toBe(true);
    expect(validateExtraId(xlm, "a".repeat(29))).toBe(false);
    expect(validateExtraId(xlm, "18446744073709551615")).toBe(true); // MEMO_ID max
    expect(validateExtraId(xlm, "é".repeat(14))).toBe(true); // 28 bytes
    expect(validateExtraId(xlm, "é".repeat(15))).toBe(false); // 30 bytes
    expect(validateExtraId(xlm, "ab".repeat(32))).toBe(true); // MEMO_HASH
    expect(validateExtraId(c("usdcxlm"), "12345")).toBe(true);
  });

  it("TON comment <= 123 bytes", () => {
    expect(validateExtraId(c("ton"), "x".repeat(123))).toBe(true);
    expect(validateExtraId(c("ton"), "x".repeat(124))).toBe(false);
    expect(validateExtraId(c("usdtton"), "hello")).toBe(true);
  });

  it("EOS-family and Cosmos memos <= 256 bytes; HBAR memo <= 100 bytes", () => {
    expect(validateExtraId(c("eos"), "m".repeat(256))).toBe(true);
    expect(validateExtraId(c("eos"), "m".repeat(257))).toBe(false);
    expect(validateExtraId(c("atom"), "m".repeat(256))).toBe(true);
    expect(validateExtraId(c("atom"), "m".repeat(257))).toBe(false);
    expect(validateExtraId(c("hbar"), "m".repeat(100))).toBe(true);
    expect(validateExtraId(c("hbar"), "m".repeat(101))).toBe(false);
  });

  it("STX memo <= 34 bytes; CSPR transfer id and ICP memo uint64", () => {
    expect(validateExtraId(c("stx"), "m".repeat(34))).toBe(true);
    expect(validateExtraId(c("stx"), "m".repeat(35))).toBe(false);
    expect(validateExtraId(c("cspr"), "18446744073709551615")).toBe(true);
    expect(validateExtraId(c("cspr"), "18446744073709551616")).toBe(false);
    expect(validateExtraId(c("cspr"), "memo")).toBe(false);
    expect(validateExtraId(c("icp"), "42")).toBe(true);
  });

  it("BNB Beacon memo pattern", () => {
    expect(validateExtraId(c("bnbbep2"), "Abc-_123")).toBe(true);
    expect(validateExtraId(c("bnbbep2"), "a b")).toBe(false);
    expect(validateExtraId(c("bnbbep2"), "x".repeat(121))).toBe(false);
  });

  it("text memos reject control characters, lone surrogates and surrounding whitespace", () => {
    for (const bad of ["a\u0000b", "line\nbreak", "\ud800", " lead", "trail ", ""])
      expect(validateExtraId(c("atom"), bad), JSON.stringify(bad)).toBe(false);
  });

  it("currencies without extra IDs reject every value", () => {
    for (const t of ["btc", "eth", "xmr", "sol", "trx", "ada", "dot", "near", "algo", "usdterc20"]) {
      expect(c(t).hasExtraId).toBe(false);
      for (const v of ["0", "1", "memo", "4294967295"]) expect(validateExtraId(c(t), v)).toBe(false);
    }
  });

  it("generated deposit addresses carry a valid extra ID exactly when the currency has one", () => {
    for (const cur of listCurrencies()) {
      const g = generateAddress(cur);
      if (cur.hasExtraId) {
        expect(g.extraId, cur.ticker).not.toBeNull();
        expect(validateExtraId(cur, g.extraId!), cur.ticker).toBe(true);
      } else {
        expect(g.extraId, cur.ticker).toBeNull();
      }
    }
  });
});
