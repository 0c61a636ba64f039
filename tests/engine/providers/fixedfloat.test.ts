import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { D } from "@/lib/money/decimal";
import { FixedFloatAdapter } from "@/lib/providers/fixedfloat";
import { FakeFixedFloat } from "../../support/fake-providers/fixedfloat";
import { codeOf, cur, engineWith, snapshot } from "./helpers";

// The FixedFloat adapter against its fake (written from the reference, section 3): every call
// a signed POST (HMAC-SHA256 of the exact body bytes), refcode + afftax = fee + markup, the
// order token kept for later calls, every status, errors as code != 0, and the refund made
// through `emergency` with the order's refund address.

let fake: FakeFixedFloat;
let ff: FixedFloatAdapter;
const BTC = { code: "BTC" };
const ETH = { code: "ETH" };
const XRP = { code: "XRP" };

beforeAll(async () => {
  fake = await new FakeFixedFloat().start();
  fake.setPair("BTC", "ETH", { rate: "20", min: "0.001", max: "2" });
  fake.setPair("BTC", "XRP", { rate: "50000", min: "0.001", max: "2" });
  fake.setPair("XRP", "BTC", { rate: "0.00002", min: "10", max: "100000" });
  ff = new FixedFloatAdapter({
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    apiSecret: fake.apiSecret,
    refcode: "myref",
    maxAfftaxBps: 300,
    quotesPerMinute: 1000,
    timeoutMs: 2000,
  });
});
afterAll(() => fake.kill());

describe("FixedFloat adapter: requests", () => {
  it("signs every call: X-API-SIGN is the hex HMAC-SHA256 of the exact body with the secret", async () => {
    fake.requests.length = 0;
    const list = await ff.listCurrencies();
    expect(list).toContainEqual({ asset: XRP, available: true, hasMemo: true });
    const [r] = fake.requests;
    expect([r.method, r.path, r.rawBody, r.headers["x-api-key"], r.headers["content-type"]]).toEqual([
      "POST",
      "/api/v2/ccies",
      "{}",
      fake.apiKey,
      "application/json; charset=UTF-8",
    ]);
    expect(r.headers["x-api-sign"]).toBe(crypto.createHmac("sha256", fake.apiSecret).update("{}").digest("hex"));
  });

  it("price: fixed, direction from, the amount as a JSON number, refcode and afftax = fee + markup in percent", async () => {
    fake.requests.length = 0;
    const q = await ff.quote({ from: BTC, to: ETH, fromAmount: new D("0.1"), commissionBps: 175, firm: false });
    const [r] = fake.requests;
    expect(r.path).toBe("/api/v2/price");
    expect(r.rawBody).toBe(
      '{"type":"fixed","fromCcy":"BTC","toCcy":"ETH","direction":"from","amount":0.1,"refcode":"myref","afftax":1.75}',
    );
    expect(fake.signatureOk(r)).toBe(true);
    expect(q.toAmount.toFixed()).toBe("1.965"); // 0.1 x 20 x (1 - 1.75%)
    expect([q.minAmount?.toFixed(), q.maxAmount?.toFixed()]).toEqual(["0.001", "2"]);
  });

  it("create: the payout tag passes on, the deposit tag and the token come back; order and emergency use the token", async () => {
    fake.requests.length = 0;
    const q = await ff.quote({ from: XRP, to: BTC, fromAmount: new D("100"), commissionBps: 25, firm: true });
    const s = await ff.createSwap({
      orderId: "o1",
      from: XRP,
      to: BTC,
      fromAmount: new D("100"),
      commissionBps: 25,
      quote: q,
      payoutAddress: "bc1qpayout",
      payoutExtraId: null,
      refundAddress: "rRefund",
      refundExtraId: "77",
    });
    const create = fake.requests.at(-1)!;
    expect(create.path).toBe("/api/v2/create");
    expect(JSON.parse(create.rawBody)).toEqual({
      type: "fixed",
      fromCcy: "XRP",
      toCcy: "BTC",
      direction: "from",
      amount: 100,
      toAddress: "bc1qpayout",
      refcode: "myref",
      afftax: 0.25,
    });
    expect(fake.signatureOk(create)).toBe(true);
    const o = fake.orders.get(s.id)!;
    expect([s.payinAddress, s.payinExtraId]).toEqual([o.address, o.tag]);
    expect(s.payinExtraId).toMatch(/^\d+$/);
    expect(JSON.parse(s.data!)).toEqual({ token: o.token, refundAddress: "rRefund", refundExtraId: "77" });
    expect(s.expiresAt!.getTime()).toBe((o.reg + 1800) * 1000);
    const q2 = await ff.quote({ from: BTC, to: XRP, fromAmount: new D("0.1"), commissionBps: 25, firm: true });
    await ff.createSwap({
      orderId: "o2",
      from: BTC,
      to: XRP,
      fromAmount: new D("0.1"),
      commissionBps: 25,
      quote: q2,
      payoutAddress: "rPayout",
      payoutExtraId: "12345",
      refundAddress: null,
      refundExtraId: null,
    });
    expect(JSON.parse(fake.requests.at(-1)!.rawBody)).toMatchObject({ toAddress: "rPayout", tag: "12345" });
    await ff.readSwap({ id: s.id, data: s.data });
    expect(JSON.parse(fake.requests.at(-1)!.rawBody)).toEqual({ id: s.id, token: o.token });
  });
});

async function order(steps: any[], refund: { address: string | null; tag?: string | null } = { address: "bc1qrefund" }) {
  const q = await ff.quote({ from: BTC, to: ETH, fromAmount: new D("0.5"), commissionBps: 25, firm: true });
  const address = `0x${Math.random().toString(16).slice(2)}`;
  fake.script(address, steps);
  return ff.createSwap({
    orderId: "o",
    from: BTC,
    to: ETH,
    fromAmount: new D("0.5"),
    commissionBps: 25,
    quote: q,
    payoutAddress: address,
    payoutExtraId: null,
    refundAddress: refund.address,
    refundExtraId: refund.tag ?? null,
  });
}

describe("FixedFloat adapter: every status of the reference", () => {
  const table: [string, any, string, string | null, boolean][] = [
    ["NEW", "NEW", "waiting", null, false],
    ["PENDING", "PENDING", "confirming", null, false],
    ["EXCHANGE", "EXCHANGE", "exchanging", null, false],
    ["WITHDRAW", "WITHDRAW", "sending", null, false],
    ["DONE (paid out)", "DONE", "finished", null, true],
    ["DONE (refunded)", { status: "DONE", refunded: true }, "failed", "refunded", true],
    ["EXPIRED", "EXPIRED", "failed", "expired", true],
    ["EMERGENCY LESS", { status: "EMERGENCY", emergency: ["LESS"] }, "exchanging", "needs_action", false],
    ["EMERGENCY MORE", { status: "EMERGENCY", emergency: ["MORE"] }, "exchanging", "needs_action", false],
    ["EMERGENCY EXPIRED", { status: "EMERGENCY", emergency: ["EXPIRED"] }, "exchanging", "needs_action", false],
    ["EMERGENCY LIMIT", { status: "EMERGENCY", emergency: ["LIMIT"] }, "exchanging", "needs_action", false],
    ["an unknown status", "FROZEN", "exchanging", "unknown", false],
  ];
  it.each(table)("%s -> %s (%s)", async (_label, step, state, reason, final) => {
    const s = await order([step]);
    const r = await ff.readSwap({ id: s.id, data: s.data });
    expect(r.mapped).toEqual({ state, reason, final });
    if (state === "finished") expect(r.payoutHash).toBe(`ff-out-${s.id}`);
    if (reason === "refunded") expect([r.refundHash, r.payoutHash, r.refundAmount?.toFixed()]).toEqual([`ff-refund-${s.id}`, null, "0.5"]);
    if (state === "confirming") expect([r.payinHash, r.amountReceived?.toFixed()]).toEqual([`ff-in-${s.id}`, "0.5"]);
  });
});

describe("FixedFloat in the engine", () => {
  it("EMERGENCY: the engine chooses REFUND to the order's refund address and tag, then follows the refund to `failed` with its hash", async () => {
    const e = engineWith([ff], { CHANGENOW_ENABLED: "false", SIDESHIFT_ENABLED: "false" });
    const s = await order(
      [
        "PENDING",
        { status: "EMERGENCY", emergency: ["LESS"] },
        { status: "EMERGENCY", emergency: ["LESS"] },
        { status: "DONE", refunded: true },
      ],
      {
        address: "bc1qrefundaddr",
        tag: null,
      },
    );
    const up = { provider: "fixedfloat", id: s.id, data: s.data, status: "NEW", reason: null };
    const snap = snapshot({ state: "waiting", upstream: up });
    expect(await e.readSwap(snap, { scope: "w" })).toMatchObject({ to: "confirming", payinHash: `ff-in-${s.id}` });
    const choice = await e.readSwap({ ...snap, state: "confirming", upstream: { ...up, status: "PENDING" } }, { scope: "w" });
    expect(choice).toEqual({ to: null, upstream: { status: "EMERGENCY/LESS/NONE", reason: "refunding" } });
    const call = fake.requestsTo("/api/v2/emergency").at(-1)!;
    expect(JSON.parse(call.rawBody)).toEqual({ id: s.id, token: JSON.parse(s.data!).token, choice: "REFUND", address: "bc1qrefundaddr" });
    expect(fake.signatureOk(call)).toBe(true);
    const still = await e.readSwap({ ...snap, state: "confirming", upstream: { ...up, ...choice!.upstream } }, { scope: "w" });
    expect(still).toEqual({ to: null, upstream: { status: "EMERGENCY/LESS/REFUND", reason: "refunding" } });
    const done = await e.readSwap({ ...snap, state: "confirming", upstream: { ...up, ...still!.upstream } }, { scope: "w" });
    expect(done).toEqual({
      to: "failed",
      reason: "refunded",
      refund: { amount: "0.5", hash: `ff-refund-${s.id}` },
      upstream: { status: "DONE", reason: null },
    });
  });

  it("EMERGENCY without a refund address stays open with needs_action (nobody to refund to)", async () => {
    const e = engineWith([ff], { CHANGENOW_ENABLED: "false", SIDESHIFT_ENABLED: "false" });
    const s = await order([{ status: "EMERGENCY", emergency: ["MORE"] }], { address: null });
    const snap = snapshot({
      state: "confirming",
      upstream: { provider: "fixedfloat", id: s.id, data: s.data, status: "PENDING", reason: null },
    });
    const before = fake.requestsTo("/api/v2/emergency").length;
    expect(await e.readSwap(snap, { scope: "w" })).toMatchObject({ to: "exchanging", upstream: { reason: "needs_action" } });
    expect(fake.requestsTo("/api/v2/emergency").length).toBe(before);
  });

  const engine = () =>
    engineWith([ff], {
      CHANGENOW_ENABLED: "false",
      SIDESHIFT_ENABLED: "false",
      PROVIDERS_COOLDOWN_SECONDS: "0",
      PROVIDERS_QUOTE_CACHE_SECONDS: "0",
    });
  const quote = (amount = "0.1") =>
    engine().quote({ from: cur("btc"), to: cur("eth"), fromAmount: new D(amount), markupBps: 0 }, { scope: "t" });
  const open = (payoutAddress = "0x1111111111111111111111111111111111111111") =>
    engine().openSwap(
      {
        orderId: `o${Math.random()}`,
        from: cur("btc"),
        to: cur("eth"),
        fromAmount: new D("0.1"),
        toAmount: new D("1"),
        payoutAddress,
        payoutExtraId: null,
        refundAddress: null,
        refundExtraId: null,
        markupBps: 0,
      },
      { scope: "t" },
    );

  // The numeric codes are not documented: clients branch on code != 0 and the message.
  it.each([
    ["Invalid API key", "price", "ENGINE_UNAVAILABLE"],
    ["Invalid signature", "price", "ENGINE_UNAVAILABLE"],
    ["Currency not found or pair unavailable", "price", "CURRENCY_UNAVAILABLE"],
    ["Something else went wrong", "price", "ENGINE_UNAVAILABLE"],
    ["Invalid toAddress", "create", "INVALID_ADDRESS"],
    ["Invalid tag", "create", "INVALID_EXTRA_ID"],
  ])("code != 0, %s (on %s) -> %s", async (msg, method, apiCode) => {
    fake.failNext({ reply: { status: 200, body: { code: 399, msg, data: null } } }, 1, (r) => r.path === `/api/v2/${method}`);
    expect(await codeOf(method === "price" ? quote() : open())).toBe(apiCode);
    fake.clearFaults();
  });

  it("limits come from price's errors: below min and above max", async () => {
    const low = await quote("0.0001").catch((e) => e);
    expect([low.code, low.details.minAmount.toString()]).toEqual(["AMOUNT_TOO_LOW", "0.001"]);
    expect(await codeOf(quote("5"))).toBe("AMOUNT_TOO_HIGH");
    expect(await codeOf(open("invalid-address"))).toBe("INVALID_ADDRESS");
  });

  it("a wrong secret is refused by the fake (code != 0) and is an outage", async () => {
    const bad = new FixedFloatAdapter({
      baseUrl: fake.baseUrl,
      apiKey: fake.apiKey,
      apiSecret: "wrong",
      refcode: null,
      maxAfftaxBps: 300,
      quotesPerMinute: 10,
      timeoutMs: 2000,
    });
    const err = await bad.quote({ from: BTC, to: ETH, fromAmount: new D("0.1"), commissionBps: 0, firm: false }).catch((e) => e);
    expect([err.kind, err.isOutage]).toEqual(["unavailable", true]);
  });
});
