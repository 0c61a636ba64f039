import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCurrency } from "@/lib/currencies";
import type { Db } from "@/lib/db/client";
import { failureReasonOf, orderStateOf, rateTypeOf, stateReasonOf } from "@/lib/domain/order-states";
import { applyRate, fromAmountFor } from "@/lib/domain/quote-math";
import { getEngine } from "@/lib/engine";
import { D } from "@/lib/money/decimal";
import { applyStep } from "@/lib/orders/advance-order";
import { createOrder } from "@/lib/orders/create-order";
import { pollAfterSeconds } from "@/lib/orders/poll-hint";
import { getEstimate, priceByToAmount, takeRateQuote } from "@/lib/quotes/get-estimate";
import { getRange } from "@/lib/quotes/range";
import { refusalOf } from "../support/app-error";
import { newCaller as makeCaller } from "../support/callers";
import { settingsForTests, withSettings } from "../support/settings";
import { type TempDb, tempSqlite } from "../support/sqlite-db";

// The v1 extensions in-process (fixed-rate quotes and orders, reverse quotes, ranges, the
// poll hint), on SQLite with the simulated engine. The HTTP suite covers the same over the wire.

const ETH_ADDR = "0x52908400098527886E0F7030069857D2E4169EE7";
const ctx = { scope: "fx" };
const btc = getCurrency("btc")!;
const eth = getCurrency("eth")!;
settingsForTests({ ORDER_TTL_SECONDS: "3600", QUOTE_TTL_SECONDS: "60", FIXED_RATE_WINDOW_SECONDS: "1200", SIM_STEP_SECONDS: "3" });
let t: TempDb;
let db: Db;

const code = refusalOf;

const newCaller = (markupBps: number) => makeCaller(db, markupBps);

beforeAll(async () => {
  t = await tempSqlite();
  db = t.db;
});
afterAll(async () => {
  await t.cleanup();
});

describe("fixed-rate estimates and orders", () => {
  it("a fixed estimate stores a rateId that an order of the same caller, pair and amount takes with its terms", async () => {
    const caller = await newCaller(120);
    const now = new Date("2026-11-22T10:00:00.000Z");
    const e = await getEstimate({
      from: "btc",
      to: "eth",
      amount: "0.1",
      rateType: "fixed",
      markupBps: 120,
      ctx,
      db,
      resellerId: caller.resellerId,
      now,
    });
    expect(e.rateType).toBe("fixed");
    expect(e.rateId).toMatch(/^rate_[0-9a-f]{24}$/);
    const stored = await db.rateQuote.findUniqueOrThrow({ where: { id: e.rateId! } });
    expect(stored).toMatchObject({
      resellerId: caller.resellerId,
      fromCurrency: "btc",
      toCurrency: "eth",
      fromAmount: "0.1",
      toAmount: e.toAmount.toFixed(),
      markupBps: 120,
    });
    expect(stored.validUntil.toISOString()).toBe("2026-11-22T10:01:00.000Z");
    const floating = await getEstimate({ from: "btc", to: "eth", amount: "0.1", markupBps: 0, ctx });
    expect(floating).toMatchObject({ rateType: "floating", rateId: null });

    // The reseller's markup changes meanwhile: the quote's markup still applies.
    const { order } = await createOrder(db, {
      input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR, rateType: "fixed", rateId: e.rateId! },
      caller: { ...caller, markupBps: 500 },
      ctx,
      now: new Date(now.getTime() + 30_000),
    });
    expect(order).toMatchObject({
      rateType: "fixed",
      rateId: e.rateId,
      markupBps: 120,
      toAmount: e.toAmount.toFixed(),
      rate: stored.rate,
      profit: stored.profit,
    });
    // The fixed window: FIXED_RATE_WINDOW_SECONDS, within the order's expiry.
    expect(order.fixedUntil?.toISOString()).toBe("2026-11-22T10:20:30.000Z");
    await expect(getEstimate({ from: "btc", to: "eth", amount: "0.1", rateType: "fixed", markupBps: 0, ctx })).rejects.toThrow(
      "a fixed-rate estimate needs the database",
    );
  });

  it("refuses a rateId that is unknown, another caller's, for another pair or amount, or expired", async () => {
    const a = await newCaller(100);
    const b = await newCaller(100);
    const now = new Date("2026-11-22T11:00:00.000Z");
    const e = await getEstimate({
      from: "btc",
      to: "eth",
      amount: "0.1",
      rateType: "fixed",
      markupBps: 100,
      ctx,
      db,
      resellerId: a.resellerId,
      now,
    });
    const take = (over: Record<string, unknown>) =>
      takeRateQuote(db, { rateId: e.rateId!, resellerId: a.resellerId, from: btc, to: eth, fromAmount: "0.1", now, ...over } as never);
    expect((await take({})).priced.q.toAmount.toFixed()).toBe(e.toAmount.toFixed());
    expect(await code(take({ rateId: "rate_nope" }))).toMatchObject({
      code: "INVALID_RATE_ID",
      message: "This rateId is unknown; get a fixed-rate estimate for this order first.",
    });
    expect(await code(take({ rateId: `rate_${"0".repeat(24)}` }))).toMatchObject({
      code: "INVALID_RATE_ID",
      message: expect.stringContaining("is unknown"),
    });
    expect(await code(take({ resellerId: b.resellerId }))).toMatchObject({ code: "INVALID_RATE_ID" });
    expect(await code(take({ resellerId: null }))).toMatchObject({ code: "INVALID_RATE_ID" });
    expect(await code(take({ to: getCurrency("ltc") }))).toMatchObject({ message: expect.stringContaining("is for another pair") });
    expect(await code(take({ from: getCurrency("ltc") }))).toMatchObject({ message: expect.stringContaining("is for another pair") });
    expect(await code(take({ fromAmount: "0.2" }))).toMatchObject({ message: expect.stringContaining("is for another amount") });
    expect(await code(take({ fromAmount: undefined, toAmount: "999" }))).toMatchObject({
      message: expect.stringContaining("is for another toAmount"),
    });
    expect(await code(take({ now: new Date(now.getTime() + 60_000) }))).toEqual({
      code: "RATE_EXPIRED",
      message: "This fixed rate expired at 2026-11-22T11:01:00.000Z; get a new estimate.",
      details: { validUntil: "2026-11-22T11:01:00.000Z" },
    });
    expect((await take({ now: new Date(now.getTime() + 59_999) })).quote.id).toBe(e.rateId);
  });

  it("a rateId quoted by toAmount is taken by the same toAmount, and only by it", async () => {
    const a = await newCaller(100);
    const now = new Date("2026-11-22T11:30:00.000Z");
    const e = await getEstimate({
      from: "btc",
      to: "eth",
      toAmount: "1.5",
      rateType: "fixed",
      markupBps: 100,
      ctx,
      db,
      resellerId: a.resellerId,
      now,
    });
    const take = (toAmount: string) =>
      takeRateQuote(db, { rateId: e.rateId!, resellerId: a.resellerId, from: btc, to: eth, toAmount, now });
    const taken = await take("1.5");
    expect(taken.quote.id).toBe(e.rateId);
    expect(taken.priced.fromAmount.toFixed()).toBe(e.fromAmount.toFixed());
    expect(taken.priced.q.toAmount.gte("1.5")).toBe(true);
    expect(await code(take("1.49"))).toMatchObject({ message: expect.stringContaining("is for another toAmount") });
  });

  it("toAmount and rateId need rateType fixed; toAmount is checked against the destination currency", async () => {
    const base = { from: "btc", to: "eth", address: ETH_ADDR };
    expect(await code(createOrder(db, { input: { ...base, toAmount: "1" }, caller: null, ctx }))).toEqual({
      code: "INVALID_REQUEST",
      message: "toAmount and rateId need rateType fixed.",
      details: { field: "rateType" },
    });
    expect(await code(createOrder(db, { input: { ...base, amount: "0.1", rateId: "rate_x" }, caller: null, ctx }))).toMatchObject({
      code: "INVALID_REQUEST",
    });
    expect(
      await code(createOrder(db, { input: { ...base, amount: "0.1", rateType: "floating", toAmount: "1" }, caller: null, ctx })),
    ).toMatchObject({
      code: "INVALID_REQUEST",
    });
    expect(
      await code(createOrder(db, { input: { ...base, toAmount: "1.0000000000000000001", rateType: "fixed" }, caller: null, ctx })),
    ).toMatchObject({
      code: "INVALID_AMOUNT",
      message: expect.stringContaining("eth amounts"),
    });
  });

  it("a fixed order by toAmount pays at least that amount; a floating order has no fixed window", async () => {
    const now = new Date("2026-11-22T12:00:00.000Z");
    const { order } = await createOrder(db, {
      input: { from: "btc", to: "eth", toAmount: "1.5", rateType: "fixed", address: ETH_ADDR },
      caller: null,
      ctx,
      now,
    });
    expect(new D(order.toAmount).gte("1.5")).toBe(true);
    expect(order.fixedUntil?.toISOString()).toBe("2026-11-22T12:20:00.000Z");
    expect(order.rateId).toBeNull();
    const floating = (
      await createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR }, caller: null, ctx, now })
    ).order;
    expect(floating).toMatchObject({ rateType: "floating", fixedUntil: null, rateId: null });
    // A window longer than the order's life ends with the order.
    await withSettings({ FIXED_RATE_WINDOW_SECONDS: "999999" }, async () => {
      const long = (
        await createOrder(db, {
          input: { from: "btc", to: "eth", amount: "0.1", rateType: "fixed", address: ETH_ADDR },
          caller: null,
          ctx,
          now,
        })
      ).order;
      expect(long.fixedUntil?.toISOString()).toBe(long.expiresAt.toISOString());
    });
  });

  it("the idempotency hash includes the extensions only when used", async () => {
    const input = { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR };
    const a = await createOrder(db, { input, caller: null, ctx, idempotencyKey: "fx-1" });
    expect(
      await code(createOrder(db, { input: { ...input, rateType: "fixed" }, caller: null, ctx, idempotencyKey: "fx-1" })),
    ).toMatchObject({
      code: "IDEMPOTENCY_CONFLICT",
    });
    const f = await createOrder(db, { input: { ...input, rateType: "fixed" }, caller: null, ctx, idempotencyKey: "fx-2" });
    expect((await createOrder(db, { input: { ...input, rateType: "fixed" }, caller: null, ctx, idempotencyKey: "fx-2" })).replayed).toBe(
      true,
    );
    expect(f.order.id).not.toBe(a.order.id);
    const r = await createOrder(db, {
      input: { from: "btc", to: "eth", toAmount: "1", rateType: "fixed", address: ETH_ADDR },
      caller: null,
      ctx,
      idempotencyKey: "fx-3",
    });
    expect(
      await code(
        createOrder(db, {
          input: { from: "btc", to: "eth", toAmount: "2", rateType: "fixed", address: ETH_ADDR },
          caller: null,
          ctx,
          idempotencyKey: "fx-3",
        }),
      ),
    ).toMatchObject({ code: "IDEMPOTENCY_CONFLICT" });
    expect(r.order.rateType).toBe("fixed");
  });

  it("an upstream firm quote below a fixed order's locked amount drops the order with RATE_EXPIRED", async () => {
    // Another request's reservation, not yet opened, must outlive this one's refusal.
    const bystander = (await createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR }, caller: null, ctx }))
      .order;
    await db.order.update({ where: { id: bystander.id }, data: { payinAddress: null, leaseToken: "other" } });
    const engine = getEngine();
    const real = engine.openSwap.bind(engine);
    engine.openSwap = async (req, c) => {
      const s = await real(req, c);
      const less = req.toAmount.minus("0.00000001");
      return { ...s, terms: { rate: new D(1), rawToAmount: less, toAmount: less, profit: new D(0) } };
    };
    const before = await db.order.count();
    try {
      expect(
        await code(
          createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", rateType: "fixed", address: ETH_ADDR }, caller: null, ctx }),
        ),
      ).toEqual({ code: "RATE_EXPIRED", message: "The fixed rate can no longer be honoured; get a new estimate.", details: undefined });
      expect(await db.order.count()).toBe(before);
      expect(await db.order.findUnique({ where: { id: bystander.id } })).toMatchObject({ leaseToken: "other", payinAddress: null });
      // A floating order takes the firm quote as it is.
      const f = (await createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR }, caller: null, ctx })).order;
      expect(f.rate).toBe("1");
    } finally {
      engine.openSwap = real;
    }
  });
});

describe("a rateId opens one order", () => {
  const fixedInput = (rateId: string) => ({ from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR, rateType: "fixed" as const, rateId });
  const keylessQuote = async () => {
    const e = await getEstimate({ from: "btc", to: "eth", amount: "0.1", rateType: "fixed", markupBps: 0, ctx, db, resellerId: null });
    return e.rateId!;
  };

  it("of 50 concurrent orders on one keyless rateId, one opens; the others are refused with RATE_ID_USED", async () => {
    const rateId = await keylessQuote();
    // Keyless callers share rateIds (any of them may send one): each request is its own client here.
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => createOrder(db, { input: fixedInput(rateId), caller: null, ctx: { scope: `ip:10.0.0.${i}` } })),
    );
    const opened = results.filter((r) => r.status === "fulfilled");
    expect(opened).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected")
        expect([r.reason.code, r.reason.message]).toEqual(["RATE_ID_USED", expect.stringMatching(/already used/)]);
    expect(await db.order.count({ where: { rateId } })).toBe(1);
    const order = (opened[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof createOrder>>>).value.order;
    expect((await db.rateQuote.findUniqueOrThrow({ where: { id: rateId } })).orderId).toBe(order.id);
  });

  it("an idempotent replay of the order that used it answers that order", async () => {
    const rateId = await keylessQuote();
    const first = await createOrder(db, { input: fixedInput(rateId), caller: null, ctx, idempotencyKey: "once" });
    const again = await createOrder(db, { input: fixedInput(rateId), caller: null, ctx, idempotencyKey: "once" });
    expect(again).toMatchObject({ replayed: true, order: { id: first.order.id } });
    // Another key is another order: refused.
    expect((await code(createOrder(db, { input: fixedInput(rateId), caller: null, ctx, idempotencyKey: "twice" }))).code).toBe(
      "RATE_ID_USED",
    );
  });

  it("after an opening that failed, or a claim whose order is gone, the rateId opens an order", async () => {
    const rateId = await keylessQuote();
    const engine = getEngine();
    const real = engine.openSwap.bind(engine);
    engine.openSwap = async () => {
      throw new Error("engine down");
    };
    try {
      await expect(createOrder(db, { input: fixedInput(rateId), caller: null, ctx })).rejects.toThrow();
    } finally {
      engine.openSwap = real;
    }
    // The failed opening dropped its reservation; its claim is left pointing at nothing.
    const dead = (await db.rateQuote.findUniqueOrThrow({ where: { id: rateId } })).orderId;
    expect(dead).not.toBeNull();
    expect(await db.order.count({ where: { id: dead! } })).toBe(0);
    const { order } = await createOrder(db, { input: fixedInput(rateId), caller: null, ctx });
    expect((await db.rateQuote.findUniqueOrThrow({ where: { id: rateId } })).orderId).toBe(order.id);
    expect((await code(createOrder(db, { input: fixedInput(rateId), caller: null, ctx }))).code).toBe("RATE_ID_USED");
  });
});

describe("repricing at the exchange", () => {
  it("a floating order takes the engine's rate of the moment; a fixed one keeps its locked amounts; both record the deposit time", async () => {
    const caller = await newCaller(100);
    const now = new Date("2026-11-22T13:00:00.000Z");
    const floating = (await createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR }, caller, ctx })).order;
    const fixed = (
      await createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR, rateType: "fixed" }, caller, ctx })
    ).order;
    const moved = new D(floating.rate).mul("1.01");
    const c1 = await applyStep(db, floating, { to: "confirming", amountReceived: "0.1" }, now);
    expect(c1?.depositedAt?.toISOString()).toBe(now.toISOString());
    const x1 = await applyStep(db, c1!, { to: "exchanging", rate: moved });
    const q = applyRate(new D("0.1"), moved, eth.precision, 100);
    expect(x1).toMatchObject({ rate: moved.toFixed(), toAmount: q.toAmount.toFixed(), profit: q.profit.toFixed() });
    const c2 = await applyStep(db, fixed, { to: "confirming", amountReceived: "0.1" });
    const x2 = await applyStep(db, c2!, { to: "exchanging", rate: moved });
    expect(x2).toMatchObject({ rate: fixed.rate, toAmount: fixed.toAmount, profit: fixed.profit });
    // The same rate and the quoted amount: nothing to reprice.
    const f3 = (await createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR }, caller, ctx })).order;
    const c3 = await applyStep(db, f3, { to: "confirming", amountReceived: "0.1" });
    const x3 = await applyStep(db, c3!, { to: "exchanging", rate: new D(f3.rate) });
    expect(x3).toMatchObject({ rate: f3.rate, toAmount: f3.toAmount });
    // A later step does not set the deposit time again.
    expect(x3?.depositedAt?.getTime()).toBe(c3?.depositedAt?.getTime());
  });

  it("a keyed order announces its creation and every change to the webhook outbox; a keyless one does not", async () => {
    const caller = await newCaller(100);
    await db.webhookEndpoint.create({
      data: {
        id: `ep-${caller.resellerId}`,
        resellerId: caller.resellerId,
        url: "https://example.com/h",
        events: '["*"]',
        secret: "whsec_dGVzdA==",
      },
    });
    const o = (await createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR }, caller, ctx })).order;
    await applyStep(db, o, { to: "confirming", amountReceived: "0.1" });
    const messages = await db.webhookMessage.findMany({ where: { subject: o.id }, orderBy: { createdAt: "asc" } });
    expect(messages.map((m) => m.type)).toEqual(["order.created", "order.status_changed"]);
    const last = JSON.parse(messages[1].payload).data;
    expect(last).toMatchObject({
      orderId: o.id,
      status: "confirming",
      previousStatus: "waiting",
      order: { id: o.id, status: "confirming" },
    });
    expect(last.order.history.map((h: { status: string }) => h.status)).toEqual(["waiting", "confirming"]);
    const first = JSON.parse(messages[0].payload).data;
    expect(first).toMatchObject({ orderId: o.id, status: "waiting", order: { id: o.id } });
    expect("previousStatus" in first).toBe(false);
    // The created order's body is the one GET /exchange/{id} answers, its first event included.
    expect(first.order.history).toEqual([{ status: "waiting", at: o.createdAt.toISOString() }]);
    const keyless = (await createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR }, caller: null, ctx }))
      .order;
    expect(await db.webhookMessage.count({ where: { subject: keyless.id } })).toBe(0);
  });
});

describe("reverse quotes and ranges", () => {
  it("prices by toAmount: the least source amount paying at least the target, within limits", async () => {
    const p = await priceByToAmount(btc, eth, new D("2"), ctx, 150);
    expect(p.q.toAmount.gte(2)).toBe(true);
    expect(p.fromAmount.toFixed()).toBe(fromAmountFor(new D("2"), p.terms.rate, btc.precision, eth.precision, 150).toFixed());
    const e = await getEstimate({ from: "btc", to: "eth", toAmount: "2", markupBps: 150, ctx });
    expect(e.fromAmount.toFixed()).toBe(p.fromAmount.toFixed());
    expect(e.toAmount.toFixed()).toBe(p.q.toAmount.toFixed());
  });

  it("gives up when the engine's rate keeps falling under the amount found", async () => {
    const engine = getEngine();
    const real = engine.quote.bind(engine);
    let calls = 0;
    engine.quote = async (req, c) => {
      const terms = await real(req, c);
      calls++;
      return { ...terms, rate: terms.rate.mul(new D(1).minus(new D(calls).div(100))) };
    };
    try {
      expect(await code(priceByToAmount(btc, eth, new D("2"), ctx, 0))).toEqual({
        code: "ENGINE_UNAVAILABLE",
        message: "The rate kept moving while this quote was computed; try again.",
      });
      expect(calls).toBe(4);
    } finally {
      engine.quote = real;
    }
  });

  it("a range is the pair's limits rounded inward, the same numbers an estimate's errors carry", async () => {
    const r = await getRange({ from: "btc", to: "eth", markupBps: 0, ctx });
    expect(r.from.ticker).toBe("btc");
    expect(r.to.ticker).toBe("eth");
    const low = await code(getEstimate({ from: "btc", to: "eth", amount: r.minAmount.minus("0.00000001").toFixed(), markupBps: 0, ctx }));
    expect(String((low.details as { minAmount: unknown }).minAmount)).toBe(r.minAmount.toFixed());
    expect(String((low.details as { maxAmount: unknown }).maxAmount)).toBe(r.maxAmount.toFixed());
    expect(await code(getRange({ from: "btc", to: "btc", markupBps: 0, ctx }))).toMatchObject({ code: "SAME_CURRENCY" });
  });
});

describe("poll hint and stored values", () => {
  const now = new Date("2026-11-22T14:00:00.000Z");
  const at = (s: number) => new Date(now.getTime() + s * 1000);

  it("says when the worker looks next, within 1 s and a minute; a waiting order no later than its expiry; nothing when final", () => {
    expect(pollAfterSeconds({ status: "finished", nextActionAt: null, expiresAt: at(100) }, now)).toBeNull();
    expect(pollAfterSeconds({ status: "failed", nextActionAt: at(5), expiresAt: at(100) }, now)).toBeNull();
    expect(pollAfterSeconds({ status: "waiting", nextActionAt: null, expiresAt: at(3600) }, now)).toBe(10);
    expect(pollAfterSeconds({ status: "waiting", nextActionAt: null, expiresAt: at(4) }, now)).toBe(4);
    expect(pollAfterSeconds({ status: "waiting", nextActionAt: at(30), expiresAt: at(3600) }, now)).toBe(30);
    expect(pollAfterSeconds({ status: "confirming", nextActionAt: at(2.2), expiresAt: at(1) }, now)).toBe(3);
    expect(pollAfterSeconds({ status: "exchanging", nextActionAt: at(600), expiresAt: at(1) }, now)).toBe(60);
    expect(pollAfterSeconds({ status: "sending", nextActionAt: at(-5), expiresAt: at(1) }, now)).toBe(1);
    expect(pollAfterSeconds({ status: "sending", nextActionAt: at(60), expiresAt: at(1) }, now)).toBe(60);
    expect(pollAfterSeconds({ status: "sending", nextActionAt: at(61), expiresAt: at(1) }, now)).toBe(60);
    expect(pollAfterSeconds({ status: "sending", nextActionAt: at(0.5), expiresAt: at(1) }, now)).toBe(1);
    expect(pollAfterSeconds({ status: "sending", nextActionAt: null, expiresAt: at(1) }, now)).toBe(10);
  });

  it("values read back from the database are checked against their lists", () => {
    expect(rateTypeOf("fixed")).toBe("fixed");
    expect(() => rateTypeOf("pegged")).toThrow("unknown rate type pegged");
    expect(orderStateOf("sending")).toBe("sending");
    expect(() => orderStateOf("lost")).toThrow(/lost/);
    expect(failureReasonOf(null)).toBeNull();
    expect(failureReasonOf("deposit_late")).toBe("deposit_late");
    expect(() => failureReasonOf("bored")).toThrow(/bored/);
    expect(stateReasonOf(null)).toBeNull();
    expect(stateReasonOf("hold")).toBe("hold");
    expect(() => stateReasonOf("nap")).toThrow("unknown state reason nap");
  });
});
