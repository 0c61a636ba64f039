import { type Address, type Hex, parseUnits } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { createEvmSender } from "@/lib/withdrawals/sender/evm";
import { confirmWithdrawal, getWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { setSettings, settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// Reorganisations on a real local chain (anvil's evm_snapshot / evm_revert take the blocks
// after the snapshot out of the chain): a confirmed payout whose block leaves the chain goes
// back to `sent`, and ends confirmed again with exactly one payment, whether the chain takes
// the same transaction again or another transaction of the hot wallet takes its nonce. The
// balances and the ledger check stay right throughout.

describe.each(["sqlite", "postgres"] as const)("reorganisations on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let node: AnvilNode;
  let hotKey: Hex;
  let clock = Date.now();
  // Two blocks: a payout stays `sent` for a block, so the way back is visible.
  settingsForTests({ PAYOUT_CONFIRMATIONS: "2", WITHDRAWAL_MIN_USD: "10", LOG_LEVEL: "silent" });

  const sender = () => createEvmSender({ rpcUrl: node.rpcUrl, chainId: node.chainId, privateKey: hotKey });
  const tick = () => {
    clock += 3_600_000;
    return new Date(clock);
  };
  const pass = () => runWithdrawalsOnce(db, sender(), { now: tick() });
  const status = async (id: string) => (await db.withdrawal.findUniqueOrThrow({ where: { id } })).status;

  async function queue() {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() } });
    await creditProfit(db, r.id, "eth", "0.01");
    const q = await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: "all", now: new Date(clock) });
    const w = await confirmWithdrawal(db, {
      resellerId: r.id,
      nonce: q.nonce,
      signature: await signTypedDataJson(account, q.typedData),
      now: new Date(clock),
    });
    return { w, resellerId: r.id, to: account.address as Address, base: parseUnits(w.amount, 18) };
  }

  /** Passes, a block mined after each, until the withdrawal is confirmed. */
  async function untilConfirmed(id: string) {
    for (let i = 0; i < 10 && (await status(id)) !== "confirmed"; i++) {
      await pass();
      await node.rpc("evm_mine");
    }
    expect(await status(id)).toBe("confirmed");
  }

  /** Balances and ledger right: nothing reserved, nothing available, the ledger check passes. */
  async function expectBooksRight(resellerId: string) {
    expect(await getBalances(db, resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: "0" }]);
    expect((await checkLedger(db)).violations).toEqual([]);
  }

  beforeAll(async () => {
    node = await startAnvil();
    hotKey = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
    setSettings({ PAYOUT_CHAIN_ID: String(node.chainId) });
    t = await tempDatabase(kind);
    db = t.db;
  }, 120_000);
  afterAll(async () => {
    await t?.cleanup();
    await node?.stop();
  });

  it("a confirmed payout reorganised out and included again in another block ends confirmed, paid once", async () => {
    const snapshot = await node.rpc<Hex>("evm_snapshot");
    const q = await queue();
    await untilConfirmed(q.w.id);
    const [paid] = await db.payoutTx.findMany({ where: { withdrawalId: q.w.id } });
    expect(paid.blockHash).toMatch(/^0x[0-9a-f]{64}$/);

    // The reorganisation: the payout's block leaves the chain; the new chain includes the
    // same transaction a block later.
    await node.rpc("evm_revert", [snapshot]);
    expect(await node.publicClient.getBalance({ address: q.to })).toBe(0n);
    await node.rpc("evm_mine");
    await node.rpc("eth_sendRawTransaction", [paid.rawTx]);
    const again = await node.publicClient.getTransactionReceipt({ hash: paid.hash as Hex });
    expect(again.blockHash).not.toBe(paid.blockHash);

    await pass();
    const back = await getWithdrawal(db, { resellerId: q.resellerId, withdrawalId: q.w.id });
    expect(back?.status).toBe("sent");
    expect(back?.reorgs).toBe(1);
    expect(back?.stateReason).toMatch(/left the chain in a reorganisation; the payout is in block #\d+ now/);
    await expectBooksRight(q.resellerId);

    await untilConfirmed(q.w.id);
    const txs = await db.payoutTx.findMany({ where: { withdrawalId: q.w.id } });
    expect(txs.map((x) => [x.hash, x.status, x.blockHash])).toEqual([[paid.hash, "mined", again.blockHash]]);
    expect(await node.publicClient.getBalance({ address: q.to })).toBe(q.base);
    const w = await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } });
    expect(w.networkFee).toBe((again.gasUsed * again.effectiveGasPrice).toString());
    expect(w.stateReason).toBeNull();
    await expectBooksRight(q.resellerId);
  }, 120_000);

  it("a confirmed payout reorganised out whose nonce another transaction took is paid by a new one, once", async () => {
    const snapshot = await node.rpc<Hex>("evm_snapshot");
    const q = await queue();
    await untilConfirmed(q.w.id);
    const [paid] = await db.payoutTx.findMany({ where: { withdrawalId: q.w.id } });

    // The new chain has another transaction of the hot wallet at that nonce instead.
    await node.rpc("evm_revert", [snapshot]);
    const hot = node.accounts[0];
    const other = await node.walletClient(hot).sendTransaction({
      account: hot,
      chain: node.chain,
      to: node.accounts[5].address,
      value: 1n,
      nonce: paid.accountNonce,
    });
    await node.publicClient.waitForTransactionReceipt({ hash: other, pollingInterval: 50 });

    await pass();
    expect(await status(q.w.id)).not.toBe("confirmed");
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } })).reorgs).toBe(1);
    await expectBooksRight(q.resellerId);

    await untilConfirmed(q.w.id);
    const txs = await db.payoutTx.findMany({ where: { withdrawalId: q.w.id }, orderBy: { id: "asc" } });
    expect(txs.map((x) => x.status)).toEqual(["dropped", "mined"]);
    expect(txs[1].accountNonce).toBeGreaterThan(paid.accountNonce);
    expect(await node.publicClient.getBalance({ address: q.to })).toBe(q.base);
    await expectBooksRight(q.resellerId);
  }, 120_000);
});
