import { isLosslessNumber, type LosslessNumber, parse } from "lossless-json";
import { describe, expect, it } from "vitest";
import { getCurrency } from "@/lib/currencies";
import { D } from "@/lib/money/decimal";
import { addressFor, api, isErrorShape } from "../support/api";

// Amounts end to end (docs/api.md, Amounts). Every response here is read with lossless-json, so
// a number that went through a double anywhere (in the server, or in a JSON.parse of the
// test's own) would show as a different text.

/** The response text as JSON with every number kept as its exact text. */
const exact = (text: string) => parse(text) as any;
const textOf = (n: unknown) => {
  expect(isLosslessNumber(n), `not a JSON number: ${String(n)}`).toBe(true);
  return (n as LosslessNumber).toString();
};

/** What a JavaScript client reads: the amount must come back as the same decimal. */
function expectExactInJavaScript(n: unknown, precision?: number) {
  const text = textOf(n);
  const d = new D(text);
  expect(d.sd(), text).toBeLessThanOrEqual(15);
  if (precision !== undefined) expect(d.decimalPlaces(), text).toBeLessThanOrEqual(precision);
  expect(new D(String(JSON.parse(text))).eq(d), `${text} changes in a double`).toBe(true);
}

const order = (amount: string, from = "btc", to = "eth") =>
  `{"from":"${from}","to":"${to}","amount":${amount},"address":"${addressFor(to)}"}`;

describe("exact amounts", () => {
  it('posts "amount": 9123456789.12345678 as a JSON number and gets it back exactly', async () => {
    // 18 significant digits: JSON.parse would read 9123456789.123457. The service reads the
    // exact text and refuses it (no client could read it back exactly), quoting what it got.
    for (const from of ["btc", "pepe"]) {
      const r = await api("/exchange", { rawBody: order("9123456789.12345678", from), headers: { "content-type": "application/json" } });
      expect(r.status, r.text).toBe(422);
      const body = exact(r.text);
      expect(isErrorShape(body)).toBe(true);
      expect(body.error.code).toBe("INVALID_AMOUNT");
      expect(body.error.message).toContain("received 9123456789.12345678 (18)");
    }
    // The same amount with 15 significant digits is taken, and every answer echoes it exactly.
    const created = await api("/exchange", { rawBody: order("9123456789.12345", "pepe"), headers: { "content-type": "application/json" } });
    expect(created.status, created.text).toBe(201);
    const o = exact(created.text);
    expect(textOf(o.fromAmount)).toBe("9123456789.12345");
    expectExactInJavaScript(o.toAmount, getCurrency("eth")!.precision);
    const status = exact((await api(`/exchange/${o.id}`)).text);
    expect(textOf(status.fromAmount)).toBe("9123456789.12345");
    expect(textOf(status.toAmount)).toBe(textOf(o.toAmount));
    const estimate = await api("/estimate?from=pepe&to=eth&amount=9123456789.12345");
    expect(textOf(exact(estimate.text).fromAmount)).toBe("9123456789.12345");
  });

  it("an amount with more places than the currency has is refused, as a string, a JSON number or a query", async () => {
    // btc has 8 decimal places; xec has 2.
    const cases: [string, string, string][] = [
      ['"0.123456789"', "btc", "received 0.123456789 (9)"],
      ["0.123456789", "btc", "received 0.123456789 (9)"],
      ["2000000.001", "xec", "received 2000000.001 (3)"],
    ];
    for (const [amount, from, quoted] of cases) {
      const r = await api("/exchange", { rawBody: order(amount, from), headers: { "content-type": "application/json" } });
      expect(r.status, r.text).toBe(422);
      expect(exact(r.text).error.code).toBe("INVALID_AMOUNT");
      expect(exact(r.text).error.message).toContain(`at most ${getCurrency(from)!.precision} decimal places; ${quoted}`);
    }
    const q = await api("/estimate?from=btc&to=eth&amount=0.123456789");
    expect(q.status).toBe(422);
    expect(exact(q.text).error.message).toContain("received 0.123456789 (9)");
    // Trailing zeros are not places: 0.1000000000 is 0.1.
    expect((await api("/exchange", { rawBody: order("0.1000000000"), headers: { "content-type": "application/json" } })).status).toBe(201);
  });

  it("a JSON number in exponent form is read exactly", async () => {
    const r = await api("/exchange", { rawBody: order("5e-2"), headers: { "content-type": "application/json" } });
    expect(r.status, r.text).toBe(201);
    expect(textOf(exact(r.text).fromAmount)).toBe("0.05");
  });

  it("an output longer than 15 significant digits is floored to 15 (the currency's 8 places would give 18)", async () => {
    const r = await api("/estimate?from=btc&to=pepe&amount=0.5");
    expect(r.status, r.text).toBe(200);
    const e = exact(r.text);
    expectExactInJavaScript(e.toAmount, 8);
    const to = new D(textOf(e.toAmount));
    expect(to.gt(1e9)).toBe(true);
    expect(to.sd()).toBeLessThanOrEqual(15);
    expect(to.decimalPlaces()).toBeLessThan(8);
    for (const k of ["fromAmount", "rate", "minAmount", "maxAmount"]) expectExactInJavaScript(e[k]);
  });

  it("every amount of /currencies, /estimate, /exchange and the status is exact in JavaScript", async () => {
    const list = exact((await api("/currencies")).text).currencies;
    expect(list.length).toBeGreaterThan(170);
    for (const c of list) {
      expectExactInJavaScript(c.minAmount, Number(textOf(c.precision)));
      expectExactInJavaScript(c.maxAmount, Number(textOf(c.precision)));
    }
    // Limits are rounded inward: 12345679012.34567901 pepe is answered as 12345679012.3456.
    const pepe = list.find((c: { ticker: string }) => c.ticker === "pepe");
    expect(textOf(pepe.maxAmount)).toBe("12345679012.3456");
    const over = await api("/estimate?from=pepe&to=eth&amount=12345679012.3457");
    expect(exact(over.text).error.code).toBe("AMOUNT_TOO_HIGH");
    expect(textOf(exact(over.text).error.maxAmount)).toBe("12345679012.3456");
    expect((await api("/estimate?from=pepe&to=eth&amount=12345679012.3456")).status).toBe(200);

    for (const [from, to, amount] of [
      ["btc", "eth", "0.123"],
      ["eth", "xmr", "1.5"],
      ["xec", "btc", "2000000.01"],
    ]) {
      const e = exact((await api(`/estimate?from=${from}&to=${to}&amount=${amount}`)).text);
      for (const k of ["fromAmount", "toAmount", "rate", "minAmount", "maxAmount"]) expectExactInJavaScript(e[k]);
      const created = await api("/exchange", { body: { from, to, amount, address: addressFor(to) } });
      expect(created.status, created.text).toBe(201);
      const o = exact(created.text);
      expectExactInJavaScript(o.fromAmount, getCurrency(from)!.precision);
      expectExactInJavaScript(o.toAmount, getCurrency(to)!.precision);
      const received = new D(amount).mul(0.9).toDecimalPlaces(getCurrency(from)!.precision, D.ROUND_DOWN).toFixed();
      const deposit = await api(`/sandbox/exchange/${o.id}/deposit`, { body: { amount: received } });
      expect(deposit.status, deposit.text).toBe(200);
      expectExactInJavaScript(exact(deposit.text).amountReceived, getCurrency(from)!.precision);
    }
  });
});
