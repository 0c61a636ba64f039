import { describe, expect, it } from "vitest";
import { api, makeReseller, sleep } from "../support/api";

// A repeated floating estimate is answered from the text kept for its price (lib/quotes/
// price-memo.ts, lib/http/v1/estimate.ts): the same JSON as one serialised afresh, with this
// request's own validUntil, and a new answer as soon as the engine's rate moves.

const KEYS = ["fromCurrency", "toCurrency", "fromAmount", "toAmount", "rate", "fee", "validUntil", "minAmount", "maxAmount", "rateType"];
const withoutValidity = (text: string) => text.replace(/"validUntil":"[^"]*"/, '"validUntil":""');

/** A fixed-rate estimate of the same question: serialised field by field, never from kept text. */
async function afresh(query: string, key: string) {
  const fixed = await api(`/estimate?${query}&rateType=fixed`, { key });
  expect(fixed.status, fixed.text).toBe(200);
  const { rateId: _id, rateType: _type, validUntil: _until, ...fields } = fixed.body;
  return fields;
}

describe("a repeated floating estimate", () => {
  it("is the JSON of one serialised afresh, key order included, with its own validUntil; it follows a market move", async () => {
    const { key } = await makeReseller({ markupBps: 150 });
    const query = "from=ltc&to=btc&amount=2.75";
    const texts: string[] = [];
    for (const caller of [{ key }, {}]) {
      // The first ask is priced and serialised afresh; the second keeps the price and its text;
      // the third is answered from them.
      const answers = [];
      for (let ask = 0; ask < 3; ask++) {
        if (ask) await sleep(5);
        answers.push(await api(`/estimate?${query}`, caller));
      }
      const [first, second, third] = answers;
      expect(
        answers.map((a) => a.status),
        third.text,
      ).toEqual([200, 200, 200]);
      expect(Object.keys(third.body)).toEqual(KEYS);
      expect(withoutValidity(second.text)).toBe(withoutValidity(first.text));
      expect(withoutValidity(third.text)).toBe(withoutValidity(first.text));
      // Each answer's validity starts at its own request.
      expect(Date.parse(second.body.validUntil)).toBeGreaterThan(Date.parse(first.body.validUntil));
      expect(Date.parse(third.body.validUntil)).toBeGreaterThan(Date.parse(second.body.validUntil));
      expect(third.body.validUntil).toBe(new Date(third.body.validUntil).toISOString());
      expect(third.body.rateType).toBe("floating");
      texts.push(withoutValidity(third.text));
    }

    const before = await api(`/estimate?${query}`, { key });
    const { validUntil: _v, rateType: _t, ...fields } = before.body;
    expect(fields).toEqual(await afresh(query, key));
    expect(fields.fee).toBe("1.75%");

    expect((await api("/sandbox/engine", { key, body: { rateMoveBps: -300 } })).status).toBe(200);
    try {
      const moved = await api(`/estimate?${query}`, { key });
      expect(moved.body.toAmount).toBeLessThan(before.body.toAmount);
      const { validUntil: _m, rateType: _r, ...movedFields } = moved.body;
      expect(movedFields).toEqual(await afresh(query, key));
      // The keyless caller's market did not move.
      expect(withoutValidity((await api(`/estimate?${query}`)).text)).toBe(texts[1]);
    } finally {
      await api("/sandbox/engine", { key, body: { rateMoveBps: 0 } });
    }
    expect(withoutValidity((await api(`/estimate?${query}`, { key })).text)).toBe(withoutValidity(before.text));
  });
});
