import { describe, expect, it } from "vitest";
import { getCurrency, validateAddress } from "@/lib/currencies";
import { rateAfterFee } from "@/lib/engine/rate";
import { SimulatedEngine } from "@/lib/engine/simulated";
import type { SwapSnapshot } from "@/lib/engine/types";
import { D } from "@/lib/money/decimal";
import { setSettings, withSettings } from "../support/settings";

const btc = getCurrency("btc")!;
const xmr = getCurrency("xmr")!;
const open = (orderId: string) => ({
  orderId,
  from: xmr,
  to: btc,
  fromAmount: new D(2),
  toAmount: new D("0.01"),
  payoutAddress: "x",
  payoutExtraId: null,
  refundAddress: null,
  refundExtraId: null,
  markupBps: 0,
});
const swap = (state: SwapSnapshot["state"], amountReceived: string | null = "2"): SwapSnapshot => ({
  orderId: "o1",
  state,
  fromCurrency: "xmr",
  toCurrency: "btc",
  fromAmount: "2",
  amountReceived,
  refundAddress: null,
  createdAt: new Date(),
  expiresAt: new Date(Date.now() + 3_600_000),
  upstream: null,
});

describe("the simulated engine", () => {
  it("rateAfterFee takes the platform fee off the market rate", () => {
    expect(rateAfterFee(new D(100), new D(4), 25).toFixed()).toBe("24.9375");
    expect(rateAfterFee(new D(1), new D(3), 0).toFixed()).toBe("0.33333333333333333333333333333333");
  });

  it("quotes the pair's rate after the fee, and a new fee applies to the next quote (the rate is kept per pair)", async () => {
    const e = new SimulatedEngine();
    const ctx = { scope: "t" };
    const rate = async () => (await e.quote({ from: xmr, to: btc, fromAmount: null, markupBps: 0 }, ctx)).rate.toFixed();
    await withSettings({ PLATFORM_FEE_BPS: "25" }, async () => {
      expect(await rate()).toBe(rateAfterFee(new D(xmr.priceUsd), new D(btc.priceUsd), 25).toFixed());
      expect(await rate()).toBe(rateAfterFee(new D(xmr.priceUsd), new D(btc.priceUsd), 25).toFixed());
      setSettings({ PLATFORM_FEE_BPS: "100" });
      expect(await rate()).toBe(rateAfterFee(new D(xmr.priceUsd), new D(btc.priceUsd), 100).toFixed());
      // The reverse pair is its own.
      const back = (await e.quote({ from: btc, to: xmr, fromAmount: null, markupBps: 0 }, ctx)).rate.toFixed();
      expect(back).toBe(rateAfterFee(new D(btc.priceUsd), new D(xmr.priceUsd), 100).toFixed());
    });
  });

  it("quotes each source currency's own limits, the same on every call, and a changed currency's new ones", async () => {
    const e = new SimulatedEngine();
    const ctx = { scope: "t" };
    const limits = async (from: typeof btc) => {
      const t = await e.quote({ from, to: from === btc ? xmr : btc, fromAmount: null, markupBps: 0 }, ctx);
      return [t.minAmount.toFixed(), t.maxAmount.toFixed()];
    };
    const own = (c: typeof btc) => [new D(c.minAmount).toFixed(), new D(c.maxAmount).toFixed()];
    expect(own(btc)).not.toEqual(own(xmr));
    for (let i = 0; i < 2; i++) expect([await limits(btc), await limits(xmr)]).toEqual([own(btc), own(xmr)]);
    const changed = Object.freeze({ ...btc, minAmount: "0.5", maxAmount: "7" });
    expect([await limits(changed), await limits(btc)]).toEqual([["0.5", "7"], own(btc)]);
  });

  it("opens one deposit per order id: asking again gives the same address, another order another one", async () => {
    const e = new SimulatedEngine();
    const a = await e.openSwap(open("aaaa"), { scope: "t" });
    expect(validateAddress(xmr, a.payinAddress)).toBe(true);
    expect(await e.openSwap(open("aaaa"), { scope: "t" })).toEqual(a);
    expect((await e.openSwap(open("bbbb"), { scope: "t" })).payinAddress).not.toBe(a.payinAddress);
    expect(e.callsFor("aaaa").map((c) => [c.method, c.outcome])).toEqual([
      ["openSwap", "ok"],
      ["openSwap", "ok"],
    ]);
  });

  it("reads a swap one state further each time, and fails a deposit outside the limits", async () => {
    const e = new SimulatedEngine();
    const ctx = { scope: "t" };
    expect(await e.readSwap(swap("waiting"), ctx)).toBeNull();
    expect(await e.readSwap(swap("confirming"), ctx)).toEqual({ to: "exchanging" });
    expect(await e.readSwap(swap("exchanging"), ctx)).toMatchObject({ to: "sending", payoutHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await e.readSwap(swap("sending"), ctx)).toEqual({ to: "finished" });
    expect(await e.readSwap(swap("confirming", "0.000000001"), ctx)).toEqual({
      to: "failed",
      reason: "deposit_below_minimum",
      refund: { amount: "0.000000001", hash: null },
    });
    expect(e.callsFor("o1").map((c) => c.state)).toEqual(["waiting", "confirming", "exchanging", "sending", "confirming"]);
  });

  it("the sandbox fault switch fails the caller's calls only, and the call log says so", async () => {
    const e = new SimulatedEngine();
    e.setFault("reseller:r1", "error");
    await expect(e.readSwap(swap("confirming"), { scope: "reseller:r1" })).rejects.toThrow(/sandbox fault switch/);
    expect(await e.readSwap(swap("confirming"), { scope: "reseller:r2" })).toEqual({ to: "exchanging" });
    e.setFault("reseller:r1", "unavailable");
    await expect(e.quote({ from: xmr, to: btc, fromAmount: null }, { scope: "reseller:r1" })).rejects.toMatchObject({
      code: "ENGINE_UNAVAILABLE",
    });
    expect(e.callsFor("o1").map((c) => c.outcome)).toEqual(["error", "ok"]);
  });
});
