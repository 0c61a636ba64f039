import { describe, expect, it } from "vitest";
import { getCurrency } from "@/lib/currencies";
import { getBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { addressFor, api, makeReseller, pollUntil, testDb, withinKeyChangeBound } from "../support/api";

// Done-when: with a 150 bps key, toAmount = floor(keyless toAmount * 0.985, precision), and
// the profit credited on finished = raw - marked-up, exactly.
const PAIRS: [string, string, string][] = [
  ["btc", "xmr", "0.05"],
  ["eth", "btc", "1.234567"],
  ["ltc", "usdterc20", "7.5"],
  ["xmr", "eth", "3.3"],
];

describe("markup of 150 bps", () => {
  for (const [from, to, amount] of PAIRS) {
    it(`${from} -> ${to}: estimate, order and credited profit are exact`, async () => {
      const { key, reseller } = await makeReseller({ markupBps: 150 });
      const precision = getCurrency(to)!.precision;
      const keyless = await api(`/estimate?from=${from}&to=${to}&amount=${amount}`);
      const keyed = await api(`/estimate?from=${from}&to=${to}&amount=${amount}`, { key });
      expect(keyless.status).toBe(200);
      expect(keyed.status).toBe(200);
      // Compare as decimals parsed from the response text, not as floats.
      const rawText = keyless.text.match(/"toAmount":([0-9.]+)/)![1];
      const keyedText = keyed.text.match(/"toAmount":([0-9.]+)/)![1];
      const expected = new D(rawText).mul("0.985").toDecimalPlaces(precision, D.ROUND_DOWN);
      expect(new D(keyedText).eq(expected)).toBe(true);
      expect(keyed.body.fee).toBe("1.75%");
      expect(keyless.body.fee).toBe("0.25%");

      const created = await api("/exchange", { key, body: { from, to, amount, address: addressFor(to), extraId: null } });
      expect(created.status).toBe(201);
      expect(new D(created.text.match(/"toAmount":([0-9.]+)/)![1]).eq(expected)).toBe(true);

      // Pending at creation ...
      const profit = new D(rawText).minus(expected);
      expect(await getBalances(testDb(), reseller.id)).toEqual([
        { currency: to, pending: profit.toFixed(), available: "0", reserved: "0" },
      ]);

      // ... available on finished, exactly raw - marked-up.
      await api(`/sandbox/exchange/${created.body.id}/deposit`, { key, method: "POST" });
      const { order } = await pollUntil(created.body.id, ["finished", "failed"], { key });
      expect(order.status).toBe("finished");
      const balances = await getBalances(testDb(), reseller.id);
      expect(balances).toHaveLength(1);
      expect(balances[0].pending).toBe("0");
      expect(new D(balances[0].available).eq(profit)).toBe(true);
      expect(profit.gt(0)).toBe(true);
      const entries = await testDb().ledgerEntry.findMany({ where: { resellerId: reseller.id }, orderBy: { id: "asc" } });
      expect(entries.map((e) => [e.kind, e.bucket])).toEqual([
        ["order_profit_pending", "pending"],
        ["order_profit_release", "pending"],
        ["order_profit_settle", "available"],
      ]);
    });
  }

  it("a markup change applies to new orders only", async () => {
    const { key, reseller } = await makeReseller({ markupBps: 150 });
    const first = await api("/exchange", { key, body: { from: "btc", to: "eth", amount: "0.02", address: addressFor("eth") } });
    const { setMarkup } = await import("@/lib/resellers/resellers");
    await setMarkup(testDb(), { resellerId: reseller.id, markupBps: 400 });
    // The server caches the key with its markup: the change applies within the key cache's bound.
    const estimate = () => api("/estimate?from=btc&to=eth&amount=0.02", { key });
    expect((await withinKeyChangeBound(estimate, (r) => r.body.fee === "4.25%")).body.fee).toBe("4.25%");
    const second = await api("/exchange", { key, body: { from: "btc", to: "eth", amount: "0.02", address: addressFor("eth") } });
    expect(second.body.toAmount).toBeLessThan(first.body.toAmount);
    const rows = await testDb().order.findMany({ where: { id: { in: [first.body.id, second.body.id] } } });
    expect(Object.fromEntries(rows.map((r) => [r.id, r.markupBps]))).toEqual({ [first.body.id]: 150, [second.body.id]: 400 });
  });
});
