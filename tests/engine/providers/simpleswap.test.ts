import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { D } from "@/lib/money/decimal";
import { ProviderError } from "@/lib/providers/http";
import { SimpleSwapAdapter } from "@/lib/providers/simpleswap";
import { FakeSimpleSwap } from "../../support/fake-providers/simpleswap";
import { codeOf, cur, engineWith, snapshot } from "./helpers";

// The SimpleSwap v3 adapter against its fake (written from the reference, section 5):
// x-api-key, {result} bodies, ticker + network lower case, /ranges then /estimates (fixed,
// with a rateId), the exchange made from the rateId with refund address and memos, every
// status of the reference, the documented HTTP errors, and its per-key commission.

let fake: FakeSimpleSwap;
let sw: SimpleSwapAdapter;
const BTC = { ticker: "btc", network: "btc" };
const ETH = { ticker: "eth", network: "eth" };
const XRP = { ticker: "xrp", network: "xrp" };

beforeAll(async () => {
  fake = await new FakeSimpleSwap().start();
  fake.setPair("btc@btc", "eth@eth", { rate: "20", min: "0.001", max: "2" });
  fake.setPair("btc@btc", "xrp@xrp", { rate: "50000", min: "0.001", max: null });
  fake.setPair("xrp@xrp", "btc@btc", { rate: "0.00002", min: "10", max: "100000" });
  sw = new SimpleSwapAdapter({
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    accountCommissionBps: 100,
    quotesPerMinute: 1000,
    // No answer in time is tested with an answer held until the test lets it go (below), so
    // this only has to outlast a loaded machine.
    timeoutMs: 120_000,
  });
});
afterAll(() => fake.kill());

const firm = (from = BTC, to = ETH, amount = "0.1") => sw.quote({ from, to, fromAmount: new D(amount), commissionBps: 25, firm: true });
const create = async (over: Partial<Parameters<SimpleSwapAdapter["createSwap"]>[0]> = {}) =>
  sw.createSwap({
    orderId: "order-1",
    from: BTC,
    to: ETH,
    fromAmount: new D("0.1"),
    commissionBps: 25,
    quote: await firm(),
    payoutAddress: "0xpayout",
    payoutExtraId: null,
    refundAddress: "bc1qrefund",
    refundExtraId: null,
    ...over,
  });

describe("SimpleSwap adapter: requests", () => {
  it("lists currencies as ticker + network with the memo flag, from {result}", async () => {
    const list = await sw.listCurrencies();
    expect(list).toContainEqual({ asset: XRP, available: true, hasMemo: true });
    expect(list).toContainEqual({ asset: BTC, available: true, hasMemo: false });
    expect(fake.requests.at(-1)!.headers["x-api-key"]).toBe(fake.apiKey);
  });

  it("quotes with /ranges then /estimates, fixed, not reverse; the rateId and validUntil come back; no commission parameter", async () => {
    const q = await firm();
    expect(q.toAmount.toFixed()).toBe("2");
    expect(q.quoteId).toMatch(/^rate-/);
    expect(q.expiresAt).toBeInstanceOf(Date);
    expect([q.minAmount?.toFixed(), q.maxAmount?.toFixed()]).toEqual(["0.001", "2"]);
    const [range, est] = fake.requests.slice(-2);
    const pair = { tickerFrom: "btc", networkFrom: "btc", tickerTo: "eth", networkTo: "eth", fixed: "true", reverse: "false" };
    expect([range.path, range.query]).toEqual(["/v3/ranges", pair]);
    expect([est.path, est.query]).toEqual(["/v3/estimates", { ...pair, amount: "0.1" }]);
    // A pair with no maximum.
    expect((await firm(BTC, XRP)).maxAmount).toBeNull();
  });

  it("creates the exchange from the rateId, with the refund address and memos; the deposit memo comes back", async () => {
    const q = await firm();
    const s = await sw.createSwap({
      orderId: "o",
      from: BTC,
      to: ETH,
      fromAmount: new D("0.1"),
      commissionBps: 25,
      quote: q,
      payoutAddress: "0xpayout",
      payoutExtraId: null,
      refundAddress: "bc1qrefund",
      refundExtraId: null,
    });
    expect(fake.requests.at(-1)!.body).toEqual({
      tickerFrom: "btc",
      networkFrom: "btc",
      tickerTo: "eth",
      networkTo: "eth",
      amount: "0.1",
      fixed: true,
      reverse: false,
      addressTo: "0xpayout",
      extraIdTo: "",
      userRefundAddress: "bc1qrefund",
      userRefundExtraId: "",
      rateId: q.quoteId,
    });
    expect(s).toMatchObject({ payinAddress: fake.exchanges.get(s.id)!.addressFrom, payinExtraId: null });
    expect(s.toAmount?.toFixed()).toBe("2");
    expect(s.expiresAt).toBeInstanceOf(Date);
    const memo = await sw.createSwap({
      orderId: "o2",
      from: XRP,
      to: BTC,
      fromAmount: new D("100"),
      commissionBps: 25,
      quote: await firm(XRP, BTC, "100"),
      payoutAddress: "bc1qpayout",
      payoutExtraId: null,
      refundAddress: "rRefund",
      refundExtraId: "77",
    });
    expect(fake.requests.at(-1)!.body).toMatchObject({ userRefundAddress: "rRefund", userRefundExtraId: "77" });
    expect(memo.payinExtraId).toMatch(/^\d+$/);
  });

  it("an exchange without a rateId is refused before any request", async () => {
    const before = fake.requests.length;
    const e = await sw
      .createSwap({
        orderId: "o",
        from: BTC,
        to: ETH,
        fromAmount: new D("0.1"),
        commissionBps: 25,
        quote: { toAmount: new D(2), minAmount: null, maxAmount: null, quoteId: null },
        payoutAddress: "0xpayout",
        payoutExtraId: null,
        refundAddress: null,
        refundExtraId: null,
      })
      .catch((x) => x);
    expect(e.kind).toBe("rejected");
    expect(fake.requests.length).toBe(before);
  });
});

describe("SimpleSwap adapter: every status of the reference", () => {
  const table: [string, string, string | null, boolean][] = [
    ["waiting", "waiting", null, false],
    ["confirming", "confirming", null, false],
    ["exchanging", "exchanging", null, false],
    ["sending", "sending", null, false],
    ["finished", "finished", null, true],
    ["failed", "failed", "provider_failed", true],
    ["refunded", "failed", "refunded", true],
    ["verifying", "exchanging", "hold", false],
    ["expired", "failed", "expired", true],
    ["constructor", "exchanging", "unknown", false],
  ];
  it.each(table)("%s -> %s (%s), final %s", async (status, state, reason, final) => {
    const address = `0xstatus${status}`;
    fake.script(address, [status]);
    const s = await create({ payoutAddress: address });
    const r = await sw.readSwap({ id: s.id, data: null });
    expect(r.status).toBe(status);
    expect(r.mapped).toEqual({ state, reason, final });
    if (status === "finished")
      expect([r.payinHash, r.payoutHash, r.amountReceived?.toFixed()]).toEqual([`sw-in-${s.id}`, `sw-out-${s.id}`, "0.1"]);
    if (status === "refunded") expect([r.payoutHash, r.refundHash, r.refundAmount?.toFixed()]).toEqual([null, `sw-out-${s.id}`, "0.1"]);
    if (status === "waiting") expect([r.payinHash, r.amountReceived]).toEqual([null, null]);
  });
});

describe("SimpleSwap adapter: the documented errors, as the API answers them", () => {
  const engine = () =>
    engineWith([sw], {
      SIMPLESWAP_ENABLED: "true",
      SIMPLESWAP_API_KEY: "k",
      SIMPLESWAP_ACCOUNT_COMMISSION_BPS: "100",
      CHANGENOW_ENABLED: "false",
      SIDESHIFT_ENABLED: "false",
      FIXEDFLOAT_ENABLED: "false",
      PROVIDERS_COOLDOWN_SECONDS: "0",
      PROVIDERS_QUOTE_CACHE_SECONDS: "0",
    });
  const quote = (amount = "0.1", markupBps = 0) =>
    engine().quote({ from: cur("btc"), to: cur("eth"), fromAmount: new D(amount), markupBps }, { scope: "t" });
  const open = (address = "0x52908400098527886E0F7030069857D2E4169EE7", refund: string | null = null) =>
    engine().openSwap(
      {
        orderId: `o${Math.random()}`,
        from: cur("btc"),
        to: cur("eth"),
        fromAmount: new D("0.1"),
        toAmount: new D("1.9"),
        payoutAddress: address,
        payoutExtraId: null,
        refundAddress: refund,
        refundExtraId: null,
        markupBps: 0,
      },
      { scope: "t" },
    );
  const onEstimate = (reply: { status: number; body: unknown }) => fake.failNext({ reply }, 1, (r) => r.path === "/v3/estimates");

  it("out of range: the range's limits reach the client", async () => {
    const low = await quote("0.0001").catch((e) => e);
    expect([low.code, low.details.minAmount.toString()]).toEqual(["AMOUNT_TOO_LOW", "0.001"]);
    const high = await quote("5").catch((e) => e);
    expect([high.code, high.details.maxAmount.toString()]).toEqual(["AMOUNT_TOO_HIGH", "2"]);
  });

  const cases: [number, string, string][] = [
    [422, "Pair is not available", "CURRENCY_UNAVAILABLE"],
    [422, "Amount is less than minimal: 0.5", "AMOUNT_TOO_LOW"],
    [400, "Invalid parameters", "ENGINE_UNAVAILABLE"],
    [401, "Wrong API key", "ENGINE_UNAVAILABLE"],
    [403, "Verification needed", "ENGINE_UNAVAILABLE"],
    [500, "Internal error", "ENGINE_UNAVAILABLE"],
  ];
  it.each(cases)("HTTP %i %s on the estimate -> %s", async (status, description, code) => {
    onEstimate({ status, body: { code: status, description } });
    expect(await codeOf(quote())).toBe(code);
    fake.clearFaults();
  });

  it("create errors name the address at fault", async () => {
    expect(await codeOf(open("invalid-payout"))).toBe("INVALID_ADDRESS");
    expect(await codeOf(open("0x52908400098527886E0F7030069857D2E4169EE7", "invalid-refund"))).toBe("INVALID_REFUND_ADDRESS");
  });

  it("429, 5xx and no answer in time are outages", async () => {
    // No answer in time: the fake holds its answer until the adapter has given up (its timeout
    // short here), so the timeout fires however slow the machine.
    let letGo!: () => void;
    const held = new Promise<void>((r) => {
      letGo = r;
    });
    const impatient = new SimpleSwapAdapter({
      baseUrl: fake.baseUrl,
      apiKey: fake.apiKey,
      accountCommissionBps: 100,
      quotesPerMinute: 1000,
      timeoutMs: 200,
    });
    try {
      for (const [f, adapter] of [
        [{ status: 429 as const }, sw],
        [{ status: 500 as const }, sw],
        [{ heldUntil: held }, impatient],
      ] as const) {
        fake.failNext(f, 1, (r) => r.path === "/v3/ranges");
        const e = await adapter.quote({ from: BTC, to: ETH, fromAmount: new D("0.1"), commissionBps: 0, firm: false }).catch((x) => x);
        expect(e).toBeInstanceOf(ProviderError);
        expect(e.kind).toBe("status" in f && f.status === 429 ? "rate_limited" : "unavailable");
        if ("heldUntil" in f) expect(e.message).toMatch(/no answer within 200 ms/);
      }
    } finally {
      letGo();
    }
  });

  it("per key: routed only when the key's reward covers fee + markup", async () => {
    expect((await quote("0.1", 75)).rate.gt(0)).toBe(true);
    const e = await quote("0.1", 76).catch((x) => x);
    expect(e.message).toMatch(/simpleswap up to 75 bps/);
  });
});

describe("SimpleSwap in the engine: an order from open to steps", () => {
  it("opens from the rateId and reads the deposit", async () => {
    const e = engineWith([sw], {
      SIMPLESWAP_ENABLED: "true",
      SIMPLESWAP_API_KEY: "k",
      SIMPLESWAP_ACCOUNT_COMMISSION_BPS: "100",
      CHANGENOW_ENABLED: "false",
      SIDESHIFT_ENABLED: "false",
      FIXEDFLOAT_ENABLED: "false",
    });
    fake.script("0xhappy", ["confirming", "exchanging", "sending", "finished"]);
    const opened = await e.openSwap(
      {
        orderId: "sw-order",
        from: cur("btc"),
        to: cur("eth"),
        fromAmount: new D("0.1"),
        toAmount: new D("1.9"),
        payoutAddress: "0xhappy",
        payoutExtraId: null,
        refundAddress: null,
        refundExtraId: null,
        markupBps: 0,
      },
      { scope: "t" },
    );
    expect(opened.upstream?.provider).toBe("simpleswap");
    const up = { provider: "simpleswap", id: opened.upstream!.id, data: null, status: null, reason: null };
    expect(await e.readSwap(snapshot({ state: "waiting", upstream: up }), { scope: "w" })).toMatchObject({
      to: "confirming",
      payinHash: `sw-in-${opened.upstream!.id}`,
      amountReceived: "0.1",
    });
  });
});
