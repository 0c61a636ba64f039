import { type Hex, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getLogger } from "@/lib/log";
import { hotWalletMetricsText } from "@/lib/observability/metrics";
import { checkHotWallet } from "@/lib/withdrawals/health";
import { createEvmSender } from "@/lib/withdrawals/sender/evm";
import { type AnvilNode, startAnvil } from "../support/anvil";
import { runCli } from "../support/cli";
import { migratedDatabase, type TestDatabase } from "../support/server";
import { setSettings, settingsForTests } from "../support/settings";

// The hot wallet's health on a real local chain: its balance against the operator's
// low-balance threshold, as a gauge on /metrics, one warning in the log when it falls below
// (not one per reading), and a line in withdrawals:list.

describe("hot wallet health", () => {
  let node: AnvilNode;
  let key: Hex;
  settingsForTests({ PAYOUT_LOW_BALANCE: "eth=2", PAYOUT_TOKENS: "" });

  const sender = () => createEvmSender({ rpcUrl: node.rpcUrl, chainId: node.chainId, privateKey: key });
  async function fund(eth: string) {
    const from = node.accounts[1];
    const hash = await node
      .walletClient(from)
      .sendTransaction({ account: from, chain: node.chain, to: privateKeyToAccount(key).address, value: parseEther(eth) });
    await node.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  }

  beforeAll(async () => {
    node = await startAnvil();
    key = generatePrivateKey();
    setSettings({ PAYOUT_CHAIN_ID: String(node.chainId) });
    await fund("1");
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
  });

  it("warns once when the balance is below its threshold, shows it on the gauges, and once more when it is back", async () => {
    const warn = vi.spyOn(getLogger(), "warn");
    const info = vi.spyOn(getLogger(), "info");
    try {
      const first = await checkHotWallet(sender(), new Date(), { force: true });
      expect(first).toEqual([
        { chainId: node.chainId, address: privateKeyToAccount(key).address, asset: "eth", balance: "1", threshold: "2", low: true },
      ]);
      const labels = `{chain_id="${node.chainId}",asset="eth"}`;
      const text = await hotWalletMetricsText();
      expect(text).toContain(`hot_wallet_balance${labels} 1`);
      expect(text).toContain(`hot_wallet_low${labels} 1`);
      expect(text).toContain(`hot_wallet_low_balance_threshold${labels} 2`);
      await checkHotWallet(sender(), new Date(), { force: true });
      const lowWarnings = () => warn.mock.calls.filter((c) => String(c[1]).startsWith("hot wallet balance below"));
      expect(lowWarnings()).toHaveLength(1);
      expect(lowWarnings()[0][0]).toMatchObject({ asset: "eth", balance: "1", threshold: "2" });

      await fund("1.5");
      const after = await checkHotWallet(sender(), new Date(), { force: true });
      expect(after?.[0]).toMatchObject({ balance: "2.5", low: false });
      expect(await hotWalletMetricsText()).toContain(`hot_wallet_low${labels} 0`);
      expect(lowWarnings()).toHaveLength(1);
      expect(info.mock.calls.filter((c) => String(c[1]).startsWith("hot wallet balance back above"))).toHaveLength(1);
    } finally {
      warn.mockRestore();
      info.mockRestore();
    }
  }, 60_000);

  it("is read at most once a minute by the worker's passes", async () => {
    const now = new Date(Date.now() + 10 * 3_600_000);
    expect(await checkHotWallet(sender(), now)).not.toBeNull();
    expect(await checkHotWallet(sender(), new Date(now.getTime() + 30_000))).toBeNull();
    expect(await checkHotWallet(sender(), new Date(now.getTime() + 61_000))).not.toBeNull();
  }, 60_000);

  it("withdrawals:list starts with the hot wallet's balance of each payout asset and says when it is low", async () => {
    const db: TestDatabase = await migratedDatabase("sqlite");
    try {
      const env = {
        PAYOUT_SENDER: "evm",
        PAYOUT_RPC_URL: node.rpcUrl,
        PAYOUT_CHAIN_ID: String(node.chainId),
        PAYOUT_PRIVATE_KEY: key,
        PAYOUT_TOKENS: "",
      };
      const low = await runCli(db.url, ["withdrawals:list"], { ...env, PAYOUT_LOW_BALANCE: "eth=100" });
      expect(low.code).toBe(0);
      expect(low.out).toContain(
        `hot wallet ${privateKeyToAccount(key).address} on chain ${node.chainId}: 2.5 eth  LOW, below 100: top it up`,
      );
      const fine = await runCli(db.url, ["withdrawals:list"], { ...env, PAYOUT_LOW_BALANCE: "eth=1" });
      expect(fine.out).toContain(`on chain ${node.chainId}: 2.5 eth  (threshold 1)`);
    } finally {
      await db.drop();
    }
  }, 120_000);
});
