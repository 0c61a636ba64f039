import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getConfig } from "@/lib/config";
import { ProvidersEngine } from "@/lib/engine/providers/engine";
import { D } from "@/lib/money/decimal";
import { type Fakes, startFakes } from "../../support/fake-providers";
import { withSettings } from "../../support/settings";
import { cur } from "./helpers";

// Best rate across all five providers (issue 31): the engine built from settings (the real
// adapters, as createAdapters makes them) against the five fakes. Every enabled provider is
// asked; the one paying the user most wins the estimate and gets the order; when the rates
// move, the winner moves with them. ChangeNOW, Exolix and SimpleSwap take their commission on
// the account (their quote is what the user gets); SideShift and FixedFloat take fee + markup
// off their quote.

let fakes: Fakes;

beforeAll(async () => {
  fakes = await startFakes();
  fakes.sideshift.quotesPerMinute = 10_000;
  fakes.sideshift.shiftsPerMinute = 10_000;
});
afterAll(() => fakes.stop());

const engine = () =>
  withSettings(
    { ...fakes.env({ all: true }), LOG_LEVEL: "silent", PROVIDERS_QUOTE_CACHE_SECONDS: "0", PROVIDERS_COOLDOWN_SECONDS: "0" },
    () => new ProvidersEngine(getConfig()),
  );

const ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7";
const creates = () => ({
  changenow: fakes.changenow.requestsTo("/v2/exchange", (r) => r.method === "POST").length,
  sideshift: fakes.sideshift.requestsTo("/api/v2/shifts/fixed").length,
  fixedfloat: fakes.fixedfloat.requestsTo("/api/v2/create").length,
  exolix: fakes.exolix.requestsTo("/api/v2/transactions", (r) => r.method === "POST").length,
  simpleswap: fakes.simpleswap.requestsTo("/v3/exchanges", (r) => r.method === "POST").length,
});
const quotesAsked = () => ({
  changenow: fakes.changenow.requestsTo("/v2/exchange/estimated-amount").length,
  sideshift: fakes.sideshift.requestsTo("/api/v2/quotes").length,
  fixedfloat: fakes.fixedfloat.requestsTo("/api/v2/price").length,
  exolix: fakes.exolix.requestsTo("/api/v2/rate").length,
  simpleswap: fakes.simpleswap.requestsTo("/v3/estimates").length,
});

async function bestAndOrder(e: ProvidersEngine, orderId: string) {
  const before = { quotes: quotesAsked(), creates: creates() };
  const terms = await e.quote(
    { from: cur("btc"), to: cur("eth"), fromAmount: new D("0.1"), markupBps: 0 },
    { scope: "t", clientIp: "203.0.113.1" },
  );
  const asked = Object.entries(quotesAsked())
    .filter(([k, n]) => n > before.quotes[k as keyof typeof before.quotes])
    .map(([k]) => k);
  const opened = await e.openSwap(
    {
      orderId,
      from: cur("btc"),
      to: cur("eth"),
      fromAmount: new D("0.1"),
      toAmount: new D("1"),
      payoutAddress: ADDRESS,
      payoutExtraId: null,
      refundAddress: null,
      refundExtraId: null,
      markupBps: 0,
    },
    { scope: "t", clientIp: "203.0.113.1" },
  );
  const created = Object.entries(creates())
    .filter(([k, n]) => n > before.creates[k as keyof typeof before.creates])
    .map(([k]) => k);
  return { rate: terms.rate.toFixed(), asked: asked.sort(), provider: opened.upstream?.provider, created };
}

describe("five providers: the best rate wins", () => {
  const ALL = ["changenow", "exolix", "fixedfloat", "sideshift", "simpleswap"];

  it("SimpleSwap pays most: every provider is asked, SimpleSwap quotes and gets the order", async () => {
    fakes.setPair(
      "btc",
      "eth",
      { changenow: "20", sideshift: "20.3", fixedfloat: "20.1", exolix: "20.2", simpleswap: "20.35" },
      { min: "0.001", max: "2" },
    );
    const r = await bestAndOrder(engine(), "five-1");
    expect(r).toEqual({ rate: "20.35", asked: ALL, provider: "simpleswap", created: ["simpleswap"] });
  });

  it("the rates move: Exolix pays most, and gets the order", async () => {
    fakes.setPair(
      "btc",
      "eth",
      { changenow: "20", sideshift: "20.3", fixedfloat: "20.1", exolix: "20.5", simpleswap: "19" },
      { min: "0.001", max: "2" },
    );
    const r = await bestAndOrder(engine(), "five-2");
    expect(r).toEqual({ rate: "20.5", asked: ALL, provider: "exolix", created: ["exolix"] });
  });

  it("SideShift's quote, with its 0.25% commission taken off, beats the rest", async () => {
    fakes.setPair(
      "btc",
      "eth",
      { changenow: "20", sideshift: "21", fixedfloat: "20.1", exolix: "20.5", simpleswap: "19" },
      { min: "0.001", max: "2" },
    );
    const r = await bestAndOrder(engine(), "five-3");
    // 0.1 x 21 x (1 - 0.0025) = 2.09475
    expect(r).toEqual({ rate: "20.9475", asked: ALL, provider: "sideshift", created: ["sideshift"] });
  });

  it("the best one down: the next best gets the order", async () => {
    fakes.setPair(
      "btc",
      "eth",
      { changenow: "20", sideshift: "20.3", fixedfloat: "20.1", exolix: "20.2", simpleswap: "20.35" },
      { min: "0.001", max: "2" },
    );
    fakes.simpleswap.failNext({ status: 500 }, 1, (q) => q.path === "/v3/exchanges");
    const r = await bestAndOrder(engine(), "five-4");
    // SideShift next: 20.3 x 0.9975 = 20.24925 > Exolix 20.2.
    expect([r.rate, r.provider]).toEqual(["20.35", "sideshift"]);
  });
});
