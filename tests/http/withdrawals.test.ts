import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { getBalances } from "@/lib/ledger/ledger";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { sleep, testDb } from "../support/api";
import { callServerAction, readDashboard, signInOverHttp } from "../support/dashboard";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// Withdrawals over HTTP, through the dashboard's server actions as Next's client calls them:
// a session cookie alone cannot withdraw (the wallet's EIP-712 signature of the exact terms
// is required), a tampered, foreign or replayed signature is refused, 20 concurrent
// confirmations against one balance reserve it once, and the in-process worker pays the
// queued one (simulated sender) to confirmed.

const origin = () => inject("baseUrl");

describe("withdrawals over HTTP", () => {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const thief = privateKeyToAccount(generatePrivateKey());
  let cookie = "";
  let thiefCookie = "";
  let resellerId = "";
  const quote = async (c = cookie) => {
    const r = await callServerAction(origin(), c, "quoteWithdrawalAction", [{ asset: "eth", currencies: ["eth"] }]);
    expect(r.result.ok, JSON.stringify(r.result)).toBe(true);
    return r.result.data as { nonce: string; typedData: string; amount: string };
  };
  const confirm = async (nonce: string, signature: string, c = cookie) =>
    (await callServerAction(origin(), c, "confirmWithdrawalAction", [{ nonce, signature }])).result;

  beforeAll(async () => {
    const a = await signInOverHttp(origin(), wallet);
    const b = await signInOverHttp(origin(), thief);
    expect([a.error, b.error]).toEqual([null, null]);
    cookie = a.cookie;
    thiefCookie = b.cookie;
    resellerId = (await getOrCreateReseller(testDb(), { walletAddress: wallet.address })).id;
    await creditProfit(testDb(), resellerId, "eth", "0.05");
  });

  it("without a session nothing is quoted or queued", async () => {
    for (const c of [null, "next-auth.session-token=forged"]) {
      expect((await callServerAction(origin(), c, "quoteWithdrawalAction", [{ asset: "eth", currencies: "all" }])).result.error.code).toBe(
        "UNAUTHORIZED",
      );
      expect(
        (await callServerAction(origin(), c, "confirmWithdrawalAction", [{ nonce: "0".repeat(32), signature: "0x" }])).result.error.code,
      ).toBe("UNAUTHORIZED");
    }
  });

  it("refuses tampered, wrong-wallet and replayed signatures; a stolen session cannot use the owner's quote", async () => {
    const q = await quote();
    const altered = JSON.parse(q.typedData);
    altered.message.destination = thief.address; // pay someone else
    const tampered = await signTypedDataJson(wallet, JSON.stringify(altered));
    expect(await confirm(q.nonce, tampered)).toMatchObject({ ok: false, error: { code: "INVALID_SIGNATURE" } });
    const foreign = await signTypedDataJson(thief, q.typedData);
    expect(await confirm(q.nonce, foreign)).toMatchObject({ ok: false, error: { code: "INVALID_SIGNATURE" } });
    expect(await confirm(q.nonce, "0x1234")).toMatchObject({ ok: false, error: { code: "INVALID_SIGNATURE" } });
    // Another session (a thief's) with the owner's valid signature: not its quote.
    const good = await signTypedDataJson(wallet, q.typedData);
    expect(await confirm(q.nonce, good, thiefCookie)).toMatchObject({ ok: false, error: { code: "WITHDRAWAL_NOT_FOUND" } });
    expect(await getBalances(testDb(), resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0.05", reserved: "0" }]);

    const ok = await confirm(q.nonce, good);
    expect(ok).toMatchObject({ ok: true, data: { status: "queued", amount: "0.05", asset: "eth", destination: wallet.address } });
    // Replayed: the nonce is single-use.
    expect(await confirm(q.nonce, good)).toMatchObject({ ok: false, error: { code: "CONFIRMATION_USED" } });

    // The in-process worker pays it (simulated sender) to confirmed; the balance is spent.
    let row: { status: string; txHash: string | null } | undefined;
    for (let i = 0; i < 60; i++) {
      const v = (await readDashboard(origin(), cookie, "withdrawals", {})).body;
      row = v.withdrawals.find((w: { id: string }) => w.id === ok.data.id);
      if (row?.status === "confirmed") break;
      await sleep(250);
    }
    expect(row).toMatchObject({ status: "confirmed", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await getBalances(testDb(), resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: "0" }]);
  });

  it("20 concurrent confirmations against one balance reserve it once", async () => {
    await creditProfit(testDb(), resellerId, "eth", "0.02");
    const quotes = [];
    for (let i = 0; i < 20; i++) quotes.push(await quote());
    const sigs = await Promise.all(quotes.map((q) => signTypedDataJson(wallet, q.typedData)));
    const results = await Promise.all(quotes.map((q, i) => confirm(q.nonce, sigs[i])));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.error.code === "INSUFFICIENT_BALANCE")).toHaveLength(19);
    const [eth] = await getBalances(testDb(), resellerId);
    expect(eth.available).toBe("0");
    expect(await testDb().withdrawal.count({ where: { resellerId } })).toBe(2);
  });
});
