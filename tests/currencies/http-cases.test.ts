// The four cases the HTTP tests exercise, checked at the registry level with real vectors.
import { describe, expect, it } from "vitest";
import { getCurrency, validateAddress, validateExtraId } from "../../lib/currencies/index";

describe("registry cases behind the HTTP tests", () => {
  const xrp = getCurrency("xrp")!;
  const bch = getCurrency("bch")!;
  const dot = getCurrency("dot")!;
  const ksm = getCurrency("ksm")!;

  // XRPLF/xrpl.js packages/ripple-address-codec README.md
  const XRP_ADDR = "rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpf";
  // CashAddr spec example; Bitcoin-ABC src/qt/test/uritests.cpp
  const BCH_ADDR = "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a";
  // //Alice on Kusama (ss58 prefix 2), polkadot-js tests
  const KSM_ADDR = "HNZata7iMYWmk5RvZRTiAsSDhV8366zq2YGb3tLH5Upf74F";

  it("XRP: valid address accepted, one corrupted character rejected", () => {
    expect(validateAddress(xrp, XRP_ADDR)).toBe(true);
    expect(validateAddress(xrp, `${XRP_ADDR.slice(0, 10)}X${XRP_ADDR.slice(11)}`)).toBe(false);
    expect(validateAddress(xrp, "rGWrZyQqhTp9Xu7G5Pkayo7bXjH4k4QYpg")).toBe(false);
  });

  it("XRP destination tag: 4294967295 ok, 4294967296 rejected", () => {
    expect(validateExtraId(xrp, "4294967295")).toBe(true);
    expect(validateExtraId(xrp, "0")).toBe(true);
    expect(validateExtraId(xrp, "4294967296")).toBe(false);
    expect(validateExtraId(xrp, "-1")).toBe(false);
    expect(validateExtraId(xrp, "01")).toBe(false);
    expect(validateExtraId(xrp, "abc")).toBe(false);
  });

  it("BCH CashAddr with one changed character is rejected", () => {
    expect(validateAddress(bch, BCH_ADDR)).toBe(true);
    expect(validateAddress(bch, BCH_ADDR.replace("qpm2", "qpm3"))).toBe(false);
    expect(validateAddress(bch, `${BCH_ADDR.slice(0, -1)}b`)).toBe(false);
  });

  it("a Kusama address is rejected as DOT and accepted as KSM", () => {
    expect(validateAddress(ksm, KSM_ADDR)).toBe(true);
    expect(validateAddress(dot, KSM_ADDR)).toBe(false);
  });
});
