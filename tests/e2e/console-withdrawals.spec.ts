import { expect, type Page, request, test } from "@playwright/test";
import { type Hex, parseEther } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { createDatabase, type RunningServer, startServer, type TestDatabase } from "../support/server";
import { addOperatorWithCli, signInConsoleThroughPage } from "./console-helpers";
import {
  assertLedgerConsistent,
  createOrder,
  driveToFinished,
  ethAddress,
  injectWallet,
  newWallet,
  signIn,
  type TestWallet,
} from "./helpers";

// Issue 52, withdrawals in the console, on a real local chain (anvil): with an approval
// threshold, a reseller's withdrawal from the dashboard waits in awaiting_approval; a finance
// operator approves it from the console's Withdrawals page, the operator's own wallet signing
// the approval's EIP-712 terms; it is paid on chain exactly once. A second one is rejected with
// a reason: its amount is available again. Both are in the audit log.

let node: AnvilNode;
let db: TestDatabase;
let server: RunningServer;
let base = "";

test.skip(Boolean(process.env.E2E_BASE_URL), "starts a server of its own, on anvil");

test.beforeAll(async () => {
  test.setTimeout(180_000);
  node = await startAnvil();
  const hotKey: Hex = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
  db = await createDatabase("sqlite");
  server = await startServer({
    databaseUrl: db.url,
    env: {
      SANDBOX: "true",
      RATE_LIMIT_SIGNIN_PER_MINUTE: "1000",
      RATE_LIMIT_PUBLIC_PER_MINUTE: "1000",
      PAYOUT_SENDER: "evm",
      PAYOUT_RPC_URL: node.rpcUrl,
      PAYOUT_CHAIN_ID: String(node.chainId),
      PAYOUT_CHAIN_NAME: "Anvil",
      PAYOUT_WALLET_RPC_URL: node.rpcUrl,
      PAYOUT_PRIVATE_KEY: hotKey,
      PAYOUT_CONFIRMATIONS: "1",
      WITHDRAWAL_MIN_USD: "10",
      // Every withdrawal these resellers make is above it.
      WITHDRAWAL_APPROVAL_USD: "1",
    },
  });
  base = `http://localhost:${server.port}`;
});

test.afterAll(async () => {
  test.setTimeout(120_000);
  await server?.stop();
  if (db) await assertLedgerConsistent(db.url);
  await node?.stop();
  await db?.drop();
});

/** A reseller signed in to the dashboard with one finished order's profit, asking to withdraw all of it in ETH; the amount. */
async function requestWithdrawal(page: Page, wallet: TestWallet): Promise<string> {
  await signIn(page, wallet, { base });
  await page.goto(`${base}/dashboard/settings`);
  await page.getByLabel("Markup in basis points").fill("500");
  await page.getByRole("button", { name: "Save markup" }).click();
  await expect(page.getByText("Saved: new orders use 500 bps")).toBeVisible();
  await page.goto(`${base}/dashboard/keys`);
  await page.getByLabel("Key name").fill("shop");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = await page.getByTestId("new-key").inputValue();
  const api = await request.newContext({ baseURL: base });
  await driveToFinished(api, key, (await createOrder(api, key, { from: "btc", to: "eth", amount: "0.05", address: ethAddress() })).id);
  await api.dispose();
  await page.goto(`${base}/dashboard/withdrawals`);
  await page.getByLabel("Payout asset").selectOption("eth");
  await page.getByRole("button", { name: "Review withdrawal" }).click();
  const shown = ((await page.getByTestId("quote-amount").textContent()) ?? "").split(" ")[0].replaceAll(",", "");
  await page.getByRole("button", { name: "Sign and withdraw" }).click();
  await expect(page.getByText(/It waits for the operator/)).toBeVisible();
  return shown;
}

test("a finance operator approves a withdrawal with the wallet (paid once on chain) and rejects another with a reason", async ({
  page,
  browser,
}) => {
  test.setTimeout(300_000);
  const reseller = newWallet();
  const amount = await requestWithdrawal(page, reseller);
  const other = newWallet();
  const otherCtx = await browser.newContext();
  await requestWithdrawal(await otherCtx.newPage(), other);
  await otherCtx.close();

  const finance = newWallet();
  await addOperatorWithCli(db.url, finance, "finance");
  const ctx = await browser.newContext();
  const ops = await ctx.newPage();
  // The operator's wallet knows the payout chain (a wallet that does not is told to switch to it).
  await injectWallet(ops, finance, { knownChains: [1, node.chainId] });
  await signInConsoleThroughPage(ops, finance, { base, inject: false });
  await ops.getByRole("link", { name: "Withdrawals" }).click();
  const row = (w: TestWallet) => ops.getByTestId("withdrawal-row").filter({ hasText: w.account.address.toLowerCase() });
  await expect(row(reseller)).toContainText("awaiting_approval");
  await expect(row(other)).toContainText("awaiting_approval");

  // Approve: the wallet signs the approval's terms (EIP-712) on the payout chain; then it is paid.
  await row(reseller).getByRole("button", { name: "Approve with wallet" }).click();
  await expect(row(reseller)).toContainText(/queued|processing|sent|confirmed/);
  expect(finance.signedTypedData).toHaveLength(1);
  const typed = JSON.parse(finance.signedTypedData[0]) as { primaryType: string; message: { amount: string; destination: string } };
  expect(typed.primaryType).toBe("WithdrawalApproval");
  expect(typed.message.amount).toBe(amount);
  expect(finance.calls).toContain(`wallet_switchEthereumChain ${node.chainId}`);
  await expect(async () => {
    await ops.reload();
    await expect(row(reseller)).toContainText("confirmed", { timeout: 2_000 });
  }).toPass({ timeout: 120_000 });
  expect(await node.publicClient.getBalance({ address: reseller.account.address })).toBe(parseEther(amount));

  // Reject the other with a reason: it fails, nothing is paid.
  const reject = row(other).getByRole("form");
  await reject.getByLabel("Reason").fill("destination under review");
  await reject.getByRole("button", { name: "Reject" }).click();
  await expect(row(other)).toContainText("destination under review");
  expect(await node.publicClient.getBalance({ address: other.account.address })).toBe(0n);

  // Both on the record, by the finance operator.
  await ops.goto(`${base}/console/audit?targetType=withdrawal`);
  // (Read once the page has loaded them: the rows come from a read after the page.)
  await expect
    .poll(async () => (await ops.getByTestId("audit-row").evaluateAll((els) => els.map((e) => e.getAttribute("data-action")))).sort())
    .toEqual(expect.arrayContaining(["withdrawal.approve", "withdrawal.reject"]));
  for (const r of await ops.getByTestId("audit-row").all()) await expect(r).toContainText(finance.account.address.toLowerCase());
  await ctx.close();
});
