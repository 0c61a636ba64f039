import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { D } from "@/lib/money/decimal";
import { SideShiftAdapter } from "@/lib/providers/sideshift";
import { FakeSideShift } from "../../support/fake-providers/sideshift";
import { codeOf, cur, engineWith, snapshot } from "./helpers";

// The SideShift adapter against its fake (written from the reference, section 2): secret,
// user IP and affiliate id on the right calls, commissionRate = fee + markup, a quote then a
// fixed shift with refund address and memos, every status and every listed error message.

let fake: FakeSideShift;
let ss: SideShiftAdapter;
const BTC = { coin: "btc", network: "bitcoin" };
const ETH = { coin: "eth", network: "ethereum" };
const XRP = { coin: "xrp", network: "ripple" };
const IP = "203.0.113.7";

beforeAll(async () => {
  fake = await new FakeSideShift().start();
  fake.setPair("btc-bitcoin", "eth-ethereum", { rate: "20", min: "0.001", max: "2" });
  fake.setPair("btc-bitcoin", "xrp-ripple", { rate: "50000", min: "0.001", max: "2" });
  fake.setPair("xrp-ripple", "btc-bitcoin", { rate: "0.00002", min: "10", max: "100000" });
  // The documented limits (20 quotes, 5 shifts a minute) are tested over HTTP; here they would only get in the way.
  fake.quotesPerMinute = 10_000;
  fake.shiftsPerMinute = 10_000;
  ss = new SideShiftAdapter({
    baseUrl: fake.baseUrl,
    secret: fake.secret,
    affiliateId: fake.affiliateId,
    quotesPerMinute: 1000,
    timeoutMs: 2000,
  });
});
afterAll(() => fake.kill());

const firmQuote = (from = BTC, to = ETH, amount = "0.1", bps = 175) =>
  ss.quote({ from, to, fromAmount: new D(amount), commissionBps: bps, userIp: IP, firm: true });

describe("SideShift adapter: requests", () => {
  it("lists coins per network with the memo networks", async () => {
    const list = await ss.listCurrencies();
    expect(list).toContainEqual({ asset: XRP, available: true, hasMemo: true });
    expect(list).toContainEqual({ asset: BTC, available: true, hasMemo: false });
  });

  it("quotes: /pair for the limits, then POST /quotes with affiliateId, commissionRate = fee + markup, secret and the user's IP", async () => {
    fake.requests.length = 0;
    const q = await firmQuote();
    // The fake lowers the output by the commission: 0.1 x 20 x (1 - 0.0175).
    expect(q.toAmount.toFixed()).toBe("1.965");
    expect([q.minAmount?.toFixed(), q.maxAmount?.toFixed()]).toEqual(["0.001", "2"]);
    const [pair, quote] = fake.requests;
    expect([pair.method, pair.path]).toEqual(["GET", "/api/v2/pair/btc-bitcoin/eth-ethereum"]);
    expect(pair.query).toEqual({ affiliateId: fake.affiliateId, commissionRate: "0.0175" });
    expect([quote.method, quote.path, quote.headers["x-sideshift-secret"], quote.headers["x-user-ip"]]).toEqual([
      "POST",
      "/api/v2/quotes",
      fake.secret,
      IP,
    ]);
    expect(quote.body).toEqual({
      depositCoin: "btc",
      depositNetwork: "bitcoin",
      settleCoin: "eth",
      settleNetwork: "ethereum",
      depositAmount: "0.1",
      settleAmount: null,
      affiliateId: fake.affiliateId,
      commissionRate: "0.0175",
    });
    expect(q.quoteId).toBe([...fake.quotes.keys()].at(-1));
  });

  it("creates a fixed shift from the quote with settle memo, refund address and refund memo; the deposit memo comes back", async () => {
    const q = await firmQuote(XRP, BTC, "100", 25);
    fake.requests.length = 0;
    const s = await ss.createSwap({
      orderId: "order-77",
      from: XRP,
      to: BTC,
      fromAmount: new D("100"),
      commissionBps: 25,
      quote: q,
      payoutAddress: "bc1qpayout",
      payoutExtraId: null,
      refundAddress: "rRefund",
      refundExtraId: "99",
      userIp: IP,
    });
    const [req] = fake.requests;
    expect([req.method, req.path, req.headers["x-sideshift-secret"], req.headers["x-user-ip"]]).toEqual([
      "POST",
      "/api/v2/shifts/fixed",
      fake.secret,
      IP,
    ]);
    expect(req.body).toEqual({
      settleAddress: "bc1qpayout",
      affiliateId: fake.affiliateId,
      quoteId: q.quoteId,
      externalId: "order-77",
      refundAddress: "rRefund",
      refundMemo: "99",
    });
    expect(s.payinExtraId).toBe(fake.shifts.get(s.id)!.depositMemo);
    expect(s.payinExtraId).toMatch(/^\d+$/);
    const q2 = await firmQuote(BTC, XRP, "0.1", 25);
    await ss.createSwap({
      orderId: "order-78",
      from: BTC,
      to: XRP,
      fromAmount: new D("0.1"),
      commissionBps: 25,
      quote: q2,
      payoutAddress: "rPayout",
      payoutExtraId: "12345",
      refundAddress: null,
      refundExtraId: null,
      userIp: IP,
    });
    expect(fake.requests.at(-1)!.body).toEqual({
      settleAddress: "rPayout",
      settleMemo: "12345",
      affiliateId: fake.affiliateId,
      quoteId: q2.quoteId,
      externalId: "order-78",
    });
  });
});

async function shiftReading(steps: any[], refundAddress: string | null = "bc1qrefund") {
  const q = await firmQuote(BTC, ETH, "0.5", 25);
  const address = `0x${Math.random().toString(16).slice(2)}`;
  fake.script(address, steps);
  const s = await ss.createSwap({
    orderId: "o",
    from: BTC,
    to: ETH,
    fromAmount: new D("0.5"),
    commissionBps: 25,
    quote: q,
    payoutAddress: address,
    payoutExtraId: null,
    refundAddress,
    refundExtraId: null,
    userIp: IP,
  });
  return { id: s.id, reading: await ss.readSwap({ id: s.id, data: null }) };
}

describe("SideShift adapter: every status of the reference", () => {
  const table: [string, string, string | null, boolean][] = [
    ["waiting", "waiting", null, false],
    ["pending", "confirming", null, false],
    ["processing", "exchanging", null, false],
    ["review", "exchanging", "hold", false],
    ["settling", "sending", null, false],
    ["settled", "finished", null, true],
    ["refund", "failed", "refunding", false],
    ["refunding", "failed", "refunding", false],
    ["refunded", "failed", "refunded", true],
    ["expired", "failed", "expired", true],
    ["dead", "exchanging", "unknown", false],
  ];
  it.each(table)("%s -> %s (%s), final %s", async (status, state, reason, final) => {
    const { id, reading } = await shiftReading([status]);
    expect(reading.mapped).toEqual({ state, reason, final });
    if (status === "settled") expect(reading.payoutHash).toBe(`ss-out-${id}`);
    if (status === "pending") expect([reading.payinHash, reading.amountReceived?.toFixed()]).toEqual([`ss-in-${id}`, "0.5"]);
    if (status === "waiting") expect(reading.amountReceived).toBeNull(); // a fixed shift names its amount before any deposit
  });

  it("refund without a refund address needs action", async () => {
    const { reading } = await shiftReading(["refund"], null);
    expect(reading.mapped).toEqual({ state: "failed", reason: "needs_action", final: false });
  });

  it("refunded: the refund hash is read from refundHash or, failing that, settleHash", async () => {
    const a = await shiftReading(["refunded"]);
    expect(a.reading.refundHash).toBe(`ss-refund-${a.id}`);
    expect(a.reading.payoutHash).toBeNull();
    const b = await shiftReading([{ status: "refunded", refundHash: "explicit-refund-hash" }]);
    expect(b.reading.refundHash).toBe("explicit-refund-hash");
  });

  it("multiple: a fixed shift follows its first deposit", async () => {
    const { reading } = await shiftReading([
      {
        status: "multiple",
        deposits: [
          { status: "settled", depositHash: "d1", settleHash: "s1", depositAmount: "0.5", depositReceivedAt: "2026-01-01T00:00:00Z" },
          { status: "refunded", depositHash: "d2", depositAmount: "0.1", depositReceivedAt: "2026-01-01T00:00:00Z" },
        ],
      },
    ]);
    expect(reading.mapped).toEqual({ state: "finished", reason: null, final: true });
    expect([reading.payinHash, reading.payoutHash, reading.status]).toEqual(["d1", "s1", "multiple/settled"]);
  });
});

describe("SideShift adapter: every error of the reference, as the API answers it", () => {
  const engine = () =>
    engineWith([ss], {
      SIDESHIFT_SECRET: fake.secret,
      SIDESHIFT_AFFILIATE_ID: fake.affiliateId,
      CHANGENOW_ENABLED: "false",
      FIXEDFLOAT_ENABLED: "false",
      PROVIDERS_COOLDOWN_SECONDS: "0",
      PROVIDERS_QUOTE_CACHE_SECONDS: "0",
    });
  const quote = (amount = "0.1") =>
    engine().quote({ from: cur("btc"), to: cur("eth"), fromAmount: new D(amount), markupBps: 0 }, { scope: "t", clientIp: IP });
  const open = (refundAddress = "bc1qrefund", payoutAddress = "0x1111111111111111111111111111111111111111") =>
    engine().openSwap(
      {
        orderId: `o${Math.random()}`,
        from: cur("btc"),
        to: cur("eth"),
        fromAmount: new D("0.1"),
        toAmount: new D("1"),
        payoutAddress,
        payoutExtraId: null,
        refundAddress,
        refundExtraId: null,
        markupBps: 0,
      },
      { scope: "t", clientIp: IP },
    );
  const inject = (path: string, status: number, message: string, code?: string) =>
    fake.failNext({ reply: { status, body: { error: code ? { code, message } : { message } } } }, 1, (r) => r.path === path);

  // [message, code, HTTP status, path, the API code the client gets]
  const cases: [string, string | undefined, number, string, "quote" | "open", string][] = [
    ["Invalid receiving address", "BAD_USER_INPUT", 400, "/api/v2/shifts/fixed", "open", "INVALID_ADDRESS"],
    ["Invalid refundDestination", "BAD_USER_INPUT", 400, "/api/v2/shifts/fixed", "open", "INVALID_REFUND_ADDRESS"],
    ["This refund address belongs to SideShift.ai", "BAD_USER_INPUT", 400, "/api/v2/shifts/fixed", "open", "INVALID_REFUND_ADDRESS"],
    ["Unknown affiliateId", "BAD_USER_INPUT", 400, "/api/v2/quotes", "quote", "ENGINE_UNAVAILABLE"],
    ["Quote has different affiliateId than input", "BAD_USER_INPUT", 400, "/api/v2/shifts/fixed", "open", "ENGINE_UNAVAILABLE"],
    ["Quote has already expired. Request a new quote.", "BAD_USER_INPUT", 400, "/api/v2/shifts/fixed", "open", "ENGINE_UNAVAILABLE"],
    ['Invalid "affiliateId"', "BAD_USER_INPUT", 400, "/api/v2/quotes", "quote", "ENGINE_UNAVAILABLE"],
    ["depositAmount must be greater than zero", "BAD_USER_INPUT", 400, "/api/v2/quotes", "quote", "ENGINE_UNAVAILABLE"],
    ["Method ETH/bitcoin not found", "METHOD_NOT_FOUND", 400, "/api/v2/quotes", "quote", "CURRENCY_UNAVAILABLE"],
    ["Bad request: Invalid parameters: depositCoin", "BAD_USER_INPUT", 400, "/api/v2/quotes", "quote", "CURRENCY_UNAVAILABLE"],
    ["The x-user-ip header must be set to the end-user IP address", undefined, 400, "/api/v2/quotes", "quote", "ENGINE_UNAVAILABLE"],
    ["Amount too low", undefined, 400, "/api/v2/quotes", "quote", "AMOUNT_TOO_LOW"],
    ["Amount too high", undefined, 400, "/api/v2/quotes", "quote", "AMOUNT_TOO_HIGH"],
    ["Pair method is disabled", undefined, 400, "/api/v2/quotes", "quote", "CURRENCY_UNAVAILABLE"],
    ["country-blocked", "ACCESS_DENIED", 403, "/api/v2/quotes", "quote", "ENGINE_UNAVAILABLE"],
    ["Invalid account secret", undefined, 401, "/api/v2/quotes", "quote", "ENGINE_UNAVAILABLE"],
    ["Rate limit exceeded", undefined, 429, "/api/v2/quotes", "quote", "ENGINE_UNAVAILABLE"],
    ["Internal error", undefined, 500, "/api/v2/quotes", "quote", "ENGINE_UNAVAILABLE"],
  ];
  it.each(cases)("%s (%s, HTTP %i on %s) -> %s", async (message, code, status, path, call, apiCode) => {
    inject(path, status, message, code);
    expect(await codeOf(call === "quote" ? quote() : open())).toBe(apiCode);
    fake.clearFaults();
  });

  it("the fake's own checks answer the same: invalid payout and refund addresses, amounts outside the pair", async () => {
    expect(await codeOf(open("bc1qrefund", "invalid-payout"))).toBe("INVALID_ADDRESS");
    expect(await codeOf(open("invalid-refund"))).toBe("INVALID_REFUND_ADDRESS");
    const low = await quote("0.0001").catch((e) => e);
    expect([low.code, low.details.minAmount.toString(), low.details.maxAmount.toString()]).toEqual(["AMOUNT_TOO_LOW", "0.001", "2"]);
    expect(await codeOf(quote("3"))).toBe("AMOUNT_TOO_HIGH");
  });
});

describe("SideShift in the engine: refunds are not final until done", () => {
  it("refund and refunding keep the order open with reason refunding; refunded fails it with the hash", async () => {
    const e = engineWith([ss], { CHANGENOW_ENABLED: "false", FIXEDFLOAT_ENABLED: "false" });
    const { id } = await shiftReading(["pending", "refund", "refunding", "refunded"]);
    const up = { provider: "sideshift", id, data: null, status: "waiting", reason: null };
    const snap = snapshot({ state: "confirming", upstream: up, amountReceived: "0.5" });
    // The first read (pending) was taken by shiftReading; the order is confirming.
    const r1 = await e.readSwap({ ...snap, upstream: { ...up, status: "pending" } }, { scope: "w" });
    expect(r1).toEqual({ to: null, upstream: { status: "refund", reason: "refunding" } });
    const r2 = await e.readSwap({ ...snap, upstream: { ...up, status: "refund", reason: "refunding" } }, { scope: "w" });
    expect(r2).toEqual({ to: null, upstream: { status: "refunding", reason: "refunding" } });
    const r3 = await e.readSwap({ ...snap, upstream: { ...up, status: "refunding", reason: "refunding" } }, { scope: "w" });
    expect(r3).toEqual({
      to: "failed",
      reason: "refunded",
      refund: { amount: "0.5", hash: `ss-refund-${id}` },
      upstream: { status: "refunded", reason: null },
    });
  });

  it("an unknown status keeps the order's state (reason unknown), never final", async () => {
    const e = engineWith([ss], { CHANGENOW_ENABLED: "false", FIXEDFLOAT_ENABLED: "false" });
    const { id } = await shiftReading(["waiting", "something-new"]);
    const up = { provider: "sideshift", id, data: null, status: "waiting", reason: null };
    expect(await e.readSwap(snapshot({ state: "waiting", upstream: up }), { scope: "w" })).toEqual({
      to: null,
      upstream: { status: "something-new", reason: "unknown" },
    });
  });
});

describe("SideShift adapter: a refund address after creation", () => {
  it("POST /shifts/{id}/set-refund-address with address, memo, the secret and the user's IP; the next reading refunds there", async () => {
    const { id } = await shiftReading(["waiting", "pending", "processing", "review"], null);
    for (let i = 0; i < 3; i++) await ss.readSwap({ id, data: null });
    expect((await ss.readSwap({ id, data: null })).mapped).toEqual({ state: "exchanging", reason: "hold", final: false });
    fake.requests.length = 0;
    await ss.setRefundAddress({ id, data: null }, { address: "bc1qlater", extraId: null }, { userIp: IP });
    const [req] = fake.requests;
    expect([req.method, req.path, req.headers["x-sideshift-secret"], req.headers["x-user-ip"]]).toEqual([
      "POST",
      `/api/v2/shifts/${id}/set-refund-address`,
      fake.secret,
      IP,
    ]);
    expect(req.body).toEqual({ address: "bc1qlater" });
    fake.refund(id);
    expect((await ss.readSwap({ id, data: null })).mapped).toEqual({ state: "failed", reason: "refunding", final: false });
    await ss.readSwap({ id, data: null });
    const done = await ss.readSwap({ id, data: null });
    expect([done.mapped.reason, done.refundHash]).toEqual(["refunded", `ss-refund-${id}`]);
  });

  it("the engine: SideShift's refusals become the client's codes, and a provider without the call is unsupported", async () => {
    const engine = engineWith([ss]);
    const giveOn = async (steps: string[], to: { address: string; extraId: string | null }) => {
      const { id } = await shiftReading(steps, null);
      await ss.readSwap({ id, data: null }); // the fake's shift takes the script's status
      const swap = snapshot({ state: "exchanging", upstream: { provider: "sideshift", id, data: null, status: "review", reason: "hold" } });
      return engine.setRefundAddress(swap, to, { scope: "t", clientIp: IP });
    };
    expect(await giveOn(["review"], { address: "bc1qok", extraId: null })).toEqual({ refundHash: null });
    expect(await codeOf(giveOn(["review"], { address: "invalid-addr", extraId: null }))).toBe("INVALID_REFUND_ADDRESS");
    expect(await codeOf(giveOn(["review"], { address: "sideshift-own", extraId: null }))).toBe("INVALID_REFUND_ADDRESS");
    expect(await codeOf(giveOn(["review"], { address: "bc1qok", extraId: "123" }))).toBe("INVALID_REFUND_EXTRA_ID");
    expect(await codeOf(giveOn(["expired"], { address: "bc1qok", extraId: null }))).toBe("REFUND_ADDRESS_LOCKED");
    fake.failNext({ status: 503 }, 1, (r) => r.path.endsWith("/set-refund-address"));
    expect(await codeOf(giveOn(["review"], { address: "bc1qok", extraId: null }))).toBe("ENGINE_UNAVAILABLE");
    const cn = snapshot({ state: "exchanging", upstream: { provider: "changenow", id: "x", data: null, status: "hold", reason: "hold" } });
    expect(await codeOf(engine.setRefundAddress(cn, { address: "bc1qok", extraId: null }, { scope: "t" }))).toBe(
      "REFUND_ADDRESS_UNSUPPORTED",
    );
  });
});
