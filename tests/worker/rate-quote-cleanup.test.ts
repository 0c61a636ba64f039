import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { runWorkerOnce } from "@/lib/worker/run-worker";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

describe("the worker drops old fixed-rate quotes", () => {
  let t: TempDb;
  let db: Db;
  beforeAll(async () => {
    t = await tempDatabase("sqlite");
    db = t.db;
  });
  afterAll(() => t.cleanup());

  it("a day after their validUntil, not before", async () => {
    const now = new Date();
    const quote = (id: string, validUntil: Date) =>
      db.rateQuote.create({
        data: {
          id,
          fromCurrency: "btc",
          toCurrency: "eth",
          fromAmount: "1",
          rate: "20",
          rawToAmount: "20",
          toAmount: "19",
          profit: "1",
          platformFeeBps: 25,
          markupBps: 0,
          validUntil,
        },
      });
    await quote("rate_old", new Date(now.getTime() - 25 * 3600 * 1000));
    await quote("rate_recent", new Date(now.getTime() - 3600 * 1000));
    await runWorkerOnce(db, now);
    expect((await db.rateQuote.findMany({ orderBy: { id: "asc" } })).map((q) => q.id)).toEqual(["rate_recent"]);
  });
});
