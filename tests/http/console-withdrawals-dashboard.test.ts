import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { getBalances, reserveWithdrawal } from "@/lib/ledger/ledger";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { awaitingApprovalReason, rejectWithdrawal } from "@/lib/withdrawals/approval";
import { testDb } from "../support/api";
import { readDashboard, signInOverHttp } from "../support/dashboard";
import { creditProfit, withdrawalRow } from "../support/withdrawals";

// Issue 52: the reseller's dashboard (the suite's built server, through Next) shows a withdrawal
// awaiting an operator's approval as such, with why, its amount reserved; rejected, it shows
// failed with the operator's reason and the amount is available again.

const origin = () => inject("baseUrl");

describe("a withdrawal awaiting approval on the reseller's dashboard", () => {
  const wallet = privateKeyToAccount(generatePrivateKey());
  let cookie = "";
  let resellerId = "";
  const id = `w-approval-${wallet.address.slice(2, 12)}`;

  beforeAll(async () => {
    const s = await signInOverHttp(origin(), wallet);
    expect(s.error).toBeNull();
    cookie = s.cookie;
    resellerId = (await getOrCreateReseller(testDb(), { walletAddress: wallet.address })).id;
    await creditProfit(testDb(), resellerId, "eth", "0.3");
    // Confirmed above the threshold: awaiting approval, reserved (as confirmWithdrawal makes it).
    const w = { id, resellerId, legs: [{ currency: "eth", amount: "0.3" }], asset: "eth", chainId: 1, amount: "0.3" };
    // One transaction, as confirmWithdrawal writes it: the suite's ledger check runs after other
    // files while this one runs, and a row awaiting approval with nothing reserved yet is a fault.
    await testDb().$transaction(async (tx) => {
      await tx.withdrawal.create({
        data: withdrawalRow(w, {
          status: "awaiting_approval",
          stateReason: awaitingApprovalReason("100"),
          destination: wallet.address.toLowerCase(),
          usdValue: "639.02",
        }),
      });
      await reserveWithdrawal(tx, w);
    });
  });

  it("shows it waiting for approval, with the amount reserved, on the page and in its read", async () => {
    const read = await readDashboard(origin(), cookie, "withdrawals", {});
    const row = read.body.withdrawals.find((w: { id: string }) => w.id === id);
    expect(row).toMatchObject({ status: "awaiting_approval", stateReason: awaitingApprovalReason("100"), amount: "0.3" });
    expect(read.body.balances).toEqual([expect.objectContaining({ currency: "eth", available: "0", reserved: "0.3" })]);

    const html = await (await fetch(`${origin()}/dashboard/withdrawals`, { headers: { cookie } })).text();
    expect(html).toContain('data-status="awaiting_approval"');
    expect(html).toContain('data-testid="withdrawal-awaiting-approval"');
    expect(html).toContain("Waiting for approval");
    expect(html).toContain("withdrawals worth more than 100 USD are approved by hand");
  });

  it("rejected, it shows failed with the operator's reason, and the amount is available again", async () => {
    await rejectWithdrawal(testDb(), {
      withdrawalId: id,
      reason: "please withdraw in two parts",
      by: { operatorId: null, actor: "cli", role: null },
    });
    const read = await readDashboard(origin(), cookie, "withdrawals", {});
    expect(read.body.withdrawals.find((w: { id: string }) => w.id === id)).toMatchObject({
      status: "failed",
      stateReason: "rejected by the operator: please withdraw in two parts",
    });
    expect(await getBalances(testDb(), resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0.3", reserved: "0" }]);
    const html = await (await fetch(`${origin()}/dashboard/withdrawals`, { headers: { cookie } })).text();
    expect(html).not.toContain('data-testid="withdrawal-awaiting-approval"');
    expect(html).toContain("rejected by the operator: please withdraw in two parts");
  });
});
