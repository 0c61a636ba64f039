import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountSums } from "@/lib/ledger/account-sums";
import { LARGE_WRITE_TRANSACTION } from "../support/ledger";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// accountSums (the treasury's reconciliation and the console's provider health read it): each
// account's balance per currency for the accounts under a prefix, summed exactly over pages of
// 5,000 lines. One balanced journal written straight into the tables: the function reads any.

describe.each(["sqlite", "postgres"] as const)("accountSums on %s", (kind) => {
  let t: TempDb;
  beforeAll(async () => {
    t = await tempDatabase(kind);
    const line = (account: string, currency: string, amount: string) => ({ journalId: "sums", account, currency, amount });
    // More than one page for one account: 5,001 lines of 0.1 (a float sum would not be 500.1).
    const many = Array.from({ length: 5001 }, () => line("treasury:hot", "eth", "0.1"));
    const data = [
      ...many,
      line("treasury:hot", "btc", "123456789012345678.000000000000000001"),
      line("treasury:hot", "btc", "0.000000000000000002"),
      line("treasury:cold", "eth", "-7.25"),
      line("treasuryx", "eth", "1"),
      line("commission:changenow", "btc", "3"),
      line("world", "eth", "-500.1"),
      // The journal balances in each currency, as the database requires.
      line("world", "eth", "6.25"),
      line("world", "btc", "-123456789012345681.000000000000000003"),
    ];
    // 5,009 lines in one interactive transaction ran past Prisma's default limits on PostgreSQL
    // when the machine was loaded (the file failed there).
    await t.db.$transaction(async (tx) => {
      await tx.journalLine.createMany({ data });
      await tx.journal.create({ data: { id: "sums", kind: "adjustment", lines: data.length } });
    }, LARGE_WRITE_TRANSACTION);
  });
  afterAll(async () => t?.cleanup());

  it("sums each account and currency under the prefix exactly, across pages, and nothing else", async () => {
    const sums = await accountSums(t.db, "treasury:");
    expect(Object.fromEntries([...sums].map(([k, v]) => [k, v.toFixed()]))).toEqual({
      "treasury:hot eth": "500.1",
      "treasury:hot btc": "123456789012345678.000000000000000003",
      "treasury:cold eth": "-7.25",
    });
  });

  it("an empty map for a prefix no account has; one account by its whole name", async () => {
    expect((await accountSums(t.db, "nobody:")).size).toBe(0);
    expect(Object.fromEntries([...(await accountSums(t.db, "commission:"))].map(([k, v]) => [k, v.toFixed()]))).toEqual({
      "commission:changenow btc": "3",
    });
  });
});
