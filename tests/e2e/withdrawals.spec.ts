import { expect, type Page, request, test } from "@playwright/test";
import { type Address, erc20Abi, getAddress, type Hex, parseEther, parseUnits } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { createDatabase, type RunningServer, startServer, type TestDatabase } from "../support/server";
import {
  assertLedgerConsistent,
  createOrder,
  driveToFinished,
  ethAddress,
  type InjectOptions,
  injectWallet,
  newWallet,
  signIn,
  type TestWallet,
} from "./helpers";

// Withdrawals end to end, on a real local chain: a server of its own (PAYOUT_SENDER=evm,
// the hot wallet is anvil's first account, a USDC stand-in deployed by the test) signs in a
// wallet, drives an order to finished in the sandbox, withdraws the profit from the
// dashboard in ETH and then in the ERC-20, the injected wallet signing the EIP-712
// confirmation, and sees each withdrawal confirmed; the wallet's on-chain balance grows by
// exactly the recorded amount. The injected wallet sits on chain 1 like a MetaMask on
// Ethereum, and refuses typed data for another chain than its active one: the page must move
// it to the payout chain first (switch, or add then switch), and says so when the user refuses.

let node: AnvilNode;
/** A second payout chain (PAYOUT_CHAINS), paid by the same hot wallet key. */
let nodeB: AnvilNode;
let db: TestDatabase;
let server: RunningServer;
let token: Address;
let base = "";

test.beforeAll(async () => {
  test.setTimeout(180_000);
  [node, nodeB] = await Promise.all([startAnvil(), startAnvil({ chainId: 31338 })]);
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
      PAYOUT_CHAIN_NAME: "Anvil",
      // Smart-contract wallets sign in (and confirm withdrawals) on the anvil chain.
      SIWE_CHAIN_IDS: `1,${node.chainId}`,
      SIWE_RPC_URL: `${node.chainId}=${node.rpcUrl}`,
      PAYOUT_CHAINS: JSON.stringify([{ chainId: nodeB.chainId, name: "Anvil B", rpcUrl: nodeB.rpcUrl, walletRpcUrl: nodeB.rpcUrl }]),
      PAYOUT_WALLET_RPC_URL: node.rpcUrl,
      PAYOUT_PRIVATE_KEY: hotKey,
      PAYOUT_TOKENS: `usdc=${token}`,
      PAYOUT_CONFIRMATIONS: "1",
      PAYOUT_EXPLORER_URL: "https://explorer.example",
      WITHDRAWAL_MIN_USD: "10",
      // The automatic payouts' pass every second, not every 30 s: the automatic payouts test waits for it.
      PAYOUTS_PASS_SECONDS: "1",
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
  await nodeB?.stop();
  await db?.drop();
});

/** Signs in with the fixture (helpers.ts signIn); the smart-contract wallet's test signs in through the page. */
async function signInAt(page: Page, wallet: TestWallet, opts: InjectOptions = {}) {
  await signIn(page, wallet, { ...opts, base });
}

async function signInThroughPageAt(page: Page, wallet: TestWallet, opts: InjectOptions = {}) {
  await injectWallet(page, wallet, opts);
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
async function withdrawAll(
  page: Page,
  wallet: TestWallet,
  asset: "ETH" | "USDC",
  opts: { address?: string; walletOnPayoutChain?: boolean } = {},
): Promise<string> {
  await page.goto(`${base}/dashboard/withdrawals`);
  await expect(page.getByTestId("withdrawal-destination")).toHaveText(opts.address ?? wallet.account.address);
  await page.getByLabel("Payout asset").selectOption(asset.toLowerCase());
  await page.getByRole("button", { name: "Review withdrawal" }).click();
  const [shownAmount, shownAsset] = ((await page.getByTestId("quote-amount").textContent()) ?? "").split(" ");
  const shown = shownAmount.replaceAll(",", "");
  const before = wallet.signedTypedData.length;
  const callsBefore = wallet.calls.length;
  await page.getByRole("button", { name: "Sign and withdraw" }).click();
  await expect(page.getByText(/Withdrawal of .* queued/)).toBeVisible();
  expect(wallet.signedTypedData.length).toBe(before + 1);
  const calls = wallet.calls.slice(callsBefore);
  if (opts.walletOnPayoutChain) expect(calls.filter((c) => c.startsWith("wallet_"))).toEqual([]);
  else {
    // The wallet (on chain 1) was moved to the payout chain before it was asked to sign.
    const switched = calls.indexOf(`wallet_switchEthereumChain ${node.chainId}`);
    expect(switched, calls.join(", ")).toBeGreaterThanOrEqual(0);
    expect(calls.indexOf("eth_signTypedData_v4"), calls.join(", ")).toBeGreaterThan(switched);
  }
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

/** A signed-in reseller with some available ETH profit (one finished order made with their key). */
async function withProfit(page: Page, wallet: TestWallet, opts: InjectOptions = {}) {
  await signInAt(page, wallet, opts);
  const key = await newKey(page);
  const api = await request.newContext({ baseURL: base });
  await driveToFinished(api, key, (await createOrder(api, key, { from: "btc", to: "eth", amount: "0.05", address: ethAddress() })).id);
  await api.dispose();
  await page.goto(`${base}/dashboard/withdrawals`);
  await page.getByRole("button", { name: "Review withdrawal" }).click();
  await expect(page.getByTestId("quote-amount")).toBeVisible();
}

test("a wallet that does not know the payout chain is asked to add it, then to switch, then to sign", async ({ page }) => {
  test.setTimeout(180_000);
  const wallet = newWallet();
  await withProfit(page, wallet);
  const from = wallet.calls.length;
  await page.getByRole("button", { name: "Sign and withdraw" }).click();
  await expect(page.getByText(/Withdrawal of .* queued/)).toBeVisible();
  const calls = wallet.calls.slice(from).filter((c) => c.startsWith("wallet_") || c === "eth_signTypedData_v4");
  expect(calls).toEqual([`wallet_switchEthereumChain ${node.chainId}`, `wallet_addEthereumChain ${node.chainId}`, "eth_signTypedData_v4"]);
});

test("a refused chain switch queues nothing and says why", async ({ page }) => {
  test.setTimeout(180_000);
  const wallet = newWallet();
  await withProfit(page, wallet, { knownChains: [1, node.chainId], refuseSwitch: true });
  await expect(page.getByTestId("wallet-chain-note")).toHaveText(/Your wallet is on chain 1; signing will ask it to switch to Anvil/);
  await page.getByRole("button", { name: "Sign and withdraw" }).click();
  await expect(
    page.getByText(/Your wallet refused to switch to Anvil \(chain id \d+\), the chain payouts are made on\. Nothing was queued\./),
  ).toBeVisible();
  expect(wallet.calls).not.toContain("eth_signTypedData_v4");
  expect(wallet.signedTypedData).toEqual([]);
  await page.reload();
  await expect(page.getByText("No withdrawals yet")).toBeVisible();
  await expect(page.getByTestId("balance-eth")).not.toContainText("being withdrawn");
});

test("a double click on Sign and withdraw asks the wallet once; a chain change while the page is open is noticed", async ({ page }) => {
  test.setTimeout(180_000);
  const wallet = newWallet();
  await withProfit(page, wallet, { chainId: node.chainId });
  const from = wallet.calls.length;
  await expect(page.getByTestId("wallet-chain-note")).toHaveCount(0);
  // The user moves the wallet to Ethereum while the page is open: the page notices.
  await page.evaluate(() => (window as unknown as { __e2eWalletSetChain: (id: number) => void }).__e2eWalletSetChain(1));
  await expect(page.getByTestId("wallet-chain-note")).toHaveText(/Your wallet is on chain 1/);
  // Two clicks in one task, before React can re-render the button as disabled.
  await page.getByRole("button", { name: "Sign and withdraw" }).evaluate((b: HTMLButtonElement) => {
    b.click();
    b.click();
  });
  await expect(page.getByText(/Withdrawal of .* queued/)).toBeVisible();
  await expect(page.getByTestId("wallet-chain-note")).toHaveCount(0);
  const calls = wallet.calls.slice(from);
  expect(calls.filter((c) => c === "eth_signTypedData_v4")).toHaveLength(1);
  expect(calls.filter((c) => c.startsWith("wallet_switchEthereumChain"))).toEqual([`wallet_switchEthereumChain ${node.chainId}`]);
});

test("a smart-contract wallet (ERC-1271) withdraws through the page; the contract checks the confirmation and receives the payout", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const owner = newWallet();
  const contract = getAddress(await node.deploy("ERC1271Wallet", [owner.account.address]));
  // The wallet reports the contract's address and signs with its owner's key, on the payout chain.
  await signInThroughPageAt(page, owner, { address: contract, chainId: node.chainId });
  const key = await newKey(page);
  const api = await request.newContext({ baseURL: base });
  await driveToFinished(api, key, (await createOrder(api, key, { from: "btc", to: "eth", amount: "0.05", address: ethAddress() })).id);
  await api.dispose();
  const usdc = await withdrawAll(page, owner, "USDC", { address: contract, walletOnPayoutChain: true });
  expect(await node.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [contract] })).toBe(
    parseUnits(usdc, 6),
  );
  expect(
    await node.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner.account.address] }),
  ).toBe(0n);
});

test("the reseller picks the payout chain: the wallet is moved to that chain and paid there", async ({ page }) => {
  test.setTimeout(180_000);
  const wallet = newWallet();
  await signInAt(page, wallet);
  const key = await newKey(page);
  const api = await request.newContext({ baseURL: base });
  await driveToFinished(api, key, (await createOrder(api, key, { from: "btc", to: "eth", amount: "0.05", address: ethAddress() })).id);
  await api.dispose();
  await page.goto(`${base}/dashboard/withdrawals`);
  await page.getByLabel("Payout chain").selectOption(String(nodeB.chainId));
  await expect(page.getByTestId("wallet-chain-note")).toHaveText(/switch to Anvil B \(chain id 31338\)/);
  await page.getByRole("button", { name: "Review withdrawal" }).click();
  await expect(page.getByTestId("withdrawal-quote")).toContainText(`on chain ${nodeB.chainId}`);
  const shown = ((await page.getByTestId("quote-amount").textContent()) ?? "").split(" ")[0].replaceAll(",", "");
  const from = wallet.calls.length;
  await page.getByRole("button", { name: "Sign and withdraw" }).click();
  await expect(page.getByText(/Withdrawal of .* queued/)).toBeVisible();
  const calls = wallet.calls.slice(from).filter((c) => c.startsWith("wallet_") || c === "eth_signTypedData_v4");
  expect(calls).toEqual([
    `wallet_switchEthereumChain ${nodeB.chainId}`,
    `wallet_addEthereumChain ${nodeB.chainId}`,
    "eth_signTypedData_v4",
  ]);
  const row = page.getByTestId("withdrawal-row").first();
  await expect(row.locator("[data-status]")).toHaveText("confirmed", { timeout: 120_000 });
  await expect(row.getByTestId("withdrawal-network-fee")).toContainText("network fee");
  expect(await nodeB.publicClient.getBalance({ address: wallet.account.address })).toBe(parseEther(shown));
  expect(await node.publicClient.getBalance({ address: wallet.account.address })).toBe(0n);
});

test("a withdrawal is confirmed while the Overview and Orders views poll, their polls plain GETs still unanswered", async ({ page }) => {
  // The dashboard reads over GET (lib/dashboard/reads.ts), not with server actions, which React
  // runs one at a time per client and which queued the writes behind the polls. Here the
  // Overview and the Orders views poll in two more tabs of the same signed-in browser, their
  // polls are held unanswered at the network, and the withdrawal is confirmed all the same.
  test.setTimeout(240_000);
  const wallet = newWallet();
  await signInAt(page, wallet);
  const key = await newKey(page);
  const api = await request.newContext({ baseURL: base });
  const order = await createOrder(api, key, { from: "btc", to: "eth", amount: "0.05", address: ethAddress() });
  await driveToFinished(api, key, order.id);
  await api.dispose();

  const context = page.context();
  const overview = await context.newPage();
  const orders = await context.newPage();
  const tabOf = (p: Page) => (p === overview ? "overview" : p === orders ? "orders" : p === page ? "withdrawals" : "other");
  /** Every request of the three tabs to the dashboard: tab, method, path, whether it is a server action. */
  const seen: { tab: string; method: string; path: string; action: boolean }[] = [];
  context.on("request", (r) => {
    const url = new URL(r.url());
    if (!url.pathname.startsWith("/dashboard")) return;
    seen.push({ tab: tabOf(r.frame().page()), method: r.method(), path: url.pathname, action: r.headers()["next-action"] !== undefined });
  });
  // The polling tabs' reads are held here (not answered) until the withdrawal has been confirmed.
  let holding = true;
  const held: { tab: string; path: string; release: () => Promise<void> }[] = [];
  await context.route("**/dashboard/api/**", async (route) => {
    const tab = tabOf(route.request().frame().page());
    if (!holding || tab === "withdrawals") return route.continue();
    held.push({ tab, path: new URL(route.request().url()).pathname, release: () => route.continue() });
  });

  await overview.goto(`${base}/dashboard`);
  await orders.goto(`${base}/dashboard/orders`);
  await expect(orders.locator(`a[href="/dashboard/orders/${order.id}"]:visible`)).toHaveCount(1);
  // Each view has asked again (its refetchInterval) and is waiting for its answer.
  const heldPaths = () => [...new Set(held.map((h) => `${h.tab} ${h.path}`))].sort();
  await expect
    .poll(heldPaths, { timeout: 120_000 })
    .toEqual(expect.arrayContaining(["orders /dashboard/api/orders", "overview /dashboard/api/overview"]));

  // The withdrawal, in the first tab, while those polls are open.
  await page.goto(`${base}/dashboard/withdrawals`);
  await page.getByLabel("Payout asset").selectOption("eth");
  await page.getByRole("button", { name: "Review withdrawal" }).click();
  const shown = ((await page.getByTestId("quote-amount").textContent()) ?? "").split(" ")[0];
  const confirmFrom = seen.length;
  await page.getByRole("button", { name: "Sign and withdraw" }).click();
  await expect(page.getByText(/Withdrawal of .* queued/)).toBeVisible();
  const during = seen.slice(confirmFrom);
  // The confirmation was the withdrawal tab's one server action; the polling tabs' held polls are still open.
  expect(during.filter((r) => r.action)).toEqual([{ tab: "withdrawals", method: "POST", path: "/dashboard/withdrawals", action: true }]);
  expect(held.length).toBeGreaterThanOrEqual(2);

  holding = false;
  for (const h of held.splice(0)) await h.release();
  const row = page.getByTestId("withdrawal-row").filter({ hasText: shown });
  await expect(row.locator("[data-status]")).toHaveText("confirmed", { timeout: 120_000 });

  // Every read of the polling tabs was a GET of /dashboard/api/<read>; they sent no server action at all.
  const polls = seen.filter((r) => r.tab === "overview" || r.tab === "orders");
  expect(polls.filter((r) => r.action || r.method !== "GET")).toEqual([]);
  const reads = polls.filter((r) => r.path.startsWith("/dashboard/api/")).map((r) => `${r.tab} ${r.path}`);
  expect(new Set(reads)).toEqual(
    new Set([
      "orders /dashboard/api/orders",
      "overview /dashboard/api/overview",
      "overview /dashboard/api/earnings",
      "overview /dashboard/api/channels",
    ]),
  );
  await overview.close();
  await orders.close();
});

test("automatic payouts: the owner signs a monthly instruction on the withdrawals page, the worker pays it once, and it is revoked", async ({
  page,
}) => {
  test.setTimeout(180_000);
  const wallet = newWallet();
  await signInAt(page, wallet);
  const key = await newKey(page);
  const api = await request.newContext({ baseURL: base });
  await driveToFinished(api, key, (await createOrder(api, key, { from: "btc", to: "eth", amount: "0.05", address: ethAddress() })).id);
  await api.dispose();

  await page.goto(`${base}/dashboard/withdrawals`);
  const card = page.getByTestId("auto-payouts");
  await expect(card.getByText("No automatic payouts are set up.")).toBeVisible();
  await card.getByLabel("Pay out").selectOption("monthly");
  await card.getByLabel("Asset for automatic payouts").selectOption("eth");
  await card.getByLabel("Cap per payout (USD)").fill("500");
  await card.getByLabel("Cap per calendar month, UTC (USD)").fill("500");
  const signedBefore = wallet.signedTypedData.length;
  await card.getByRole("button", { name: "Sign instruction" }).click();
  await expect(card.getByText("Signed. Automatic payouts follow this instruction from now on.")).toBeVisible();
  expect(wallet.signedTypedData.length).toBe(signedBefore + 1);
  expect(JSON.parse(wallet.signedTypedData.at(-1)!).primaryType).toBe("PayoutInstruction");
  await expect(card.getByTestId("auto-payouts-active")).toContainText("Pay out monthly in ETH");

  // The server's worker runs the payouts pass every PAYOUTS_PASS_SECONDS: one payout this month, confirmed on chain.
  const row = card.getByTestId("auto-payout-row");
  await expect(row.locator("[data-status]")).toHaveText("confirmed", { timeout: 120_000 });
  await expect(row).toHaveCount(1);
  const amount = ((await row.locator("td").last().textContent()) ?? "").split(" ")[0].replaceAll(",", "");
  expect(await node.publicClient.getBalance({ address: wallet.account.address })).toBe(parseEther(amount));

  await card.getByRole("button", { name: "Revoke automatic payouts" }).click();
  await expect(card.getByText("No automatic payouts are set up.")).toBeVisible();
  await expect(row).toHaveCount(1);
});
