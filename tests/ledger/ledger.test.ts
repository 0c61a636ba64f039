import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { getBalances, recordPendingProfit, reverseProfit, settleProfit, sumBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";

describe("sumBalances", () => {
  it("sums exactly where floats would not", () => {
    const entries = Array.from({ length: 10 }, () => ({ currency: "eth", bucket: "available", amount: "0.1" }));
    expect(sumBalances(entries)).toEqual([{ currency: "eth", pending: "0", available: "1" }]);
    expect(sumBalances([{ currency: "eth", bucket: "pending", amount: "123456789.123456789012345678" }])[0].pending).toBe(
      "123456789.123456789012345678",
    );
  });

  it("property: each balance equals the exact sum of its entries, per currency and bucket", () => {
    const entry = fc.record({
      currency: fc.constantFrom("btc", "eth", "xmr"),
      bucket: fc.constantFrom("pending", "available"),
      amount: fc
        .tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 18 }))
        .map(([n, s]) => new D(n.toString()).div(new D(10).pow(s)).toFixed()),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 60 }), (entries) => {
        const balances = sumBalances(entries);
        for (const b of balances)
          for (const bucket of ["pending", "available"] as const) {
            const sum = entries
              .filter((e) => e.currency === b.currency && e.bucket === bucket)
              .reduce((s, e) => s.plus(e.amount), new D(0));
            expect(new D(b[bucket]).eq(sum)).toBe(true);
          }
        expect(balances.map((b) => b.currency)).toEqual([...new Set(entries.map((e) => e.currency))].sort());
      }),
    );
  });
});

describe("ledger postings on a real database (SQLite)", () => {
  let dir: string;
  let db: Db;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ledger-"));
    const url = `file:${path.join(dir, "l.db")}`;
    await migrate(url);
    db = createDb(url);
    await db.reseller.create({ data: { id: "r1", walletAddress: "0x0000000000000000000000000000000000000001" } });
  });
  afterAll(async () => {
    await db.$disconnect();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const makeOrder = async (id: string) =>
    db.order.create({
      data: {
        id,
        resellerId: "r1",
        fromCurrency: "btc",
        toCurrency: "xmr",
        fromAmount: "1",
        rate: "1",
        rawToAmount: "50",
        toAmount: "49.25",
        platformFeeBps: 25,
        markupBps: 150,
        profit: "0.75",
        payinAddress: "x",
        payoutAddress: "y",
        status: "waiting",
        expiresAt: new Date(),
      },
    });

  it("pending at creation, available on finish (recomputed), reversed on failure; each posting once", async () => {
    const a = await makeOrder("a");
    const b = await makeOrder("b");
    await db.$transaction((tx) => recordPendingProfit(tx, a, new D("0.75")));
    await db.$transaction((tx) => recordPendingProfit(tx, b, new D("0.75")));
    expect(await getBalances(db, "r1")).toEqual([{ currency: "xmr", pending: "1.5", available: "0" }]);

    await db.$transaction((tx) => settleProfit(tx, a, new D("0.6")));
    expect(await getBalances(db, "r1")).toEqual([{ currency: "xmr", pending: "0.75", available: "0.6" }]);
    // Settling twice cannot double-credit: the unique (orderId, kind) refuses it and the transaction rolls back.
    await expect(db.$transaction((tx) => settleProfit(tx, a, new D("0.6")))).rejects.toThrow();
    await db.$transaction((tx) => reverseProfit(tx, b));
    expect(await getBalances(db, "r1")).toEqual([{ currency: "xmr", pending: "0", available: "0.6" }]);
    expect(await db.ledgerEntry.count()).toBe(5);
  });
});
