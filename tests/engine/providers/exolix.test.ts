import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { D } from "@/lib/money/decimal";
import { ExolixAdapter } from "@/lib/providers/exolix";
import { ProviderError } from "@/lib/providers/http";
import { FakeExolix } from "../../support/fake-providers/exolix";
import { codeOf, cur, engineWith, snapshot } from "./helpers";

// The Exolix adapter against its fake (written from the reference, section 4): the raw key
// in Authorization, coin + network upper case, both spellings of /rate's network parameters,
// the fixed-rate transaction with refund address and memos, every status of the reference,
// every documented error, and its per-account commission in the engine.

let fake: FakeExolix;
let ex: ExolixAdapter;
const BTC = { coin: "BTC", network: "BTC" };
const ETH = { coin: "ETH", network: "ETH" };
const XRP = { coin: "XRP", network: "XRP" };

beforeAll(async () => {
  fake = await new FakeExolix().start();
  fake.setPair("BTC@BTC", "ETH@ETH", { rate: "20", min: "0.001", max: "2" });
  fake.setPair("BTC@BTC", "XRP@XRP", { rate: "50000", min: "0.001", max: "2" });
  fake.setPair("XRP@XRP", "BTC@BTC", { rate: "0.00002", min: "10", max: "100000" });
  ex = new ExolixAdapter({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, accountCommissionBps: 100, quotesPerMinute: 1000, timeoutMs: 2000 });
});
afterAll(() => fake.kill());

const firm = (from = BTC, to = ETH, amount = "0.1") => ex.quote({ from, to, fromAmount: new D(amount), commissionBps: 25, firm: true });
const create = async (over: Partial<Parameters<ExolixAdapter["createSwap"]>[0]> = {}) =>
  ex.createSwap({
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

describe("Exolix adapter: requests", () => {
  it("lists coins per network, upper case, with the memo flag, page by page", async () => {
    fake.pageSize = 1;
    const list = await ex.listCurrencies();
    expect(list).toContainEqual({ asset: XRP, available: true, hasMemo: true });
    expect(list).toContainEqual({ asset: BTC, available: true, hasMemo: false });
    expect(list).toContainEqual({ asset: ETH, available: true, hasMemo: false });
    // Three coins, one a page: three pages asked.
    const pages = fake.requestsTo("/api/v2/currencies");
    expect(pages.map((p) => p.query.page)).toEqual(["1", "2", "3"]);
    expect(pages.at(-1)!.query).toMatchObject({ withNetworks: "true", size: "100" });
    expect(pages.at(-1)!.headers.authorization).toBe(fake.apiKey);
    fake.pageSize = 100;
  });

  it("quotes with GET /rate, fixed, the key raw in Authorization and the networks under both names; no commission parameter", async () => {
    const q = await firm();
    expect(q).toMatchObject({ quoteId: null, expiresAt: null });
    expect(q.toAmount.toFixed()).toBe("2");
    expect([q.minAmount?.toFixed(), q.maxAmount?.toFixed()]).toEqual(["0.001", "2"]);
    const r = fake.requestsTo("/api/v2/rate").at(-1)!;
    expect(r.headers.authorization).toBe(fake.apiKey);
    expect(r.query).toEqual({
      coinFrom: "BTC",
      coinTo: "ETH",
      networkFrom: "BTC",
      networkTo: "ETH",
      coinFromNetwork: "BTC",
      coinToNetwork: "ETH",
      amount: "0.1",
      rateType: "fixed",
    });
  });

  it("creates a fixed transaction with the refund address and the payout memo; the deposit memo comes back", async () => {
    const s = await create();
    const req = fake.requestsTo("/api/v2/transactions", (r) => r.method === "POST").at(-1)!;
    expect(req.body).toEqual({
      coinFrom: "BTC",
      networkFrom: "BTC",
      coinTo: "ETH",
      networkTo: "ETH",
      amount: 0.1,
      withdrawalAddress: "0xpayout",
      rateType: "fixed",
      refundAddress: "bc1qrefund",
    });
    // The amount is a JSON number written exactly.
    expect(req.rawBody).toContain('"amount":0.1');
    expect(s).toMatchObject({
      id: expect.any(String),
      payinAddress: fake.transactions.get(s.id)!.depositAddress,
      payinExtraId: null,
      expiresAt: null,
    });
    const memo = await ex.createSwap({
      orderId: "order-2",
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
    expect(fake.requests.at(-1)!.body).toMatchObject({ refundAddress: "rRefund", refundExtraId: "77" });
    expect(memo.payinExtraId).toMatch(/^\d+$/);
    await ex.createSwap({
      orderId: "order-3",
      from: BTC,
      to: XRP,
      fromAmount: new D("0.1"),
      commissionBps: 25,
      quote: await firm(BTC, XRP),
      payoutAddress: "rPayout",
      payoutExtraId: "12345",
      refundAddress: null,
      refundExtraId: null,
    });
    expect(fake.requests.at(-1)!.body).toMatchObject({ withdrawalAddress: "rPayout", withdrawalExtraId: "12345" });
    expect(fake.requests.at(-1)!.body.refundAddress).toBeUndefined();
  });
});

describe("Exolix adapter: every status of the reference", () => {
  const table: [string, string, string | null, boolean][] = [
    ["wait", "waiting", null, false],
    ["confirmation", "confirming", null, false],
    ["confirmed", "exchanging", null, false],
    ["exchanging", "exchanging", null, false],
    ["sending", "sending", null, false],
    ["success", "finished", null, true],
    ["overdue", "failed", "expired", true],
    ["refund", "failed", "refunding", false],
    ["refunded", "failed", "refunded", true],
    // Undocumented ([?] in the reference): unknown, logged, never final.
    ["deleted", "exchanging", "unknown", false],
    ["error", "exchanging", "unknown", false],
    ["constructor", "exchanging", "unknown", false],
  ];
  it.each(table)("%s -> %s (%s), final %s", async (status, state, reason, final) => {
    const address = `0xstatus${status}`;
    fake.script(address, [status]);
    const s = await create({ payoutAddress: address });
    const r = await ex.readSwap({ id: s.id, data: null });
    expect(r.status).toBe(status);
    expect(r.mapped).toEqual({ state, reason, final });
    if (status === "success")
      expect([r.payinHash, r.payoutHash, r.amountReceived?.toFixed()]).toEqual([`ex-in-${s.id}`, `ex-out-${s.id}`, "0.1"]);
    if (status === "refunded") expect([r.payoutHash, r.refundHash, r.refundAmount?.toFixed()]).toEqual([null, `ex-out-${s.id}`, "0.1"]);
    if (status === "wait") expect([r.payinHash, r.amountReceived]).toEqual([null, null]);
  });
});

describe("Exolix adapter: every documented error, as the API answers it", () => {
  const engine = () =>
    engineWith([ex], {
      EXOLIX_ENABLED: "true",
      EXOLIX_API_KEY: "k",
      EXOLIX_ACCOUNT_COMMISSION_BPS: "100",
      CHANGENOW_ENABLED: "false",
      SIDESHIFT_ENABLED: "false",
      FIXEDFLOAT_ENABLED: "false",
      PROVIDERS_COOLDOWN_SECONDS: "0",
      PROVIDERS_QUOTE_CACHE_SECONDS: "0",
    });
  const quote = (amount = "0.1", markupBps = 0) =>
    engine().quote({ from: cur("btc"), to: cur("eth"), fromAmount: new D(amount), markupBps }, { scope: "t" });
  const open = (address = "0xpayout", refund = "bc1qrefund") =>
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

  it("below the minimum and above the maximum: 422 with the pair's limits, which reach the client", async () => {
    const low = await quote("0.0001").catch((e) => e);
    expect([low.code, low.details.minAmount.toString(), low.details.maxAmount.toString()]).toEqual(["AMOUNT_TOO_LOW", "0.001", "2"]);
    const high = await quote("5").catch((e) => e);
    expect([high.code, high.details.maxAmount.toString()]).toEqual(["AMOUNT_TOO_HIGH", "2"]);
  });

  it("a pair it does not offer is CURRENCY_UNAVAILABLE", async () => {
    fake.failNext({ reply: { status: 400, body: { error: "Such exchange pair is not available" } } }, 1, (r) => r.path === "/api/v2/rate");
    expect(await codeOf(quote())).toBe("CURRENCY_UNAVAILABLE");
  });

  it("a reverse-style 200 with a message and no rate is an answer, not a quote", async () => {
    fake.failNext(
      {
        reply: {
          status: 200,
          body: {
            fromAmount: 0,
            toAmount: 0,
            rate: null,
            message: "Amount to exchange is below the possible min amount to exchange",
            minAmount: 0.5,
            maxAmount: 10,
          },
        },
      },
      1,
      (r) => r.path === "/api/v2/rate",
    );
    const e = await quote("0.1").catch((x) => x);
    expect([e.code, e.details.minAmount.toString()]).toEqual(["AMOUNT_TOO_LOW", "0.5"]);
  });

  it("create validation errors ({errors:{field}}) name the address at fault", async () => {
    expect(await codeOf(open("invalid-payout"))).toBe("INVALID_ADDRESS");
    expect(await codeOf(open("0xpayout", "invalid-refund"))).toBe("INVALID_REFUND_ADDRESS");
  });

  it("a bad key (401), 429, 5xx and no answer in time are outages", async () => {
    const bad = new ExolixAdapter({
      baseUrl: fake.baseUrl,
      apiKey: "wrong",
      accountCommissionBps: 100,
      quotesPerMinute: 10,
      timeoutMs: 2000,
    });
    const err = await bad.quote({ from: BTC, to: ETH, fromAmount: new D("0.1"), commissionBps: 0, firm: false }).catch((e) => e);
    expect([err.kind, err.isOutage]).toEqual(["unavailable", true]);
    for (const f of [{ status: 429 as const }, { status: 500 as const }, { hangMs: 3000 }]) {
      fake.failNext(f, 1, (r) => r.path === "/api/v2/rate");
      const e = await ex.quote({ from: BTC, to: ETH, fromAmount: new D("0.1"), commissionBps: 0, firm: false }).catch((x) => x);
      expect(e).toBeInstanceOf(ProviderError);
      expect(e.kind).toBe("status" in f && f.status === 429 ? "rate_limited" : "unavailable");
    }
  });

  it("an unknown transaction is not_found", async () => {
    const e = await ex.readSwap({ id: "nope", data: null }).catch((x) => x);
    expect(e.kind).toBe("not_found");
  });

  it("per account: routed only when the account's share covers fee + markup", async () => {
    // 100 bps on the account: fee 25 + markup 75 fits, markup 76 does not.
    expect((await quote("0.1", 75)).rate.gt(0)).toBe(true);
    const e = await quote("0.1", 76).catch((x) => x);
    expect(e.code).toBe("ENGINE_UNAVAILABLE");
    expect(e.message).toMatch(/markup of 76 bps is above what the providers of btc -> eth accept \(exolix up to 75 bps\)/);
  });
});

describe("Exolix in the engine: an order from open to steps", () => {
  it("opens with the intent hooks, then reads success through to finished, and a refund to failed", async () => {
    const e = engineWith([ex], {
      EXOLIX_ENABLED: "true",
      EXOLIX_API_KEY: "k",
      EXOLIX_ACCOUNT_COMMISSION_BPS: "100",
      CHANGENOW_ENABLED: "false",
      SIDESHIFT_ENABLED: "false",
      FIXEDFLOAT_ENABLED: "false",
    });
    const log: string[] = [];
    fake.script("0xhappy", EX_STEPS);
    const opened = await e.openSwap(
      {
        orderId: "ex-order",
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
      {
        scope: "t",
        intents: {
          creating: async (i) => {
            log.push(`creating ${i.provider} ${i.externalId}`);
            return "i";
          },
          created: async (_id, s) => void log.push(`created ${s.upstream?.id}`),
          notCreated: async () => void log.push("not-created"),
        },
      },
    );
    // Exolix takes no external id.
    expect(log).toEqual(["creating exolix null", `created ${opened.upstream!.id}`]);
    expect(opened.terms!.toAmount.toFixed()).toBe("2");
    const up = { provider: "exolix", id: opened.upstream!.id, data: null, status: null, reason: null };
    expect(await e.readSwap(snapshot({ state: "waiting", upstream: up }), { scope: "w" })).toMatchObject({
      to: "confirming",
      payinHash: `ex-in-${opened.upstream!.id}`,
      amountReceived: "0.1",
    });
  });
});

const EX_STEPS = ["confirmation", "confirmed", "sending", "success"];
