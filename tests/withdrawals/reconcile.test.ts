import { type Address, erc20Abi, type Hex, parseUnits } from "viem";
import { generatePrivateKey, mnemonicToAccount, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { reconcile, recordHotWalletDeposit } from "@/lib/withdrawals/reconcile";
import { createEvmSender } from "@/lib/withdrawals/sender/evm";
import { confirmWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { runCli } from "../support/cli";
import { setSettings, settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// Reconciliation against a real local chain (anvil), on both databases: the hot wallet's
// funding booked, payouts made by the evm sender, and the treasury account matches the
// token balance on chain to the base unit; a transfer out of the hot wallet made outside the
// product shows as a named difference, and the CLI exits non-zero.
// (ETH is not compared here: the hot wallet pays gas in ETH, which the books record only once
// the payout's receipt fee is passed to the confirmation journal.)

const USDC_DECIMALS = 6;
const SUPPLY = "1000000";

describe.each(["sqlite", "postgres"] as const)("reconcile on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let node: AnvilNode;
  let token: Address;
  let hot: PrivateKeyAccount;
  let hotKey: Hex;
  let clock = Date.now();
  const env: Record<string, string> = {};
  settingsForTests({ PAYOUT_CONFIRMATIONS: "1", WITHDRAWAL_MIN_USD: "10", LOG_LEVEL: "silent" });

  const usdcOnChain = () =>
    node.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [hot.address] });

  beforeAll(async () => {
    node = await startAnvil();
    hot = node.accounts[0];
    hotKey = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
    token = await node.deploy("TestToken", ["USD Coin", "USDC", USDC_DECIMALS, parseUnits(SUPPLY, USDC_DECIMALS)], hot);
    Object.assign(env, {
      PAYOUT_SENDER: "evm",
      PAYOUT_RPC_URL: node.rpcUrl,
      PAYOUT_PRIVATE_KEY: hotKey,
      PAYOUT_CHAIN_ID: String(node.chainId),
      PAYOUT_TOKENS: `usdc=${token}`,
    });
    setSettings(env);
    t = await tempDatabase(kind);
    db = t.db;
  }, 120_000);
  afterAll(async () => {
    await t?.cleanup();
    await node?.stop();
  });

  it("after payouts the treasury matches the chain to the base unit; money taken out outside the product is a named difference", async () => {
    await recordHotWalletDeposit(db, { asset: "usdc", amount: SUPPLY });
    expect(await reconcile(db, { assets: ["usdc"] })).toMatchObject({ ok: true, differences: [] });

    // Two resellers withdraw their ETH profit as USDC, paid on chain by the hot wallet.
    let paid = 0n;
    for (const profit of ["0.01", "0.0123"]) {
      const account = privateKeyToAccount(generatePrivateKey());
      const r = await db.reseller.create({
        data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() },
      });
      await creditProfit(db, r.id, "eth", profit);
      const q = await quoteWithdrawal(db, { resellerId: r.id, asset: "usdc", currencies: "all", now: new Date(clock) });
      const w = await confirmWithdrawal(db, {
        resellerId: r.id,
        nonce: q.nonce,
        signature: await signTypedDataJson(account, q.typedData),
        now: new Date(clock),
      });
      for (let i = 0; i < 8; i++) {
        clock += 3_600_000;
        await runWithdrawalsOnce(db, createEvmSender({ rpcUrl: node.rpcUrl, chainId: node.chainId, privateKey: hotKey }), {
          now: new Date(clock),
        });
        if ((await db.withdrawal.findUniqueOrThrow({ where: { id: w.id } })).status === "confirmed") break;
      }
      expect((await db.withdrawal.findUniqueOrThrow({ where: { id: w.id } })).status).toBe("confirmed");
      paid += parseUnits(w.amount, USDC_DECIMALS);
    }
    expect(paid).toBeGreaterThan(0n);
    expect(await usdcOnChain()).toBe(parseUnits(SUPPLY, USDC_DECIMALS) - paid);
    const matched = await reconcile(db, { assets: ["usdc"] });
    expect(matched.differences).toEqual([]);
    expect(matched.lines).toEqual([
      { check: "treasury", name: `treasury:${node.chainId}:usdc`, books: matched.lines[0].actual, actual: matched.lines[0].actual },
    ]);
    expect(parseUnits(matched.lines[0].books, USDC_DECIMALS)).toBe(parseUnits(SUPPLY, USDC_DECIMALS) - paid);
    expect((await runCli(t.url, ["reconcile", "--asset", "usdc"], env)).code).toBe(0);
    expect((await checkLedger(db)).violations).toEqual([]);

    // The operator's key moves 1.5 USDC out of the hot wallet, outside the product.
    const out = await node.walletClient(hot).writeContract({
      account: hot,
      chain: node.chain,
      address: token,
      abi: erc20Abi,
      functionName: "transfer",
      args: [node.accounts[7].address, parseUnits("1.5", USDC_DECIMALS)],
    });
    await node.publicClient.waitForTransactionReceipt({ hash: out, pollingInterval: 50 });
    const broken = await reconcile(db, { assets: ["usdc"] });
    expect(broken.ok).toBe(false);
    expect(broken.differences).toEqual([
      expect.stringMatching(
        new RegExp(
          `^treasury:${node.chainId}:usdc: the books hold [\\d.]+ usdc, the hot wallet ${hot.address.toLowerCase()} holds [\\d.]+ \\(difference -1\\.5\\)$`,
        ),
      ),
    ]);
    const cli = await runCli(t.url, ["reconcile", "--asset", "usdc"], env);
    expect(cli.code).toBe(1);
    expect(cli.err).toContain(`DIFFERENCE treasury:${node.chainId}:usdc`);
    expect(cli.err).toContain("(difference -1.5)");

    // Booked (the operator says where it went), the books and the chain agree again.
    expect((await runCli(t.url, ["treasury:deposit", "usdc", "-1.5"], env)).code).not.toBe(0); // a top-up only
    await recordHotWalletDeposit(db, { asset: "usdc", amount: "-1.5" });
    expect((await reconcile(db, { assets: ["usdc"] })).differences).toEqual([]);
  }, 300_000);

  it("the solvency line: what resellers are owed at live prices against what the treasury holds", async () => {
    const report = await reconcile(db);
    const solvency = report.lines.find((l) => l.check === "solvency")!;
    expect(solvency.name).toBe("owed to resellers vs treasury (USD)");
    // Nothing is owed any more (both withdrew everything); the treasury holds USDC (and books no ETH).
    expect(solvency.books).toBe("0");
    expect(Number(solvency.actual)).toBeGreaterThan(0);
    // A reseller owed more than the treasury holds: a shortfall, named.
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() } });
    await creditProfit(db, r.id, "btc", "100");
    const short = await reconcile(db);
    expect(short.differences).toContainEqual(
      expect.stringMatching(/^solvency: resellers are owed [\d.]+ USD, the treasury holds [\d.]+ USD \(short [\d.]+\)$/),
    );
    // No order finished here, so no provider owes commission: no commission line.
    expect(short.lines.filter((l) => l.check === "commission")).toEqual([]);
  }, 300_000);
});
