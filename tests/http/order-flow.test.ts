import { describe, expect, it } from "vitest";
import { getBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { addressFor, api, makeReseller, pollUntil, testDb } from "../support/api";

const HAPPY = ["waiting", "confirming", "exchanging", "sending", "finished"];

describe("a whole order, estimate to finished", () => {
  it("keyless: estimate, create, sandbox deposit, every state in order", async () => {
    const est = await api("/estimate?fromCurrency=btc&toCurrency=eth&fromAmount=0.05");
    expect(est.status).toBe(200);
    expect(est.body).toMatchObject({ fromCurrency: "btc", toCurrency: "eth", fromAmount: 0.05 });
    expect(typeof est.body.toAmount).toBe("number");
    expect(new Date(est.body.validUntil).getTime()).toBeGreaterThan(Date.now());

    const payout = addressFor("eth");
    const created = await api("/exchange", {
      body: { from: "btc", to: "eth", amount: "0.05", address: payout, refundAddress: addressFor("btc") },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: "waiting",
      fromCurrency: "btc",
      toCurrency: "eth",
      payoutAddress: payout,
      payinExtraId: null,
    });
    // The order pays out exactly what the estimate said a moment before.
    expect(created.body.toAmount).toBe(est.body.toAmount);
    const id = created.body.id;
    expect(id).toMatch(/^[0-9a-f]{24}$/);

    const dep = await api(`/sandbox/exchange/${id}/deposit`, { method: "POST" });
    expect(dep.status).toBe(200);
    expect(dep.body.status).toBe("confirming");
    expect(dep.body.amountReceived).toBe(0.05);

    const { order, seen } = await pollUntil(id, ["finished", "failed"]);
    expect(order.status).toBe("finished");
    // What polling saw is a subsequence of the happy path, and the history has every state in order.
    expect(seen.every((s, i) => i === 0 || HAPPY.indexOf(s) > HAPPY.indexOf(seen[i - 1]))).toBe(true);
    expect(order.history.map((h: { status: string }) => h.status)).toEqual(HAPPY);
    const times = order.history.map((h: { at: string }) => Date.parse(h.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(order.payinHash).toMatch(/^[0-9a-f]{64}$/);
    expect(order.payoutHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(order.failureReason).toBeNull();
    expect(order.refund).toBeNull();
  });

  it("the /v1 alias and the short query names answer the same", async () => {
    const a = await api("/estimate?from=ltc&to=xmr&amount=3");
    const b = await api("/estimate?fromCurrency=LTC&toCurrency=XMR&fromAmount=3", { prefix: "/v1" });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.toAmount).toBe(a.body.toAmount);
    expect(b.body.fromCurrency).toBe("ltc");
  });

  it("a deposit below the pair minimum fails the order and refunds it to refundAddress", async () => {
    const { key } = await makeReseller({ markupBps: 100 });
    const refundAddress = addressFor("ltc");
    const est = await api("/estimate?from=ltc&to=eth&amount=5", { key });
    const created = await api("/exchange", {
      key,
      body: { from: "ltc", to: "eth", amount: "5", address: addressFor("eth"), refundAddress },
    });
    expect(created.status).toBe(201);
    const tooLittle = new D(est.body.minAmount).div(2).toDecimalPlaces(8).toFixed();
    const dep = await api(`/sandbox/exchange/${created.body.id}/deposit`, { key, body: { amount: tooLittle } });
    expect(dep.status).toBe(200);
    const { order } = await pollUntil(created.body.id, ["finished", "failed"], { key });
    expect(order.status).toBe("failed");
    expect(order.failureReason).toBe("deposit_below_minimum");
    expect(order.refundAddress).toBe(refundAddress);
    expect(order.refund).toMatchObject({ state: "sent", amount: Number(tooLittle) });
    expect(order.refund.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(order.history.map((h: { status: string }) => h.status)).toEqual(["waiting", "confirming", "failed"]);
  });

  it("without a refund address the failed order's refund waits for one", async () => {
    const created = await api("/exchange", { body: { from: "ltc", to: "btc", amount: "5", address: addressFor("btc") } });
    const est = await api("/estimate?from=ltc&to=btc&amount=5");
    const tooMuch = new D(est.body.maxAmount).plus(1).toFixed();
    await api(`/sandbox/exchange/${created.body.id}/deposit`, { body: { amount: tooMuch } });
    const { order } = await pollUntil(created.body.id, ["finished", "failed"]);
    expect(order.failureReason).toBe("deposit_above_maximum");
    expect(order.refund).toMatchObject({ state: "awaiting_address", hash: null });
  });

  it("a different deposit within limits is re-priced at the order's rate and markup", async () => {
    const { key, reseller } = await makeReseller({ markupBps: 200 });
    const created = await api("/exchange", { key, body: { from: "eth", to: "btc", amount: "2", address: addressFor("btc") } });
    await api(`/sandbox/exchange/${created.body.id}/deposit`, { key, body: { amount: "1.5" } });
    const { order } = await pollUntil(created.body.id, ["finished", "failed"], { key });
    expect(order.status).toBe("finished");
    const est = await api("/estimate?from=eth&to=btc&amount=1.5", { key });
    expect(order.toAmount).toBe(est.body.toAmount);
    expect(order.amountReceived).toBe(1.5);
    const row = await testDb().order.findUniqueOrThrow({ where: { id: order.id } });
    const balances = await getBalances(testDb(), reseller.id);
    expect(balances).toEqual([{ currency: "btc", pending: "0", available: row.profit, reserved: "0" }]);
    expect(new D(row.rawToAmount).minus(row.toAmount).eq(row.profit)).toBe(true);
  });

  it("an order without a deposit expires when the worker passes its deadline", async () => {
    const { runWorkerOnce } = await import("@/lib/worker/run-worker");
    const { key, reseller } = await makeReseller({ markupBps: 50 });
    const created = await api("/exchange", { key, body: { from: "btc", to: "ltc", amount: "0.01", address: addressFor("ltc") } });
    const row = await testDb().order.findUniqueOrThrow({ where: { id: created.body.id } });
    // A second worker (this test process) racing the server's own one, an hour and a bit later.
    // The server's worker may hold the order's claim at that moment (a busy machine makes that
    // likelier): then this pass skips it, and the next one, once the claim is released, takes it.
    let r = await api(`/exchange/${created.body.id}`, { key });
    for (let pass = 0; pass < 50 && r.body.status === "waiting"; pass++) {
      if (pass) await new Promise((done) => setTimeout(done, 100));
      await runWorkerOnce(testDb(), new Date(row.expiresAt.getTime() + 1000));
      r = await api(`/exchange/${created.body.id}`, { key });
    }
    expect(r.body.status).toBe("failed");
    expect(r.body.failureReason).toBe("expired");
    expect(r.body.refund).toBeNull();
    const late = await api(`/sandbox/exchange/${created.body.id}/deposit`, { key, method: "POST" });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("INVALID_ORDER_STATE");
    // The pending profit was reversed: nothing pending, nothing available.
    expect(await getBalances(testDb(), reseller.id)).toEqual([{ currency: "ltc", pending: "0", available: "0", reserved: "0" }]);
  });

  it("an order made with a key is invisible to other resellers and to keyless callers", async () => {
    const a = await makeReseller();
    const b = await makeReseller();
    const created = await api("/exchange", { key: a.key, body: { from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") } });
    expect((await api(`/exchange/${created.body.id}`, { key: a.key })).status).toBe(200);
    for (const r of [await api(`/exchange/${created.body.id}`, { key: b.key }), await api(`/exchange/${created.body.id}`)]) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("ORDER_NOT_FOUND");
    }
    const dep = await api(`/sandbox/exchange/${created.body.id}/deposit`, { key: b.key, method: "POST" });
    expect(dep.status).toBe(404);
  });
});
