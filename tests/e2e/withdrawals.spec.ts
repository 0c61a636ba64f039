import { expect, type Page, request, test } from "@playwright/test";
import { type Address, erc20Abi, type Hex, parseEther, parseUnits } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { createDatabase, type RunningServer, startServer, type TestDatabase } from "../support/server";
import { assertLedgerConsistent, createOrder, driveToFinished, ethAddress, injectWallet, newWallet, type TestWallet } from "./helpers";

// Withdrawals end to end, on a real local chain: a server of its own (PAYOUT_SENDER=evm,
// the hot wallet is anvil's first account, a USDC stand-in deployed by the test) signs in a
// wallet, drives an order to finished in the sandbox, withdraws the profit from the
// dashboard in ETH and then in the ERC-20, the injected wallet signing the EIP-712
// confirmation, and sees each withdrawal confirmed; the wallet's on-chain balance grows by
// exactly the recorded amount.

let node: AnvilNode;
let db: TestDatabase;
let server: RunningServer;
let token: Address;
let base = "";

test.beforeAll(async () => {
  test.setTimeout(180_000);
  node = await startAnvil();
  token = await node.deploy("TestToken", ["USD Coin", "USDC", 6, parseUnits("1000000", 6)]);
  const hotKey: Hex = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
  db = await createDatabase("sqlite");
  server = await startServer({
    databaseUrl: db.url,
    env: {
      SANDBOX: "true",
      RATE_LIMIT_SIGNIN_PER_MINUTE: "1000",
      PAYOUT_SENDER: "evm",
      PAYOUT_RPC_URL: node.rpcUrl,
      PAYOUT_CHAIN_ID: String(node.chainId),
      PAYOUT_PRIVATE_KEY: hotKey,
      PAYOUT_TOKENS: `usdc=${token}`,
      PAYOUT_CONFIRMATIONS: "1",
      PAYOUT_EXPLORER_URL: "https://explorer.example",
      WITHDRAWAL_MIN_USD: "10",
    },
  });
  // The browser uses the origin the server names in its sign-in messages (APP_URL).
  base = `http://localhost:${server.port}`;
});

test.afterAll(async () => {
  test.setTimeout(120_000);
  await server?.stop();
  if (db) await assertLedgerConsistent(db.url);
  await node?.stop();
  await db?.drop();
});

async function signInAt(page: Page, wallet: TestWallet) {
  await injectWallet(page, wallet);
  await page.goto(`${base}/signin`);
  await page.getByRole("button", { name: "Connect wallet" }).click();
  await page.waitForURL("**/dashboard");
}

async function newKey(page: Page): Promise<string> {
  await page.goto(`${base}/dashboard/settings`);
  await page.getByLabel("Markup in basis points").fill("500");
  await page.getByRole("button", { name: "Save markup" }).click();
  await expect(page.getByText("Saved: new orders use 500 bps")).toBeVisible();
  await page.goto(`${base}/dashboard/keys`);
  await page.getByLabel("Key name").fill("shop");
  await page.getByRole("button", { name: "Create key" }).click();
  return page.getByTestId("new-key").inputValue();
}

/** Withdraws every available balance in `asset` from the page; resolves to the recorded amount once confirmed. */
async function withdrawAll(page: Page, wallet: TestWallet, asset: "ETH" | "USDC"): Promise<string> {
  await page.goto(`${base}/dashboard/withdrawals`);
  await expect(page.getByTestId("withdrawal-destination")).toHaveText(wallet.account.address);
  await page.getByLabel("Payout asset").selectOption(asset.toLowerCase());
  await page.getByRole("button", { name: "Review withdrawal" }).click();
  const [shownAmount, shownAsset] = ((await page.getByTestId("quote-amount").textContent()) ?? "").split(" ");
  const shown = shownAmount.replaceAll(",", "");
  const before = wallet.signedTypedData.length;
  await page.getByRole("button", { name: "Sign and withdraw" }).click();
  await expect(page.getByText(/Withdrawal of .* queued/)).toBeVisible();
  expect(wallet.signedTypedData.length).toBe(before + 1);
  const row = page.getByTestId("withdrawal-row").filter({ hasText: `${shownAmount} ${shownAsset}` });
  await expect(row).toHaveCount(1);
  await expect(row.locator("[data-status]")).toHaveText("confirmed", { timeout: 120_000 });
  const recorded = ((await row.getByTestId("withdrawal-amount").textContent()) ?? "").split(" ")[0].replaceAll(",", "");
  expect(recorded).toBe(shown);
  await expect(row.getByRole("link")).toHaveAttribute("href", /^https:\/\/explorer\.example\/tx\/0x[0-9a-f]{64}$/);
  return recorded;
}

test("withdraw profit in ETH and in an ERC-20 from the dashboard; the chain shows exactly the recorded amounts", async ({ page }) => {
  test.setTimeout(180_000);
  const wallet = newWallet();
  await signInAt(page, wallet);
  const key = await newKey(page);
  const api = await request.newContext({ baseURL: base });

  const order = await createOrder(api, key, { from: "btc", to: "eth", amount: "0.05", address: ethAddress() });
  await driveToFinished(api, key, order.id);
  expect(await node.publicClient.getBalance({ address: wallet.account.address })).toBe(0n);
  const eth = await withdrawAll(page, wallet, "ETH");
  expect(await node.publicClient.getBalance({ address: wallet.account.address })).toBe(parseEther(eth));

  const second = await createOrder(api, key, { from: "btc", to: "eth", amount: "0.05", address: ethAddress() });
  await driveToFinished(api, key, second.id);
  const usdc = await withdrawAll(page, wallet, "USDC");
  expect(
    await node.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [wallet.account.address] }),
  ).toBe(parseUnits(usdc, 6));
  // Nothing else moved: the ETH balance is still exactly the first withdrawal.
  expect(await node.publicClient.getBalance({ address: wallet.account.address })).toBe(parseEther(eth));
  await api.dispose();
});
