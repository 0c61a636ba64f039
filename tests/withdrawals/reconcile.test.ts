import { type Address, erc20Abi, formatUnits, type Hex, parseUnits } from "viem";
import { generatePrivateKey, mnemonicToAccount, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { D, formatAmount } from "@/lib/money/decimal";
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
// product shows as a named difference, and the CLI exits non-zero. ETH too, to the wei, with
// the gas of every payout (the receipt's fee is booked as network fees): after each payout is
// confirmed, and between its block and its confirmation (payouts in flight).

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

  const sender = () => createEvmSender({ rpcUrl: node.rpcUrl, chainId: node.chainId, privateKey: hotKey });
  const ethOnChain = () => node.publicClient.getBalance({ address: hot.address });
  const status = async (id: string) => (await db.withdrawal.findUniqueOrThrow({ where: { id } })).status;
  const pass = () => {
    clock += 3_600_000;
    return runWithdrawalsOnce(db, sender(), { now: new Date(clock) });
  };
  /** A new reseller with `profit` ETH available, withdrawing all of it as ETH: queued. */
  async function queueEth(profit: string) {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() } });
    await creditProfit(db, r.id, "eth", profit);
    const q = await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: "all", now: new Date(clock) });
    return confirmWithdrawal(db, {
      resellerId: r.id,
      nonce: q.nonce,
      signature: await signTypedDataJson(account, q.typedData),
      now: new Date(clock),
    });
  }
  /** The ETH treasury line: the books against the chain, both in wei. */
  async function ethLine() {
    const report = await reconcile(db, { assets: ["eth"] });
    const line = report.lines.find((l) => l.check === "treasury")!;
    expect(line.name).toBe(`treasury:${node.chainId}:eth`);
    return { report, books: parseUnits(line.books, 18), actual: parseUnits(line.actual!, 18) };
  }
  /** The solvency line's shortfall in USD: owed to resellers less what the treasury holds (the reseller above is owed BTC). */
  async function shortfall() {
    const solvency = (await reconcile(db)).lines.find((l) => l.check === "solvency")!;
    return new D(solvency.books).minus(solvency.actual!);
  }
  /** The gas a payout paid, in wei, from its receipt on chain. */
  async function gasOf(hash: string) {
    const r = await node.publicClient.getTransactionReceipt({ hash: hash as Hex });
    return r.gasUsed * r.effectiveGasPrice;
  }

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

  it("ETH payouts: the treasury matches the chain to the wei, gas included, after confirmation and between the block and the confirmation", async () => {
    // Three blocks: a payout mined stays sent for two more, in flight.
    setSettings({ PAYOUT_CONFIRMATIONS: "3" });
    try {
      // The operator books what the hot wallet holds in ETH (its genesis funds, less the gas it
      // paid outside the product: the token's deployment and the USDC transfer above).
      const start = await ethLine();
      await recordHotWalletDeposit(db, { asset: "eth", amount: formatUnits(start.actual - start.books, 18) });
      expect((await ethLine()).report).toMatchObject({ ok: true, differences: [] });
      const funded = await ethOnChain();

      // Checked mid-flight: mined in a block, the worker has seen it, two confirmations to go.
      const w = await queueEth("0.01");
      const paid = parseUnits(w.amount, 18);
      await pass(); // signed, broadcast, and mined at once (anvil mines each transaction, just after the call returns)
      expect(await status(w.id)).toBe("sent");
      const { txHash } = await db.withdrawal.findUniqueOrThrow({ where: { id: w.id } });
      await node.publicClient.waitForTransactionReceipt({ hash: txHash as Hex, pollingInterval: 50 });
      const gas = await gasOf(txHash!);
      expect(gas).toBeGreaterThan(0n);
      expect(await ethOnChain()).toBe(funded - paid - gas);
      // Mined since the worker last looked: the one moment the books lag the chain.
      const unseen = await ethLine();
      expect(unseen.report.ok).toBe(false);
      expect(unseen.actual - unseen.books).toBe(-(paid + gas));
      await pass(); // seen mined, 1 of 3 confirmations: booked out of the hot wallet into payouts in flight
      expect(await status(w.id)).toBe("sent");
      const midFlight = await ethLine();
      expect(midFlight.report.differences).toEqual([]);
      expect(midFlight.books).toBe(funded - paid - gas);
      expect(midFlight.actual).toBe(midFlight.books);
      expect(midFlight.report.lines.filter((l) => l.check === "in_flight")).toEqual([
        { check: "in_flight", name: `payouts:in_flight:${node.chainId}:eth`, books: w.amount, actual: null },
      ]);
      // In flight it still pays the reseller's reserved balance, which is still owed: it counts as held.
      const shortMidFlight = await shortfall();
      const cli = await runCli(t.url, ["reconcile", "--asset", "eth"], env);
      expect(cli.code).toBe(0);
      expect(cli.out).toContain(`in_flight  payouts:in_flight:${node.chainId}:eth: books ${w.amount}`);
      expect((await checkLedger(db)).violations).toEqual([]);
      // Its two more blocks: confirmed, paid out of in flight; still to the wei, nothing in flight.
      await node.rpc("evm_mine");
      await pass();
      expect(await status(w.id)).toBe("sent");
      expect((await ethLine()).report.differences).toEqual([]);
      await node.rpc("evm_mine");
      await pass();
      expect(await status(w.id)).toBe("confirmed");
      const confirmed = await ethLine();
      expect(confirmed.report.differences).toEqual([]);
      expect(confirmed.books).toBe(funded - paid - gas);
      expect(confirmed.report.lines.filter((l) => l.check === "in_flight")).toEqual([]);
      // Paid out: owed less by what was in flight, held the same; the shortfall as it was (each side rounded to 8 places).
      expect(
        shortMidFlight
          .minus(await shortfall())
          .abs()
          .lte("0.00000002"),
      ).toBe(true);
      const journals = await db.journal.findMany({ where: { withdrawalId: w.id }, orderBy: { createdAt: "asc" } });
      expect(journals.map((j) => j.kind)).toEqual(["withdrawal_queued", "withdrawal_mined", "withdrawal_confirmed"]);

      // Found already deep (the worker was away for its blocks): confirmed at once, out of the hot wallet with its gas.
      const w2 = await queueEth("0.0123");
      await pass();
      const hash2 = (await db.withdrawal.findUniqueOrThrow({ where: { id: w2.id } })).txHash as Hex;
      await node.publicClient.waitForTransactionReceipt({ hash: hash2, pollingInterval: 50 });
      await node.rpc("evm_mine");
      await node.rpc("evm_mine");
      await pass();
      expect(await status(w2.id)).toBe("confirmed");
      const gas2 = await gasOf(hash2);
      const after = await ethLine();
      expect(after.report.differences).toEqual([]);
      expect(after.books).toBe(funded - paid - gas - parseUnits(w2.amount, 18) - gas2);
      expect(after.actual).toBe(after.books);
      expect((await db.journal.findMany({ where: { withdrawalId: w2.id }, orderBy: { createdAt: "asc" } })).map((j) => j.kind)).toEqual([
        "withdrawal_queued",
        "withdrawal_confirmed",
      ]);
      expect((await checkLedger(db)).violations).toEqual([]);

      // The operator's key sends 0.25 ETH out of the hot wallet, outside the product: the amount and its gas are a named difference.
      const out = await node.walletClient(hot).sendTransaction({
        account: hot,
        chain: node.chain,
        to: node.accounts[7].address,
        value: parseUnits("0.25", 18),
      });
      await node.publicClient.waitForTransactionReceipt({ hash: out, pollingInterval: 50 });
      const taken = parseUnits("0.25", 18) + (await gasOf(out));
      const broken = await ethLine();
      expect(broken.report.ok).toBe(false);
      expect(broken.report.differences).toEqual([
        `treasury:${node.chainId}:eth: the books hold ${formatUnits(broken.books, 18)} eth, the hot wallet ${hot.address.toLowerCase()} holds ${formatUnits(broken.actual, 18)} (difference ${formatAmount(new D(formatUnits(taken, 18)).neg())})`,
      ]);
      const failed = await runCli(t.url, ["reconcile", "--asset", "eth"], env);
      expect(failed.code).toBe(1);
      expect(failed.err).toContain(`DIFFERENCE treasury:${node.chainId}:eth`);
      // Booked (the operator says where it went), the books and the chain agree again.
      await recordHotWalletDeposit(db, { asset: "eth", amount: `-${formatUnits(taken, 18)}` });
      expect((await ethLine()).report.differences).toEqual([]);
    } finally {
      setSettings({ PAYOUT_CONFIRMATIONS: "1" });
    }
  }, 300_000);
});
