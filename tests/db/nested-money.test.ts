import { afterAll, beforeAll, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// Money read through a relation (a withdrawal with its legs) stays exact on PostgreSQL.
// Prisma's relationJoins preview (one statement per include, tried for issue 12's
// GET /exchange/{id}) aggregates relations as JSON and handed this leg's amount back as
// "123456789012345690000000": a float. This fails if it, or anything like it, is turned on.
let t: TempDb;
let db: Db;
beforeAll(async () => {
  t = await tempDatabase("postgres");
  db = t.db;
});
afterAll(() => t?.cleanup());

it("keeps every digit of a NUMERIC read through an include", async () => {
  const amount = "123456789012345678901234.123456789012345678";
  const rate = "0.1000000000000000000001";
  await db.reseller.create({ data: { id: "r1", walletAddress: `0x${"1".repeat(40)}` } });
  await db.withdrawal.create({
    data: {
      id: "w1",
      resellerId: "r1",
      status: "queued",
      asset: "eth",
      decimals: 18,
      chainId: 1,
      destination: `0x${"1".repeat(40)}`,
      amount,
      usdValue: "1",
      feePolicy: "operator",
      fee: "0",
      confirmationNonce: "n1",
      legs: { create: [{ currency: "btc", amount, rate, priceUsd: "1", assetPriceUsd: "1" }] },
    },
  });
  const w = await db.withdrawal.findUniqueOrThrow({ where: { id: "w1" }, include: { legs: true } });
  expect(w.amount).toBe(amount);
  expect(w.legs[0]).toMatchObject({ amount, rate });
});
