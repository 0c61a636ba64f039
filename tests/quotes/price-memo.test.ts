import { LosslessNumber } from "lossless-json";
import { describe, expect, it } from "vitest";
import { getCurrency } from "@/lib/currencies";
import { applyRate } from "@/lib/domain/quote-math";
import { getEngine } from "@/lib/engine";
import { SimulatedEngine } from "@/lib/engine/simulated";
import { D } from "@/lib/money/decimal";
import { priceRequest } from "@/lib/quotes/get-estimate";
import { keepPrice, PRICE_MEMO_ENTRIES, priceMemoKey, priceMemoSize, recallPrice } from "@/lib/quotes/price-memo";
import { amountLimits } from "@/lib/quotes/pricing";
import { refusalOf } from "../support/app-error";
import { settingsForTests } from "../support/settings";

// A price is kept per question (pair, amount as sent, markup) only while the engine gives the
// terms it was computed from; every test checks the answer against the maths done afresh.

const btc = getCurrency("btc")!;
const eth = getCurrency("eth")!;
const ltc = getCurrency("ltc")!;
const settings = settingsForTests({ PLATFORM_FEE_BPS: "25", ENGINE: "simulated" }, { afterEach: true });

const engine = () => {
  const e = getEngine();
  if (!(e instanceof SimulatedEngine)) throw new Error("these tests need the simulated engine");
  return e;
};

/** What the amount pays out at the engine's current terms, computed without the memo. */
async function fresh(scope: string, amount: string, markupBps: number, from = btc, to = eth) {
  const terms = await engine().quote({ from, to, fromAmount: new D(amount), markupBps }, { scope });
  return applyRate(new D(amount), terms.rate, to.precision, markupBps).toAmount.toFixed();
}

const price = (scope: string, amount: unknown, markupBps: number, from = btc, to = eth) =>
  priceRequest(from, to, { fromAmount: amount }, { scope }, markupBps);

describe("the price memo", () => {
  it("keeps a question's price from its second ask: then the same frozen price, equal to the maths done afresh", async () => {
    const size = priceMemoSize();
    const once = await price("memo-same", "0.37", 0);
    // Asked once: priced, not kept.
    expect(Object.isFrozen(once)).toBe(false);
    expect(priceMemoSize()).toBe(size);
    const a = await price("memo-same", "0.37", 0);
    expect(priceMemoSize()).toBe(size + 1);
    const b = await price("memo-same", "0.37", 0);
    expect(b).toBe(a);
    expect(a.q.toAmount.eq(once.q.toAmount)).toBe(true);
    expect(Object.isFrozen(a) && Object.isFrozen(a.q) && Object.isFrozen(a.terms)).toBe(true);
    expect(a.q.toAmount.toFixed()).toBe(await fresh("memo-same", "0.37", 0));
    expect(a.terms).toMatchObject(amountLimits({ minAmount: new D(btc.minAmount), maxAmount: new D(btc.maxAmount) }, btc.precision));
    // A JSON number's text is its own question, with the same answer.
    expect((await price("memo-same", new LosslessNumber("0.37"), 0)).q.toAmount.eq(a.q.toAmount)).toBe(true);
    expect(priceMemoSize()).toBe(size + 1);
  });

  it("prices again when the engine's rate moves, and each markup has its own answer", async () => {
    await price("memo-move", "0.5", 150);
    const before = await price("memo-move", "0.5", 150);
    expect(await price("memo-move", "0.5", 150)).toBe(before);
    engine().setRateMove("memo-move", -500);
    try {
      const moved = await price("memo-move", "0.5", 150);
      expect(moved).not.toBe(before);
      expect(moved.q.toAmount.toFixed()).toBe(await fresh("memo-move", "0.5", 150));
      expect(moved.q.toAmount.lt(before.q.toAmount)).toBe(true);
      // Another scope's market did not move.
      expect((await price("memo-still", "0.5", 150)).q.toAmount.eq(before.q.toAmount)).toBe(true);
    } finally {
      engine().setRateMove("memo-move", 0);
    }
    expect((await price("memo-move", "0.5", 150)).q.toAmount.eq(before.q.toAmount)).toBe(true);
    const keyless = await price("memo-move", "0.5", 0);
    expect(keyless.q.toAmount.toFixed()).toBe(await fresh("memo-move", "0.5", 0));
    expect(keyless.q.toAmount.gt(before.q.toAmount)).toBe(true);
  });

  it("prices again when the platform fee changes", async () => {
    await price("memo-fee", "2", 0, ltc, btc);
    const before = await price("memo-fee", "2", 0, ltc, btc);
    expect(await price("memo-fee", "2", 0, ltc, btc)).toBe(before);
    settings.set({ PLATFORM_FEE_BPS: "80" });
    const after = await price("memo-fee", "2", 0, ltc, btc);
    expect(after.terms.platformFeeBps).toBe(80);
    expect(after.q.toAmount.toFixed()).toBe(await fresh("memo-fee", "2", 0, ltc, btc));
    expect(after.q.toAmount.lt(before.q.toAmount)).toBe(true);
  });

  it("keeps no refusal: an amount below the minimum is refused every time", async () => {
    const size = priceMemoSize();
    for (let i = 0; i < 2; i++) expect(await refusalOf(price("memo-low", "0.00000001", 0))).toMatchObject({ code: "AMOUNT_TOO_LOW" });
    expect(priceMemoSize()).toBe(size);
  });

  it("answers only for the very terms it was computed from: each field of them, and the pair", () => {
    const terms = { rate: new D("15.5"), platformFeeBps: 25, minAmount: new D("0.001"), maxAmount: new D("10") };
    const q = applyRate(new D("1"), terms.rate, eth.precision, 0);
    const key = priceMemoKey(btc, eth, "1", 0)!;
    const kept = keepPrice(key, btc, eth, terms, { fromAmount: new D("1"), terms, q });
    // Equal values, other objects: still the same terms.
    const same = { rate: new D("15.5"), platformFeeBps: 25, minAmount: new D("0.0010"), maxAmount: new D("10") };
    expect(recallPrice(key, btc, eth, same)).toBe(kept);
    for (const changed of [
      { ...same, rate: new D("15.50000000000000000000001") },
      { ...same, platformFeeBps: 26 },
      { ...same, minAmount: new D("0.002") },
      { ...same, maxAmount: new D("9") },
    ])
      expect(recallPrice(key, btc, eth, changed)).toBeUndefined();
    expect(recallPrice(key, btc, ltc, same)).toBeUndefined();
    expect(recallPrice(key, ltc, eth, same)).toBeUndefined();
  });

  it("keys only amounts worth keeping: texts and JSON numbers of modest length", () => {
    expect(priceMemoKey(btc, eth, "0.5", 150)).toBe("btc>eth|150|0.5");
    expect(priceMemoKey(btc, eth, new LosslessNumber("5e-1"), 0)).toBe("btc>eth|0|#5e-1");
    expect(priceMemoKey(btc, eth, 0.5, 0)).toBeNull();
    expect(priceMemoKey(btc, eth, `${" ".repeat(60)}0.5`, 0)).toBeNull();
  });

  it(`holds at most ${PRICE_MEMO_ENTRIES} questions, forgetting the oldest first`, async () => {
    await price("memo-bound", "0.05", 0);
    const first = await price("memo-bound", "0.05", 0);
    expect(await price("memo-bound", "0.05", 0)).toBe(first);
    for (let i = 0; i < PRICE_MEMO_ENTRIES; i++)
      for (let ask = 0; ask < 2; ask++) await price("memo-bound", `0.1${String(i).padStart(7, "0")}`, 0);
    expect(priceMemoSize()).toBe(PRICE_MEMO_ENTRIES);
    // The first question was forgotten: the same answer, priced again into a new object.
    const again = await price("memo-bound", "0.05", 0);
    expect(again).not.toBe(first);
    expect(again.q.toAmount.eq(first.q.toAmount)).toBe(true);
    expect(priceMemoSize()).toBe(PRICE_MEMO_ENTRIES);
  });
});
