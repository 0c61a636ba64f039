import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { claimRateQuote } from "@/lib/orders/claim-rate-quote";
import { orderRow } from "../support/orders";
import { type TempDb, tempSqlite } from "../support/sqlite-db";

// A fixed-rate quote opens one order (lib/orders/claim-rate-quote.ts), on SQLite: who may claim
// it, a dead claim taken over, a live one refused, a quote gone, and the bound on the rounds.

let t: TempDb;
let db: Db;
beforeAll(async () => {
  t = await tempSqlite();
  db = t.db;
});
afterAll(() => t.cleanup());

let n = 0;
async function quote(orderId: string | null = null): Promise<string> {
  const id = `rq-${++n}`;
  await db.rateQuote.create({
    data: {
      id,
      fromCurrency: "btc",
      toCurrency: "eth",
      fromAmount: "0.1",
      rate: "15",
      rawToAmount: "1.5",
      toAmount: "1.5",
      profit: "0",
      platformFeeBps: 25,
      markupBps: 0,
      validUntil: new Date(Date.now() + 60_000),
      orderId,
    },
  });
  return id;
}
const holderOf = async (id: string) => (await db.rateQuote.findUniqueOrThrow({ where: { id } })).orderId;
const order = (id: string) => db.order.create({ data: orderRow(id) });
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code?: string; message?: string }) => ({ code: e.code, message: e.message }),
  );
const USED = { code: "RATE_ID_USED", message: "This rateId was already used to open an order; get a new fixed-rate estimate." };

describe("claimRateQuote", () => {
  it("an unclaimed quote is claimed by the order; the same order claiming again is fine", async () => {
    await order("cq-a");
    const q = await quote();
    await claimRateQuote(db, { rateId: q, orderId: "cq-a" });
    expect(await holderOf(q)).toBe("cq-a");
    await claimRateQuote(db, { rateId: q, orderId: "cq-a" });
    expect(await holderOf(q)).toBe("cq-a");
  });

  it("a quote another existing order holds is refused, and stays that order's", async () => {
    await order("cq-live");
    const q = await quote("cq-live");
    expect(await refusal(claimRateQuote(db, { rateId: q, orderId: "cq-b" }))).toEqual(USED);
    expect(await holderOf(q)).toBe("cq-live");
  });

  it("a quote whose holder no longer exists (its opening failed) is taken over", async () => {
    const q = await quote("cq-dropped");
    await claimRateQuote(db, { rateId: q, orderId: "cq-c" });
    expect(await holderOf(q)).toBe("cq-c");
  });

  it("a quote gone (the daily cleanup dropped it) is an unknown rateId", async () => {
    expect(await refusal(claimRateQuote(db, { rateId: "rq-none", orderId: "cq-d" }))).toEqual({
      code: "INVALID_RATE_ID",
      message: "This rateId is unknown; get a fixed-rate estimate for this order first.",
    });
  });

  it("gives up after three rounds when each dead holder it sees is replaced by another before its claim", async () => {
    const q = await quote("cq-dead-0");
    let claims = 0;
    // Racers whose reservations are dropped at once: each round finds a new dead holder.
    const racing = new Proxy(db, {
      get(target, p, receiver) {
        if (p !== "rateQuote") return Reflect.get(target, p, receiver);
        return new Proxy(target.rateQuote, {
          get(rq, k) {
            if (k !== "updateMany") return Reflect.get(rq, k);
            return async (args: Parameters<typeof rq.updateMany>[0]) => {
              claims++;
              if (claims > 10) throw new Error("no bound on the rounds");
              await rq.update({ where: { id: q }, data: { orderId: `cq-dead-${claims}` } });
              return rq.updateMany(args);
            };
          },
        });
      },
    });
    expect(await refusal(claimRateQuote(racing, { rateId: q, orderId: "cq-e" }))).toEqual(USED);
    expect(claims).toBe(3);
  });
});
