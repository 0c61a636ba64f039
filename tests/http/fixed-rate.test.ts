import { describe, expect, inject, it } from "vitest";
import { getCurrency } from "@/lib/currencies";
import { D } from "@/lib/money/decimal";
import { addressFor, api, makeReseller, pollUntil, sleep } from "../support/api";
import { startApp } from "../support/app";
import { migratedDatabase } from "../support/server";

// Fixed-rate and reverse quotes (docs/api.md, Extensions to v1: Fixed rate, Reverse quotes).

const order = (over: Record<string, unknown> = {}) => ({
  from: "ltc",
  to: "eth",
  amount: "3",
  address: addressFor("eth"),
  refundAddress: addressFor("ltc"),
  ...over,
});

describe("fixed rate", () => {
  it("a fixed-rate order is paid its locked amount after the floating rate moved; a floating one is not", async () => {
    const { key } = await makeReseller({ markupBps: 150 });
    const est = await api("/estimate?from=ltc&to=eth&amount=3&rateType=fixed", { key });
    expect(est.status, est.text).toBe(200);
    expect(est.body).toMatchObject({ rateType: "fixed", fromAmount: 3, fee: "1.75%" });
    expect(est.body.rateId).toMatch(/^rate_[0-9a-f]{24}$/);
    const locked = est.body.toAmount;

    const fixed = await api("/exchange", { key, body: order({ rateType: "fixed", rateId: est.body.rateId }) });
    expect(fixed.status, fixed.text).toBe(201);
    expect(fixed.body.toAmount).toBe(locked);
    const floating = await api("/exchange", { key, body: order() });
    expect(floating.body.toAmount).toBe(locked);

    // The market falls 5% for this reseller: estimates and floating orders follow it.
    const moved = await api("/sandbox/engine", { key, body: { rateMoveBps: -500 } });
    expect(moved.body).toEqual({ fault: null, rateMoveBps: -500 });
    const now = await api("/estimate?from=ltc&to=eth&amount=3", { key });
    expect(now.body.toAmount).toBeLessThan(locked);

    for (const o of [fixed, floating])
      expect((await api(`/sandbox/exchange/${o.body.id}/deposit`, { key, method: "POST" })).status).toBe(200);
    const doneFixed = (await pollUntil(fixed.body.id, ["finished", "failed"], { key })).order;
    const doneFloating = (await pollUntil(floating.body.id, ["finished", "failed"], { key })).order;
    expect(doneFixed.status).toBe("finished");
    expect(doneFixed.toAmount).toBe(locked);
    expect(doneFloating.status).toBe("finished");
    expect(doneFloating.toAmount).toBe(now.body.toAmount);
    expect(doneFloating.toAmount).toBeLessThan(locked);
    await api("/sandbox/engine", { key, body: { rateMoveBps: 0 } });
  });

  it("a deposit of another amount than the quoted one fails the fixed order with a refund", async () => {
    const { key } = await makeReseller();
    const created = await api("/exchange", { key, body: order({ rateType: "fixed" }) });
    expect(created.status, created.text).toBe(201);
    const dep = await api(`/sandbox/exchange/${created.body.id}/deposit`, { key, body: { amount: "3.1" } });
    expect(dep.status).toBe(200);
    const { order: done } = await pollUntil(created.body.id, ["finished", "failed"], { key });
    expect(done.status).toBe("failed");
    expect(done.failureReason).toBe("deposit_amount_mismatch");
    expect(done.refund).toMatchObject({ state: "sent", amount: 3.1 });
    expect(done.refund.hash).toMatch(/^[0-9a-f]{64}$/);
    // The same deposit on a floating order is simply priced as it came.
    const floating = await api("/exchange", { key, body: order() });
    await api(`/sandbox/exchange/${floating.body.id}/deposit`, { key, body: { amount: "3.1" } });
    expect((await pollUntil(floating.body.id, ["finished", "failed"], { key })).order.status).toBe("finished");
  });

  it("refuses a rateId that is unknown, another reseller's, or for another pair or amount; toAmount needs fixed", async () => {
    const { key } = await makeReseller();
    const other = await makeReseller();
    const est = await api("/estimate?from=ltc&to=eth&amount=3&rateType=fixed", { key });
    const code = async (k: string | undefined, body: object) => (await api("/exchange", { key: k, body })).body.error?.code;
    expect(await code(key, order({ rateType: "fixed", rateId: "rate_000000000000000000000000" }))).toBe("INVALID_RATE_ID");
    expect(await code(other.key, order({ rateType: "fixed", rateId: est.body.rateId }))).toBe("INVALID_RATE_ID");
    expect(await code(undefined, order({ rateType: "fixed", rateId: est.body.rateId }))).toBe("INVALID_RATE_ID");
    expect(await code(key, order({ rateType: "fixed", rateId: est.body.rateId, amount: "4" }))).toBe("INVALID_RATE_ID");
    expect(await code(key, order({ to: "btc", address: addressFor("btc"), rateType: "fixed", rateId: est.body.rateId }))).toBe(
      "INVALID_RATE_ID",
    );
    expect(await code(key, order({ rateId: est.body.rateId }))).toBe("INVALID_REQUEST");
    const { amount: _, ...noAmount } = order();
    expect(await code(key, { ...noAmount, toAmount: "1" })).toBe("INVALID_REQUEST");
    expect(await code(key, { ...noAmount, toAmount: "1", rateType: "floating" })).toBe("INVALID_REQUEST");
    expect(await code(key, noAmount)).toBe("INVALID_REQUEST");
    expect((await api("/estimate?from=ltc&to=eth&amount=3&toAmount=1")).body.error.code).toBe("INVALID_REQUEST");
    expect((await api("/estimate?from=ltc&to=eth&amount=3&rateType=locked")).body.error.code).toBe("INVALID_REQUEST");
    // The rateId was never used up by the refusals: its owner still gets its terms.
    const ok = await api("/exchange", { key, body: order({ rateType: "fixed", rateId: est.body.rateId }) });
    expect(ok.status).toBe(201);
    expect(ok.body.toAmount).toBe(est.body.toAmount);
  });

  it("a rateId opens one order: of 20 concurrent orders on it, keyless and keyed alike, one is created", async () => {
    const { key } = await makeReseller();
    for (const caller of [{}, { key }]) {
      const est = await api("/estimate?from=ltc&to=eth&amount=3&rateType=fixed", caller);
      const body = order({ rateType: "fixed", rateId: est.body.rateId });
      const answers = await Promise.all(Array.from({ length: 20 }, () => api("/exchange", { ...caller, body })));
      expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(19).fill(409)]);
      for (const a of answers.filter((x) => x.status === 409)) expect(a.body.error.code).toBe("RATE_ID_USED");
    }
  });

  it("a late deposit is refunded, an expired rateId is refused (a server with a 3-second window, 1-second quotes)", async () => {
    const db = await migratedDatabase(inject("dbKind"));
    const server = await startApp({ databaseUrl: db.url, env: { FIXED_RATE_WINDOW_SECONDS: "3", QUOTE_TTL_SECONDS: "1" } });
    const call = async (path: string, body?: object) => {
      const r = await fetch(`${server.baseUrl}/api/v1${path}`, {
        method: body ? "POST" : "GET",
        headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: r.status, body: await r.json() };
    };
    try {
      const est = await call("/estimate?from=ltc&to=eth&amount=3&rateType=fixed");
      const late = await call("/exchange", order({ rateType: "fixed" }));
      expect(late.status).toBe(201);
      const inTime = await call("/exchange", order({ rateType: "fixed" }));
      expect((await call(`/sandbox/exchange/${inTime.body.id}/deposit`, {})).status).toBe(200);
      await sleep(3500);
      // The order still waits (ORDER_TTL_SECONDS), but its fixed window is over.
      const dep = await call(`/sandbox/exchange/${late.body.id}/deposit`, {});
      expect(dep.status).toBe(200);
      const expired = await call("/exchange", order({ rateType: "fixed", rateId: est.body.rateId }));
      expect(expired.status).toBe(422);
      expect(expired.body.error.code).toBe("RATE_EXPIRED");
      let done = dep.body;
      for (let i = 0; i < 200 && done.status !== "failed" && done.status !== "finished"; i++) {
        await sleep(50);
        done = (await call(`/exchange/${late.body.id}`)).body;
      }
      expect(done.status).toBe("failed");
      expect(done.failureReason).toBe("deposit_late");
      expect(done.refund).toMatchObject({ state: "sent", amount: 3 });
      for (let i = 0; i < 200 && done.status !== "finished"; i++) {
        await sleep(50);
        done = (await call(`/exchange/${inTime.body.id}`)).body;
      }
      expect(done.status).toBe("finished");
    } finally {
      await server.stop();
      await db.drop();
    }
  });
});

describe("reverse quotes", () => {
  it("toAmount instead of fromAmount: the fromAmount needed, then a fixed order that pays at least toAmount", async () => {
    const { key } = await makeReseller({ markupBps: 90 });
    const want = 1.5;
    const est = await api(`/estimate?from=btc&to=xmr&toAmount=${want}&rateType=fixed`, { key });
    expect(est.status, est.text).toBe(200);
    expect(est.body.toAmount).toBeGreaterThanOrEqual(want);
    const fromAmount = new D(String(est.body.fromAmount));
    // Rounded up to the source's precision, and the least that does it: one satoshi less pays less than 1.5.
    const btc = getCurrency("btc")!;
    expect(fromAmount.decimalPlaces()).toBeLessThanOrEqual(btc.precision);
    const floating = await api(`/estimate?from=btc&to=xmr&toAmount=${want}`, { key });
    expect(floating.body).toMatchObject({ fromAmount: est.body.fromAmount, rateType: "floating" });
    expect(floating.body.rateId).toBeUndefined();
    const lessEst = await api(`/estimate?from=btc&to=xmr&amount=${fromAmount.minus("0.00000001").toFixed()}`, { key });
    expect(lessEst.body.toAmount).toBeLessThan(want);

    const { amount: _, ...rest } = order({ from: "btc", to: "xmr", address: addressFor("xmr"), refundAddress: addressFor("btc") });
    const created = await api("/exchange", { key, body: { ...rest, toAmount: String(want), rateType: "fixed", rateId: est.body.rateId } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.fromAmount).toBe(est.body.fromAmount);
    expect(created.body.toAmount).toBe(est.body.toAmount);
    // Without a rateId, priced now and locked.
    const now = await api("/exchange", { key, body: { ...rest, toAmount: want, rateType: "fixed" } });
    expect(now.status, now.text).toBe(201);
    expect(now.body.toAmount).toBeGreaterThanOrEqual(want);

    await api(`/sandbox/exchange/${created.body.id}/deposit`, { key, method: "POST" });
    const { order: done } = await pollUntil(created.body.id, ["finished", "failed"], { key });
    expect(done.status).toBe("finished");
    expect(done.toAmount).toBeGreaterThanOrEqual(want);
  });
});
