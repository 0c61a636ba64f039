import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { confirmWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { runCli } from "../support/cli";
import { migratedDatabase, type TestDatabase } from "../support/server";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// The operator's withdrawal commands: withdrawals:list shows what the dashboard queued,
// withdrawals:retry makes a queued one due now and refuses any other state.

let t: TestDatabase;
let db: Db;

const cli = (...args: string[]) => runCli(t.url, args);

beforeAll(async () => {
  t = await migratedDatabase("sqlite");
  db = createDb(t.url);
});
afterAll(async () => {
  await db.$disconnect();
  await t.drop();
});

describe("operator CLI: withdrawals", () => {
  it("lists withdrawals and retries only a queued one", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: "r-cli", walletAddress: account.address.toLowerCase() } });
    await creditProfit(db, r.id, "eth", "0.02");
    const q = await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: "all" });
    const w = await confirmWithdrawal(db, { resellerId: r.id, nonce: q.nonce, signature: await signTypedDataJson(account, q.typedData) });
    await db.withdrawal.update({
      where: { id: w.id },
      data: { stateReason: "hot wallet holds 0 ETH", nextActionAt: new Date(Date.now() + 3_600_000) },
    });

    const list = await cli("withdrawals:list", account.address);
    expect(list.code).toBe(0);
    expect(list.out).toContain(w.id);
    expect(list.out).toMatch(/queued\s+0\.02 eth\s+to 0x/);
    expect(list.out).toContain("(hot wallet holds 0 ETH)");

    const retry = await cli("withdrawals:retry", w.id);
    expect(retry).toMatchObject({ code: 0 });
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: w.id } })).nextActionAt.getTime()).toBeLessThanOrEqual(Date.now());

    await db.withdrawal.update({ where: { id: w.id }, data: { status: "processing" } });
    const refused = await cli("withdrawals:retry", w.id);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/is processing; only a queued one can be retried/);
    expect((await cli("withdrawals:retry", "nope")).err).toMatch(/No withdrawal nope/);
    await db.withdrawal.update({ where: { id: w.id }, data: { status: "queued" } });
  });
});
