import { type ChildProcess, spawn } from "node:child_process";
import { getAddress, type Hex, parseUnits } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { getBalances } from "@/lib/ledger/ledger";
import { requestInstruction, signInstruction } from "@/lib/payouts/instructions";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { reconcile, recordHotWalletDeposit } from "@/lib/withdrawals/reconcile";
import { createEvmSender } from "@/lib/withdrawals/sender/evm";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { sleep } from "../support/api";
import { assertLedgerConsistent } from "../support/ledger";
import { migratedDatabase, ROOT, TEST_ENV } from "../support/server";
import { setSettings } from "../support/settings";
import { creditProfit } from "../support/withdrawals";

// The worker process itself under test (dist/worker.mjs, so `npm run build` first): a monthly
// standing instruction's payout is queued and broadcast by one worker process, which is killed
// with SIGKILL while the payout is on its way (broadcast, not yet mined: the chain's automine is
// off); more profit arrives; a new worker process finishes the payout and pays nothing more this
// month. One run, one transaction, the amount received once on chain; the ledger holds and the
// hot wallet's books match the chain.

describe("automatic payouts across a worker killed mid-payment", () => {
  let node: AnvilNode;
  let hotKey: Hex;
  let created: { url: string; drop: () => Promise<void> };
  let db: Db;
  const workers: ChildProcess[] = [];
  const payoutEnv = () => ({
    PAYOUT_CHAIN_ID: String(node.chainId),
    PAYOUT_SENDER: "evm",
    PAYOUT_RPC_URL: node.rpcUrl,
    PAYOUT_PRIVATE_KEY: hotKey,
    PAYOUT_CONFIRMATIONS: "1",
    WITHDRAWAL_MIN_USD: "10",
    // A claim left by the killed worker runs out soon.
    WITHDRAWAL_LEASE_SECONDS: "3",
  });

  function startWorker(): ChildProcess {
    const child = spawn(process.execPath, ["dist/worker.mjs"], {
      cwd: ROOT,
      env: { ...process.env, ...TEST_ENV, ...payoutEnv(), NODE_ENV: "production", DATABASE_URL: created.url, LOG_LEVEL: "error" },
      stdio: "ignore",
    });
    workers.push(child);
    return child;
  }
  const exited = (c: ChildProcess) =>
    new Promise((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve(null) : c.once("exit", resolve)));

  async function until<T>(what: string, read: () => Promise<T | null | undefined | false>): Promise<T> {
    const deadline = Date.now() + 60_000; // a hang guard
    for (;;) {
      const v = await read();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  }

  beforeAll(async () => {
    node = await startAnvil();
    hotKey = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
    setSettings({ ...payoutEnv(), LOG_LEVEL: "silent" });
    created = await migratedDatabase(inject("dbKind"));
    db = createDb(created.url);
    const line = (await reconcile(db, { assets: ["eth"] })).lines.find((l) => l.check === "treasury")!;
    await recordHotWalletDeposit(db, { asset: "eth", amount: line.actual! });
  }, 120_000);
  afterAll(async () => {
    for (const w of workers) w.kill("SIGKILL");
    await db?.$disconnect();
    await created?.drop();
    await node?.stop();
  });

  it("pays the month once: SIGKILL after the broadcast, a new worker confirms it and pays nothing more", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await getOrCreateReseller(db, { walletAddress: account.address }); // its wallet is its team's owner
    const input = { trigger: "monthly", asset: "eth", maxPerPayoutUsd: "1000", maxPerMonthUsd: "1000" };
    const req = await requestInstruction(db, { resellerId: r.id, wallet: account.address, input });
    const d = JSON.parse(req.typedData);
    const { EIP712Domain: _, ...types } = d.types;
    const signature = await account.signTypedData({
      domain: d.domain,
      types,
      primaryType: d.primaryType,
      message: { ...d.message, chainId: BigInt(d.message.chainId), expiresAt: BigInt(d.message.expiresAt) },
    });
    const sender = createEvmSender({ rpcUrl: node.rpcUrl, chainId: node.chainId, privateKey: hotKey });
    await signInstruction(db, { resellerId: r.id, wallet: account.address, nonce: req.nonce, signature, sender });
    await creditProfit(db, r.id, "eth", "0.05");

    // The payout is broadcast but not mined; the worker is killed there.
    await node.rpc("evm_setAutomine", [false]);
    const first = startWorker();
    const sent = await until("the payout broadcast", () => db.withdrawal.findFirst({ where: { resellerId: r.id, status: "sent" } }));
    first.kill("SIGKILL");
    await exited(first);
    expect(sent.payoutRunId).not.toBeNull();

    // More profit this month; the chain mines the payout; a new worker starts.
    await creditProfit(db, r.id, "eth", "0.05");
    await node.rpc("evm_mine");
    await node.rpc("evm_setAutomine", [true]);
    const second = startWorker();
    await until(
      "the payout confirmed",
      async () => (await db.withdrawal.findUniqueOrThrow({ where: { id: sent.id } })).status === "confirmed",
    );
    // Its first pass ran the payouts pass before it confirmed anything; give it a few more.
    await sleep(1000);
    second.kill("SIGTERM");
    await exited(second);

    const runs = await db.payoutRun.findMany({ where: { resellerId: r.id } });
    expect(runs).toHaveLength(1);
    expect(await db.withdrawal.count({ where: { resellerId: r.id } })).toBe(1);
    expect(await db.payoutTx.count({ where: { withdrawalId: sent.id } })).toBe(1);
    expect(await node.publicClient.getBalance({ address: getAddress(account.address) })).toBe(parseUnits("0.05", 18));
    expect(await getBalances(db, r.id)).toEqual([{ currency: "eth", pending: "0", available: "0.05", reserved: "0" }]);
    await assertLedgerConsistent(db);
    expect((await reconcile(db)).differences).toEqual([]);
  }, 180_000);
});
