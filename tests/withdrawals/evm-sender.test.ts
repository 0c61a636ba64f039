import { type Address, erc20Abi, type Hex, parseEther, parseUnits } from "viem";
import { generatePrivateKey, mnemonicToAccount, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { PAYOUT_STEPS, type PayoutStep, runWithdrawalsOnce, SenderStopped } from "@/lib/withdrawals/process";
import { createEvmSender, type RpcFault } from "@/lib/withdrawals/sender/evm";
import { confirmWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { setSettings, settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// The evm payout sender against a real local chain (anvil), on both databases: every
// withdrawal is paid exactly once, whatever stops the process and wherever (the crash
// matrix), whichever JSON-RPC call fails (before the node sees it, or after it acted), and
// when another transaction takes the persisted transaction's nonce. "Exactly once" is
// measured on the chain: the destination's balance grows by exactly the recorded amount,
// and the ledger check passes.

const USDC_DECIMALS = 6;

describe.each(["sqlite", "postgres"] as const)("evm payouts on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let node: AnvilNode;
  let token: Address;
  let hot: PrivateKeyAccount;
  let hotKey: Hex;
  let clock = Date.now();
  settingsForTests({ PAYOUT_CONFIRMATIONS: "1", WITHDRAWAL_MIN_USD: "10", LOG_LEVEL: "silent" });

  /** A fresh process's sender (a restart), optionally with a failing RPC method. */
  const sender = (fault?: RpcFault, key: Hex = hotKey) =>
    createEvmSender({ rpcUrl: node.rpcUrl, chainId: node.chainId, privateKey: key, rpcFault: fault });
  /** Time moves on by more than a lease and any backoff between passes. */
  const tick = () => {
    clock += 3_600_000;
    return new Date(clock);
  };

  async function queue(asset: "eth" | "usdc", profitEth = "0.01") {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() } });
    await creditProfit(db, r.id, "eth", profitEth);
    const q = await quoteWithdrawal(db, { resellerId: r.id, asset, currencies: "all", now: new Date(clock) });
    const w = await confirmWithdrawal(db, {
      resellerId: r.id,
      nonce: q.nonce,
      signature: await signTypedDataJson(account, q.typedData),
      now: new Date(clock),
    });
    return { w, resellerId: r.id, to: account.address, base: parseUnits(w.amount, asset === "eth" ? 18 : USDC_DECIMALS) };
  }

  const chainBalance = (asset: "eth" | "usdc", address: Address) =>
    asset === "eth"
      ? node.publicClient.getBalance({ address })
      : node.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [address] });

  async function runUntilFinal(id: string, passes = 8, fault?: RpcFault) {
    for (let i = 0; i < passes; i++) {
      await runWithdrawalsOnce(db, sender(fault), { now: tick() });
      const w = await db.withdrawal.findUniqueOrThrow({ where: { id } });
      if (w.status === "confirmed" || w.status === "failed") return w;
    }
    return db.withdrawal.findUniqueOrThrow({ where: { id } });
  }

  /** Paid exactly once: the chain balance grew by exactly the amount, one transaction mined, and the network fee recorded is its receipt's. */
  async function expectPaidOnce(q: Awaited<ReturnType<typeof queue>>, asset: "eth" | "usdc", before: bigint) {
    expect(await chainBalance(asset, q.to)).toBe(before + q.base);
    const txs = await db.payoutTx.findMany({ where: { withdrawalId: q.w.id } });
    const mined = txs.filter((x) => x.status === "mined");
    expect(mined).toHaveLength(1);
    const w = await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } });
    const r = await node.publicClient.getTransactionReceipt({ hash: mined[0].hash as Hex });
    expect(w.networkFee).toBe((r.gasUsed * r.effectiveGasPrice).toString());
    expect(BigInt(w.networkFee!)).toBeGreaterThan(0n);
    expect(await getBalances(db, q.resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: "0" }]);
  }

  beforeAll(async () => {
    node = await startAnvil();
    hot = node.accounts[0];
    hotKey = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
    token = await node.deploy("TestToken", ["USD Coin", "USDC", USDC_DECIMALS, parseUnits("1000000", USDC_DECIMALS)], hot);
    setSettings({ PAYOUT_CHAIN_ID: String(node.chainId), PAYOUT_TOKENS: `usdc=${token}` });
    t = await tempDatabase(kind);
    db = t.db;
  }, 120_000);
  afterAll(async () => {
    await t?.cleanup();
    await node?.stop();
  });

  for (const asset of ["eth", "usdc"] as const)
    for (const step of PAYOUT_STEPS)
      it(`${asset}: the process stops ${step}; after a restart it is paid exactly once`, async () => {
        const q = await queue(asset);
        const before = await chainBalance(asset, q.to);
        let stopped: PayoutStep | null = null;
        for (let i = 0; i < 6 && !stopped; i++)
          try {
            await runWithdrawalsOnce(db, sender(), { now: tick(), stopAt: (s, id) => id === q.w.id && s === step });
          } catch (e) {
            if (!(e instanceof SenderStopped)) throw e;
            stopped = e.step;
          }
        expect(stopped).toBe(step);
        const w = await runUntilFinal(q.w.id);
        expect(w.status).toBe("confirmed");
        await expectPaidOnce(q, asset, before);
        expect((await checkLedger(db)).violations).toEqual([]);
      }, 60_000);

  const RPC_FAULTS: [string, "before" | "after"][] = [
    ["eth_getBalance", "before"],
    ["eth_call", "before"],
    ["eth_getTransactionCount", "before"],
    ["eth_getBlockByNumber", "before"],
    ["eth_sendRawTransaction", "before"],
    ["eth_sendRawTransaction", "after"],
    ["eth_getTransactionReceipt", "before"],
    ["eth_getTransactionReceipt", "after"],
    ["eth_blockNumber", "before"],
  ];
  for (const [method, when] of RPC_FAULTS)
    it(`usdc: ${method} fails ${when} the node acts, in every pass for a while; then it is paid exactly once`, async () => {
      const q = await queue("usdc");
      const before = await chainBalance("usdc", q.to);
      let hits = 0;
      const fault: RpcFault = (m) => {
        if (m !== method) return null;
        hits++;
        return when;
      };
      const w1 = await runUntilFinal(q.w.id, 4, fault);
      expect(hits).toBeGreaterThan(0);
      // Failing before the node acts, the method blocks progress while it fails. Failing after
      // (the node sent the transaction, the answer was lost), the next pass reads the chain.
      if (when === "before") {
        expect(w1.status).not.toBe("confirmed");
        expect(w1.lastError).toMatch(/injected RPC failure/);
      }
      const w = await runUntilFinal(q.w.id);
      expect(w.status).toBe("confirmed");
      await expectPaidOnce(q, "usdc", before);
      expect((await checkLedger(db)).violations).toEqual([]);
    }, 60_000);

  it("a persisted transaction whose nonce another transaction took is never mined: a new one pays, once", async () => {
    const q = await queue("eth");
    const before = await chainBalance("eth", q.to);
    await expect(
      runWithdrawalsOnce(db, sender(), { now: tick(), stopAt: (s, id) => id === q.w.id && s === "after_persist" }),
    ).rejects.toThrow(SenderStopped);
    const persisted = await db.payoutTx.findFirstOrThrow({ where: { withdrawalId: q.w.id } });
    // The operator's hot wallet sends something else with that nonce.
    const other = await node.walletClient(hot).sendTransaction({
      account: hot,
      chain: node.chain,
      to: node.accounts[5].address,
      value: 1n,
      nonce: persisted.accountNonce,
    });
    await node.publicClient.waitForTransactionReceipt({ hash: other, pollingInterval: 50 });
    const w = await runUntilFinal(q.w.id);
    expect(w.status).toBe("confirmed");
    await expectPaidOnce(q, "eth", before);
    const txs = await db.payoutTx.findMany({ where: { withdrawalId: q.w.id }, orderBy: { id: "asc" } });
    expect(txs.map((x) => x.status)).toEqual(["dropped", "mined"]);
    expect((await checkLedger(db)).violations).toEqual([]);
  }, 60_000);

  it("an ERC-20 payout's gas limit is its own estimate plus the margin, not a fixed 100,000", async () => {
    const q = await queue("usdc");
    const w = await runUntilFinal(q.w.id);
    expect(w.status).toBe("confirmed");
    const [tx] = await db.payoutTx.findMany({ where: { withdrawalId: q.w.id } });
    const onChain = await node.publicClient.getTransaction({ hash: tx.hash as Hex });
    expect(onChain.gas.toString()).toBe(tx.gasLimit);
    // The limit is the estimate of this very transfer (what it then used) plus 20%.
    const receipt = await node.publicClient.getTransactionReceipt({ hash: tx.hash as Hex });
    expect(onChain.gas).not.toBe(100_000n);
    expect(onChain.gas * 100n).toBeGreaterThanOrEqual(receipt.gasUsed * 120n);
    expect(onChain.gas * 100n).toBeLessThanOrEqual(receipt.gasUsed * 125n);
    await expectPaidOnce(q, "usdc", 0n);
  }, 60_000);

  it("a hot wallet too poor keeps the withdrawal queued with its reason; topped up, it pays", async () => {
    const poorKey = generatePrivateKey();
    const poor = privateKeyToAccount(poorKey);
    const q = await queue("eth");
    const before = await chainBalance("eth", q.to);
    await runWithdrawalsOnce(db, sender(undefined, poorKey), { now: tick() });
    const waiting = await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } });
    expect(waiting.status).toBe("queued");
    expect(waiting.stateReason).toMatch(/^hot wallet holds 0 ETH, the payout needs/);
    const fund = await node.walletClient(node.accounts[1]).sendTransaction({
      account: node.accounts[1],
      chain: node.chain,
      to: poor.address,
      value: parseEther("1"),
    });
    await node.publicClient.waitForTransactionReceipt({ hash: fund, pollingInterval: 50 });
    for (let i = 0; i < 6; i++) await runWithdrawalsOnce(db, sender(undefined, poorKey), { now: tick() });
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } })).status).toBe("confirmed");
    await expectPaidOnce(q, "eth", before);
  }, 60_000);

  it("a payout that reverts fails the withdrawal and restores the reserved balance", async () => {
    const q = await queue("usdc");
    // The token refuses transfers to this wallet (a blacklist): the payout transaction reverts.
    const freeze = await node.walletClient(hot).writeContract({
      account: hot,
      chain: node.chain,
      address: token,
      abi: [
        { type: "function", name: "freeze", stateMutability: "nonpayable", inputs: [{ name: "account", type: "address" }], outputs: [] },
      ],
      functionName: "freeze",
      args: [q.to],
    });
    await node.publicClient.waitForTransactionReceipt({ hash: freeze, pollingInterval: 50 });
    const w = await runUntilFinal(q.w.id);
    expect(w.status).toBe("failed");
    expect(w.stateReason).toBe("payout transaction reverted");
    expect(await chainBalance("usdc", q.to)).toBe(0n);
    expect(await getBalances(db, q.resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0.01", reserved: "0" }]);
    expect((await checkLedger(db)).violations).toEqual([]);
  }, 60_000);
});
