import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { D } from "@/lib/money/decimal";
import { ChangeNowAdapter } from "@/lib/providers/changenow";
import { ProviderError } from "@/lib/providers/http";
import { FakeChangeNow } from "../../support/fake-providers/changenow";
import { codeOf, cur, engineWith, snapshot } from "./helpers";

// The ChangeNOW adapter against its fake (written from the reference, section 1): the exact
// requests it sends, every status string of the reference, every error code it lists.

let fake: FakeChangeNow;
let cn: ChangeNowAdapter;
const BTC = { ticker: "btc", network: "btc" };
const ETH = { ticker: "eth", network: "eth" };
const XRP = { ticker: "xrp", network: "xrp" };

beforeAll(async () => {
  fake = await new FakeChangeNow().start();
  fake.setPair("btc@btc", "eth@eth", { rate: "20.5", min: "0.001", max: "2" });
  fake.setPair("xrp@xrp", "btc@btc", { rate: "0.00002", min: "10", max: null });
  cn = new ChangeNowAdapter({
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    accountCommissionBps: 100,
    quotesPerMinute: 1000,
    timeoutMs: 2000,
  });
});
afterAll(() => fake.kill());

describe("ChangeNOW adapter: requests", () => {
  it("lists currencies as ticker + network with the memo flag", async () => {
    const list = await cn.listCurrencies();
    expect(list).toContainEqual({ asset: XRP, available: true, hasMemo: true });
    expect(list).toContainEqual({ asset: BTC, available: true, hasMemo: false });
    const r = fake.requestsTo("/v2/exchange/currencies").at(-1)!;
    expect(r.query).toMatchObject({ active: "true", flow: "fixed-rate" });
    expect(r.headers["x-changenow-api-key"]).toBe(fake.apiKey);
  });

  it("quotes with range + estimated-amount on the fixed-rate flow; a firm quote asks for a rateId", async () => {
    fake.requests.length = 0;
    const q = await cn.quote({ from: BTC, to: ETH, fromAmount: new D("0.1"), commissionBps: 175, firm: false });
    expect(q.toAmount.toFixed()).toBe("2.05");
    expect([q.minAmount?.toFixed(), q.maxAmount?.toFixed(), q.quoteId]).toEqual(["0.001", "2", null]);
    const [range, est] = fake.requests;
    expect([range.method, range.path, est.method, est.path]).toEqual(["GET", "/v2/exchange/range", "GET", "/v2/exchange/estimated-amount"]);
    const pair = { fromCurrency: "btc", toCurrency: "eth", fromNetwork: "btc", toNetwork: "eth", flow: "fixed-rate" };
    expect(range.query).toEqual(pair);
    // No commission parameter: ChangeNOW's commission is per account.
    expect(est.query).toEqual({ ...pair, fromAmount: "0.1", type: "direct", useRateId: "false" });
    for (const r of fake.requests) expect(r.headers["x-changenow-api-key"]).toBe(fake.apiKey);
    const firm = await cn.quote({ from: BTC, to: ETH, fromAmount: new D("0.1"), commissionBps: 175, firm: true });
    expect(fake.requests.at(-1)!.query.useRateId).toBe("true");
    expect(firm.quoteId).toMatch(/^rate/);
    expect(firm.expiresAt!.getTime()).toBeGreaterThan(Date.now());
  });

  it("creates the exchange with the payout and refund addresses, both extra IDs and the rateId; passes the deposit memo back", async () => {
    const firm = await cn.quote({ from: XRP, to: BTC, fromAmount: new D("100"), commissionBps: 25, firm: true });
    fake.requests.length = 0;
    const swap = await cn.createSwap({
      orderId: "order1",
      from: XRP,
      to: BTC,
      fromAmount: new D("100"),
      commissionBps: 25,
      quote: firm,
      payoutAddress: "bc1qpayout",
      payoutExtraId: null,
      refundAddress: "rRefundAddress",
      refundExtraId: "4242",
    });
    const [req] = fake.requests;
    expect([req.method, req.path, req.headers["content-type"], req.headers["x-changenow-api-key"]]).toEqual([
      "POST",
      "/v2/exchange",
      "application/json",
      fake.apiKey,
    ]);
    expect(req.body).toEqual({
      fromCurrency: "xrp",
      fromNetwork: "xrp",
      toCurrency: "btc",
      toNetwork: "btc",
      fromAmount: "100",
      toAmount: "",
      address: "bc1qpayout",
      extraId: "",
      refundAddress: "rRefundAddress",
      refundExtraId: "4242",
      flow: "fixed-rate",
      type: "direct",
      rateId: firm.quoteId,
    });
    expect(swap.payinAddress).toBe(fake.orders.get(swap.id)!.payinAddress);
    expect(swap.payinExtraId).toBe(fake.orders.get(swap.id)!.payinExtraId);
    expect(swap.payinExtraId).toMatch(/^\d+$/);
    expect(swap.toAmount?.toFixed()).toBe("0.002");
    const r = await cn.readSwap({ id: swap.id, data: null });
    expect(fake.requests.at(-1)!.query).toEqual({ id: swap.id });
    expect(r.status).toBe("new");
  });
});

describe("ChangeNOW adapter: every status of the reference", () => {
  // From the reference's table: status -> our state, reason, final.
  const table: [string, string, string | null, boolean][] = [
    ["new", "waiting", null, false],
    ["waiting", "waiting", null, false],
    ["confirming", "confirming", null, false],
    ["exchanging", "exchanging", null, false],
    ["sending", "sending", null, false],
    ["finished", "finished", null, true],
    ["failed", "failed", "provider_failed", true],
    ["refunded", "failed", "refunded", true],
    ["verifying", "exchanging", "hold", false],
    ["expired", "failed", "expired", true],
    ["deleted", "exchanging", "unknown", false],
    ["constructor", "exchanging", "unknown", false],
  ];
  it.each(table)("%s -> %s (%s), final %s", async (status, state, reason, final) => {
    const firm = await cn.quote({ from: BTC, to: ETH, fromAmount: new D("0.5"), commissionBps: 25, firm: true });
    const address = `0xstatus${status}`;
    fake.script(address, [status]);
    const swap = await cn.createSwap({
      orderId: `o-${status}`,
      from: BTC,
      to: ETH,
      fromAmount: new D("0.5"),
      commissionBps: 25,
      quote: firm,
      payoutAddress: address,
      payoutExtraId: null,
      refundAddress: null,
      refundExtraId: null,
    });
    const r = await cn.readSwap({ id: swap.id, data: null });
    expect(r.status).toBe(status);
    expect(r.mapped).toEqual({ state, reason, final });
    if (status === "finished") expect(r.payoutHash).toBe(`cn-out-${swap.id}`);
    if (status === "refunded") expect([r.refundHash, r.refundAmount?.toFixed()]).toEqual([`cn-refund-${swap.id}`, "0.5"]);
  });
});

describe("ChangeNOW adapter: every error of the reference, as the API answers it", () => {
  const engine = () =>
    engineWith([cn], {
      CHANGENOW_ACCOUNT_COMMISSION_BPS: "100",
      SIDESHIFT_ENABLED: "false",
      FIXEDFLOAT_ENABLED: "false",
      PROVIDERS_COOLDOWN_SECONDS: "0",
      PROVIDERS_QUOTE_CACHE_SECONDS: "0",
    });
  const quote = (amount = "0.1") =>
    engine().quote({ from: cur("btc"), to: cur("eth"), fromAmount: new D(amount), markupBps: 0 }, { scope: "t" });
  const open = () =>
    engine().openSwap(
      {
        orderId: `o${Math.random()}`,
        from: cur("btc"),
        to: cur("eth"),
        fromAmount: new D("0.1"),
        toAmount: new D("2"),
        payoutAddress: "0xpayout",
        payoutExtraId: null,
        refundAddress: "bc1qrefund",
        refundExtraId: null,
        markupBps: 0,
      },
      { scope: "t" },
    );
  const onEstimate = (reply: { status: number; body: unknown }) =>
    fake.failNext({ reply }, 1, (r) => r.path === "/v2/exchange/estimated-amount");
  const onCreate = (reply: { status: number; body: unknown }) =>
    fake.failNext({ reply }, 1, (r) => r.path === "/v2/exchange" && r.method === "POST");

  // [error code, message, HTTP status, where, the API code the client gets]
  const cases: [string, string, number, "estimate" | "create", string][] = [
    ["not_valid_params", "Currency t is not supported", 400, "estimate", "CURRENCY_UNAVAILABLE"],
    ["not_valid_params", "toCurrency is required", 400, "estimate", "ENGINE_UNAVAILABLE"],
    ["bad_params", "Bad params", 400, "estimate", "ENGINE_UNAVAILABLE"],
    ["not_found", "Exchange not found", 404, "estimate", "ENGINE_UNAVAILABLE"],
    ["not_available", "Not available", 400, "estimate", "CURRENCY_UNAVAILABLE"],
    ["forbidden", "The transaction was made from another api key", 403, "estimate", "ENGINE_UNAVAILABLE"],
    ["out_of_range", "Amount is less then minimal: 0.5 BTC", 400, "estimate", "AMOUNT_TOO_LOW"],
    ["deposit_too_small", "Deposit too small", 400, "estimate", "AMOUNT_TOO_LOW"],
    ["pair_is_inactive", "Pair is inactive", 400, "estimate", "CURRENCY_UNAVAILABLE"],
    ["fixed_rate_not_enabled", "Fixed rate is not enabled", 400, "estimate", "CURRENCY_UNAVAILABLE"],
    ["invalid_api_key", "Use private key for this endpoint", 403, "estimate", "ENGINE_UNAVAILABLE"],
    ["rate_id_not_found_or_expired", "Rate id not found or expired", 400, "create", "ENGINE_UNAVAILABLE"],
    ["not_valid_address", "Invalid address", 400, "create", "INVALID_ADDRESS"],
    ["not_valid_address", "Invalid refund address", 400, "create", "INVALID_REFUND_ADDRESS"],
    ["not_valid_params", "Invalid extraId", 400, "create", "INVALID_EXTRA_ID"],
  ];
  it.each(cases)("%s (%s, HTTP %i) on %s -> %s", async (error, message, status, where, code) => {
    (where === "estimate" ? onEstimate : onCreate)({ status, body: { error, message } });
    expect(await codeOf(where === "estimate" ? quote() : open())).toBe(code);
    fake.clearFaults();
  });

  it("the minimum in an out_of_range message reaches the client", async () => {
    onEstimate({ status: 400, body: { error: "out_of_range", message: "Amount is less then minimal: 0.0223925 BTC" } });
    const e = await quote("0.01").catch((x) => x);
    expect(e.code).toBe("AMOUNT_TOO_LOW");
    expect(e.details.minAmount.toString()).toBe("0.0223925");
  });

  it("429, 5xx and no answer in time are outages (ENGINE_UNAVAILABLE), never amount errors", async () => {
    for (const f of [{ status: 429 as const }, { status: 500 as const }, { hangMs: 3000 }]) {
      fake.failNext(f, 1, (r) => r.path === "/v2/exchange/range");
      const err = await cn.quote({ from: BTC, to: ETH, fromAmount: new D("0.1"), commissionBps: 0, firm: false }).catch((e) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.kind).toBe("status" in f && f.status === 429 ? "rate_limited" : "unavailable");
      expect(err.isOutage).toBe(true);
    }
  });
});

describe("ChangeNOW in the engine: status to steps", () => {
  it("an order that reads `refunded` fails with the refund's hash; `verifying` holds it in exchanging", async () => {
    const e = engineWith([cn], { SIDESHIFT_ENABLED: "false", FIXEDFLOAT_ENABLED: "false" });
    const firm = await cn.quote({ from: BTC, to: ETH, fromAmount: new D("0.5"), commissionBps: 25, firm: true });
    fake.script("0xrefund-me", ["confirming", "verifying", "refunded"]);
    const s = await cn.createSwap({
      orderId: "x",
      from: BTC,
      to: ETH,
      fromAmount: new D("0.5"),
      commissionBps: 25,
      quote: firm,
      payoutAddress: "0xrefund-me",
      payoutExtraId: null,
      refundAddress: "bc1qrefund",
      refundExtraId: null,
    });
    const up = { provider: "changenow", id: s.id, data: null, status: "new", reason: null };
    const snap = snapshot({ state: "waiting", upstream: up });
    expect(await e.readSwap(snap, { scope: "w" })).toMatchObject({ to: "confirming", payinHash: `cn-in-${s.id}`, amountReceived: "0.5" });
    const held = await e.readSwap({ ...snap, state: "confirming", upstream: { ...up, status: "confirming" } }, { scope: "w" });
    expect(held).toMatchObject({ to: "exchanging", upstream: { status: "verifying", reason: "hold" } });
    const failed = await e.readSwap(
      { ...snap, state: "exchanging", upstream: { ...up, status: "verifying", reason: "hold" } },
      { scope: "w" },
    );
    expect(failed).toEqual({
      to: "failed",
      reason: "refunded",
      refund: { amount: "0.5", hash: `cn-refund-${s.id}` },
      upstream: { status: "refunded", reason: null },
    });
  });

  it("a waiting order the provider still calls waiting long after its deadline fails as expired; before that it waits", async () => {
    const e = engineWith([cn], { SIDESHIFT_ENABLED: "false", FIXEDFLOAT_ENABLED: "false", PROVIDERS_EXPIRY_GRACE_SECONDS: "600" });
    const firm = await cn.quote({ from: BTC, to: ETH, fromAmount: new D("0.5"), commissionBps: 25, firm: true });
    fake.script("0xnever-paid", ["waiting"]);
    const s = await cn.createSwap({
      orderId: "late",
      from: BTC,
      to: ETH,
      fromAmount: new D("0.5"),
      commissionBps: 25,
      quote: firm,
      payoutAddress: "0xnever-paid",
      payoutExtraId: null,
      refundAddress: null,
      refundExtraId: null,
    });
    const up = { provider: "changenow", id: s.id, data: null, status: "waiting", reason: null };
    const justPast = snapshot({ state: "waiting", upstream: up, expiresAt: new Date(Date.now() - 60_000) });
    expect(await e.readSwap(justPast, { scope: "w" })).toBeNull();
    const longPast = snapshot({ state: "waiting", upstream: up, expiresAt: new Date(Date.now() - 601_000) });
    expect(await e.readSwap(longPast, { scope: "w" })).toEqual({
      to: "failed",
      reason: "expired",
      refund: null,
      upstream: { status: "waiting", reason: null },
    });
  });
});
