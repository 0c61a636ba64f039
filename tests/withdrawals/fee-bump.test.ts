import { type Address, formatUnits, type Hex, parseGwei, parseUnits, toHex } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Db, PayoutTx } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { REPLACEMENT_STEPS, runWithdrawalsOnce, SenderStopped } from "@/lib/withdrawals/process";
import { createEvmSender } from "@/lib/withdrawals/sender/evm";
import { confirmWithdrawal, getWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { setSettings, settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// Fee bumping against a real local chain (anvil) with mining paused: a payout whose block
// never comes (the base fee jumps above its max fee) is replaced at its nonce with higher
// fees, each replacement stored before it is broadcast; whichever of them is mined pays, once;
// at the fee ceiling it stops being bumped and waits with its reason shown.

const BUMP_AFTER_S = 60;

describe.each(["sqlite", "postgres"] as const)("fee bumping on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let node: AnvilNode;
  let hotKey: Hex;
  let clock = Date.now();
  settingsForTests({
    PAYOUT_CONFIRMATIONS: "1",
    WITHDRAWAL_MIN_USD: "10",
    LOG_LEVEL: "silent",
    PAYOUT_BUMP_AFTER_SECONDS: String(BUMP_AFTER_S),
    PAYOUT_FEE_BUMP_PERCENT: "12",
    PAYOUT_MAX_FEE_GWEI: "5000",
  });

  const sender = () => createEvmSender({ rpcUrl: node.rpcUrl, chainId: node.chainId, privateKey: hotKey });
  /** Time moves on by more than the bump delay (and a lease) between passes. */
  const tick = () => {
    clock += (BUMP_AFTER_S + 1) * 1000;
    return new Date(clock);
  };
  const pass = (opts: Parameters<typeof runWithdrawalsOnce>[2] = {}) => runWithdrawalsOnce(db, sender(), { now: tick(), ...opts });
  /** The next block is mined with this base fee (gwei), and with whatever pending transaction pays it. */
  async function mineAt(baseFeeGwei: string) {
    await node.rpc("anvil_setNextBlockBaseFeePerGas", [toHex(parseGwei(baseFeeGwei))]);
    await node.rpc("evm_mine");
  }
  const receipt = (hash: string) => node.publicClient.getTransactionReceipt({ hash: hash as Hex }).catch(() => null);
  const rows = (withdrawalId: string) => db.payoutTx.findMany({ where: { withdrawalId }, orderBy: { replacement: "asc" } });

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

  /** Paid exactly once: the chain balance grew by exactly the amount, one row mined (the withdrawal's), its fee the receipt's. */
  async function expectPaidOnce(q: Awaited<ReturnType<typeof queue>>) {
    const w = await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } });
    expect(w.status).toBe("confirmed");
    expect(await node.publicClient.getBalance({ address: q.to })).toBe(q.base);
    const mined = (await rows(q.w.id)).filter((x) => x.status === "mined");
    expect(mined).toHaveLength(1);
    expect(mined[0].hash).toBe(w.txHash);
    const r = await node.publicClient.getTransactionReceipt({ hash: mined[0].hash as Hex });
    expect(w.networkFee).toBe((r.gasUsed * r.effectiveGasPrice).toString());
    expect(mined[0].fee).toBe(w.networkFee);
    expect(BigInt(w.networkFee!)).toBeGreaterThan(0n);
    // The gas is booked as the operator's cost, once, in ETH: network fees against the chain's treasury.
    const journals = await db.journal.findMany({ where: { withdrawalId: w.id }, select: { id: true } });
    const feeLines = await db.journalLine.findMany({ where: { account: "network_fees", journalId: { in: journals.map((j) => j.id) } } });
    expect(feeLines.map((l) => l.amount)).toEqual([`-${formatUnits(BigInt(w.networkFee!), 18)}`]);
    expect(await getBalances(db, q.resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: "0" }]);
    expect((await checkLedger(db)).violations).toEqual([]);
  }

  /** Each replacement raised both fees by at least 12% + 1 wei over the one before. */
  function expectBumped(txs: PayoutTx[]) {
    for (let i = 1; i < txs.length; i++) {
      expect(txs[i].accountNonce).toBe(txs[0].accountNonce);
      for (const f of ["maxFeePerGas", "maxPriorityFeePerGas"] as const)
        expect(BigInt(txs[i][f]!) * 100n).toBeGreaterThanOrEqual(BigInt(txs[i - 1][f]!) * 112n + 100n);
    }
  }

  beforeAll(async () => {
    node = await startAnvil();
    hotKey = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
    setSettings({ PAYOUT_CHAIN_ID: String(node.chainId) });
    t = await tempDatabase(kind);
    db = t.db;
  }, 120_000);
  afterEach(async () => {
    setSettings({ PAYOUT_MAX_FEE_GWEI: "5000" });
    await node.rpc("evm_setAutomine", [true]);
    await mineAt("1"); // the next test starts from a quiet chain
  });
  afterAll(async () => {
    await t?.cleanup();
    await node?.stop();
  });

  it("a payout stuck behind a fee spike is replaced twice with higher fees; the last replacement is mined and pays once", async () => {
    await node.rpc("evm_setAutomine", [false]);
    const q = await queue();
    await pass();
    const [first] = await rows(q.w.id);
    expect(first.broadcastAt).not.toBeNull();
    await mineAt("100"); // the spike: its max fee is far below the block's base fee
    expect(await receipt(first.hash)).toBeNull();

    await pass();
    expect(await rows(q.w.id)).toHaveLength(2);
    await mineAt("1000"); // higher still: the first replacement is not enough either
    expect(await receipt((await rows(q.w.id))[1].hash)).toBeNull();

    await pass();
    const three = await rows(q.w.id);
    expect(three.map((x) => x.replacement)).toEqual([0, 1, 2]);
    expectBumped(three);
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } })).txHash).toBe(three[2].hash);
    await node.rpc("evm_mine"); // the base fee falls back under the second replacement's max fee
    expect((await receipt(three[2].hash))?.status).toBe("success");

    await pass();
    await expectPaidOnce(q);
    expect((await rows(q.w.id)).map((x) => x.status)).toEqual(["replaced", "replaced", "mined"]);
  }, 120_000);

  for (const step of REPLACEMENT_STEPS)
    it(`the process stops ${step}; whichever transaction at the nonce is mined pays, exactly once`, async () => {
      await node.rpc("evm_setAutomine", [false]);
      const q = await queue();
      await pass();
      const [first] = await rows(q.w.id);
      await mineAt("100");
      await expect(pass({ stopAt: (s, id) => id === q.w.id && s === step })).rejects.toThrow(SenderStopped);
      expect(await rows(q.w.id)).toHaveLength(2);
      // The fee falls back, and the first transaction, still out there (another node's
      // mempool), is offered again and mined, unless its replacement was broadcast and took
      // its place (then the node refuses the first: same nonce, lower fees).
      await mineAt("1");
      await node.rpc("eth_sendRawTransaction", [first.rawTx]).catch(() => {});
      await node.rpc("evm_mine");
      for (let i = 0; i < 6; i++) {
        await pass(); // a restarted process
        if ((await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } })).status === "confirmed") break;
        await node.rpc("evm_mine");
      }
      await expectPaidOnce(q);
      const txs = await rows(q.w.id);
      expect(txs).toHaveLength(2);
      // Persisted but never broadcast, the replacement cannot have been mined: the first paid.
      if (step === "after_replacement_persist") expect(txs.map((x) => x.status)).toEqual(["mined", "replaced"]);
    }, 120_000);

  it("at the fee ceiling the payout stops being bumped and waits with its reason shown; when fees fall it is mined", async () => {
    setSettings({ PAYOUT_MAX_FEE_GWEI: "50" });
    await node.rpc("evm_setAutomine", [false]);
    const q = await queue();
    await pass();
    await mineAt("100");
    await pass(); // replaced once, at the ceiling itself
    const two = await rows(q.w.id);
    expect(two).toHaveLength(2);
    expect(two[1].maxFeePerGas).toBe(parseGwei("50").toString());
    await mineAt("100");
    for (let i = 0; i < 3; i++) await pass();
    expect(await rows(q.w.id)).toHaveLength(2);
    const shown = await getWithdrawal(db, { resellerId: q.resellerId, withdrawalId: q.w.id });
    expect(shown?.status).toBe("sent");
    expect(shown?.stateReason).toBe(
      "network fees are above the fee ceiling of 50 gwei: the payout, signed with a max fee of 50 gwei, waits to be mined and is not bumped further",
    );
    await mineAt("1");
    for (let i = 0; i < 6; i++) {
      await pass();
      if ((await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } })).status === "confirmed") break;
      await node.rpc("evm_mine");
    }
    await expectPaidOnce(q);
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } })).stateReason).toBeNull();
  }, 120_000);

  it("the database records at most one paying transaction per hot wallet and nonce, and each replacement number once", async () => {
    // Last in the file: its withdrawal stays queued.
    const q = await queue();
    const row = (replacement: number, hash: string, paidNonce: number | null) => ({
      withdrawalId: q.w.id,
      chainId: 999,
      fromAddress: "0xhot",
      accountNonce: 7,
      replacement,
      rawTx: "0x",
      hash,
      status: paidNonce === null ? "signed" : "mined",
      paidNonce,
    });
    await db.payoutTx.create({ data: row(0, `0xa-${kind}`, 7) });
    await expect(db.payoutTx.create({ data: row(1, `0xb-${kind}`, 7) })).rejects.toThrow();
    await expect(db.payoutTx.create({ data: row(0, `0xc-${kind}`, null) })).rejects.toThrow();
    await db.payoutTx.create({ data: row(1, `0xd-${kind}`, null) });
    await db.payoutTx.create({ data: row(2, `0xe-${kind}`, null) });
    expect(await db.payoutTx.count({ where: { chainId: 999 } })).toBe(3);
    await db.payoutTx.deleteMany({ where: { chainId: 999 } });
  });
});
