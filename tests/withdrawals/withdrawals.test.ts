import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { createSimulatedSender } from "@/lib/withdrawals/sender/simulated";
import { confirmWithdrawal, quoteWithdrawal, retryWithdrawal } from "@/lib/withdrawals/withdrawals";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// Withdrawals on both real databases: the EIP-712 confirmation, the reservation made in the
// same transaction that checks the balance, the lifecycle with the simulated sender, and the
// ledger invariants.

const code = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return "OK";
};

// Under mutation testing (MUTATION_RUN, vitest.mutation.config.ts) SQLite only, to keep it fast.
describe.each(process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const))("withdrawals on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  settingsForTests({
    PAYOUT_CHAIN_ID: "31337",
    WITHDRAWAL_MIN_USD: "10",
    PAYOUT_TOKENS: "usdc=0x5FbDB2315678afecb367f032d93F642f64180aa3",
  });
  const reseller = async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() } });
    return { id: r.id, account };
  };

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("quotes at reference prices, queues on a valid signature, reserves, and is paid once to confirmed", async () => {
    const { id, account } = await reseller();
    await creditProfit(db, id, "eth", "0.5");
    await creditProfit(db, id, "btc", "0.01");
    const q = await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: "all" });
    expect(q.destination).toBe(account.address);
    expect(q.legs.map((l) => l.currency)).toEqual(["btc", "eth"]);
    expect(q.legs.find((l) => l.currency === "eth")!.rate).toBe("1");
    const w = await confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: await signTypedDataJson(account, q.typedData) });
    expect(w).toMatchObject({ status: "queued", amount: q.amount, asset: "eth" });
    expect(await getBalances(db, id)).toEqual([
      { currency: "btc", pending: "0", available: "0", reserved: "0.01" },
      { currency: "eth", pending: "0", available: "0", reserved: "0.5" },
    ]);
    expect((await checkLedger(db)).violations).toEqual([]);

    const sender = createSimulatedSender(31337);
    for (let i = 0; i < 5; i++) await runWithdrawalsOnce(db, sender, { now: new Date(Date.now() + i * 10_000) });
    const done = await db.withdrawal.findUniqueOrThrow({ where: { id: w.id }, include: { txs: true } });
    expect(done.status).toBe("confirmed");
    expect(done.txs.map((x) => x.status)).toEqual(["mined"]);
    expect(await getBalances(db, id)).toEqual([
      { currency: "btc", pending: "0", available: "0", reserved: "0" },
      { currency: "eth", pending: "0", available: "0", reserved: "0" },
    ]);
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  it("a team's finance member or another owner signs for the account, paid to the account's wallet; a developer, a viewer or an outsider cannot (issue 54)", async () => {
    const { id, account } = await reseller();
    await creditProfit(db, id, "eth", "1");
    const member = async (role: string) => {
      const a = privateKeyToAccount(generatePrivateKey());
      await db.resellerMember.create({
        data: { id: `m-${a.address.slice(2, 14)}`, resellerId: id, walletAddress: a.address.toLowerCase(), role },
      });
      return a;
    };
    const [finance, owner2, developer, viewer] = [
      await member("finance"),
      await member("owner"),
      await member("developer"),
      await member("viewer"),
    ];
    const outsider = privateKeyToAccount(generatePrivateKey());
    const q = await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: ["eth"] });
    expect(q.destination).toBe(account.address);
    for (const who of [developer, viewer, outsider])
      expect(
        await code(
          confirmWithdrawal(db, {
            resellerId: id,
            nonce: q.nonce,
            signature: await signTypedDataJson(who, q.typedData),
            signer: who.address,
          }),
        ),
      ).toBe("FORBIDDEN");
    // The finance member's signature stands for itself only: not for the account's wallet, nor for another member.
    const byFinance = await signTypedDataJson(finance, q.typedData);
    expect(await code(confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: byFinance }))).toBe("INVALID_SIGNATURE");
    expect(await code(confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: byFinance, signer: owner2.address }))).toBe(
      "INVALID_SIGNATURE",
    );
    const w = await confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: byFinance, signer: finance.address });
    expect(w).toMatchObject({ status: "queued", destination: account.address });
    // Another owner, on a new quote.
    await creditProfit(db, id, "eth", "1");
    const q2 = await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: ["eth"] });
    const w2 = await confirmWithdrawal(db, {
      resellerId: id,
      nonce: q2.nonce,
      signature: await signTypedDataJson(owner2, q2.typedData),
      signer: owner2.address,
    });
    expect(w2.destination).toBe(account.address);
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  it("refuses a tampered, a foreign and a replayed signature, an expired quote and another reseller's nonce", async () => {
    const { id, account } = await reseller();
    const other = await reseller();
    await creditProfit(db, id, "eth", "1");
    const q = await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: ["eth"] });
    // Altered terms: the same signature over a larger amount.
    const altered = JSON.parse(q.typedData);
    altered.message.amount = "2";
    altered.message.amountBaseUnits = "2000000000000000000";
    const tampered = await signTypedDataJson(account, JSON.stringify(altered));
    expect(await code(confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: tampered }))).toBe("INVALID_SIGNATURE");
    // Another wallet's signature of the right terms.
    const foreign = await signTypedDataJson(other.account, q.typedData);
    expect(await code(confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: foreign }))).toBe("INVALID_SIGNATURE");
    expect(await code(confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: "0xnothex" }))).toBe("INVALID_SIGNATURE");
    // Another reseller cannot use this nonce even with a valid signature of it.
    const good = await signTypedDataJson(account, q.typedData);
    expect(await code(confirmWithdrawal(db, { resellerId: other.id, nonce: q.nonce, signature: good }))).toBe("WITHDRAWAL_NOT_FOUND");
    expect(await code(confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: good }))).toBe("OK");
    // Replayed: used once, refused after.
    expect(await code(confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: good }))).toBe("CONFIRMATION_USED");
    // Expired.
    await creditProfit(db, id, "eth", "1");
    const q2 = await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: "all" });
    const sig2 = await signTypedDataJson(account, q2.typedData);
    expect(
      await code(confirmWithdrawal(db, { resellerId: id, nonce: q2.nonce, signature: sig2, now: new Date(Date.now() + 6 * 60_000) })),
    ).toBe("QUOTE_EXPIRED");
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  it("applies the minimum, the enabled assets, and retries only queued withdrawals", async () => {
    const { id, account } = await reseller();
    expect(await code(quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: "all" }))).toBe("WITHDRAWAL_TOO_SMALL");
    await creditProfit(db, id, "eth", "0.001"); // ~2.13 USD < 10
    expect(await code(quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: "all" }))).toBe("WITHDRAWAL_TOO_SMALL");
    expect(await code(quoteWithdrawal(db, { resellerId: id, asset: "usdt", currencies: "all" }))).toBe("PAYOUT_ASSET_UNAVAILABLE");
    expect(await code(quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: ["btc"] }))).toBe("INSUFFICIENT_BALANCE");
    await creditProfit(db, id, "eth", "0.1");
    const q = await quoteWithdrawal(db, { resellerId: id, asset: "usdc", currencies: "all" });
    // 0.101 ETH at 2130.07 USD into USDC at 0.999762 USD: rate 2130.577077344407969 (18 places, down), amount down to 6 places.
    expect(q.amount).toBe("215.188284");
    const w = await confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: await signTypedDataJson(account, q.typedData) });
    expect(await code(retryWithdrawal(db, { withdrawalId: "nope" }))).toBe("WITHDRAWAL_NOT_FOUND");
    expect((await retryWithdrawal(db, { withdrawalId: w.id })).status).toBe("queued");
    await db.withdrawal.update({ where: { id: w.id }, data: { status: "processing" } });
    expect(await code(retryWithdrawal(db, { withdrawalId: w.id }))).toBe("INVALID_WITHDRAWAL_STATE");
    await db.withdrawal.update({ where: { id: w.id }, data: { status: "queued" } });
  });

  it("20 concurrent confirmations against one balance reserve it once", async () => {
    const { id, account } = await reseller();
    await creditProfit(db, id, "eth", "1");
    const quotes = [];
    for (let i = 0; i < 20; i++) quotes.push(await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: ["eth"] }));
    const sigs = await Promise.all(quotes.map((q) => signTypedDataJson(account, q.typedData)));
    const results = await Promise.all(
      quotes.map((q, i) => code(confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: sigs[i] }))),
    );
    expect(results.filter((r) => r === "OK")).toHaveLength(1);
    expect(results.filter((r) => r === "INSUFFICIENT_BALANCE")).toHaveLength(19);
    expect(await getBalances(db, id)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: "1" }]);
    expect(await db.withdrawal.count({ where: { resellerId: id } })).toBe(1);
    expect((await checkLedger(db)).violations).toEqual([]);
  }, 120_000);

  it("the integrity check names a withdrawal paid without its settlement, or confirmed while reserving", async () => {
    const { id, account } = await reseller();
    await creditProfit(db, id, "eth", "1");
    const q = await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: "all" });
    const w = await confirmWithdrawal(db, { resellerId: id, nonce: q.nonce, signature: await signTypedDataJson(account, q.typedData) });
    await db.withdrawal.update({ where: { id: w.id }, data: { status: "confirmed", txHash: "0xabc" } });
    const r = await checkLedger(db);
    expect(r.ok).toBe(false);
    expect(r.violations.map((v) => v.message)).toContain(`withdrawal ${w.id} (confirmed) eth paid 0 and restored 0 of 1`);
    expect(r.violations.map((v) => v.message)).toContain(`withdrawal ${w.id} (confirmed) eth still reserves 1`);
    await db.withdrawal.update({ where: { id: w.id }, data: { status: "queued", txHash: null } });
    expect((await checkLedger(db)).violations).toEqual([]);
  });
});
