import { type Address, formatUnits, type Hex, parseGwei, parseUnits, toHex } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { reconcile, recordHotWalletDeposit } from "@/lib/withdrawals/reconcile";
import { watchReorgs } from "@/lib/withdrawals/reorgs";
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
// balances and the ledger check stay right throughout; and the hot wallet's ETH treasury follows
// the chain to the wei whenever the worker has seen the chain (payouts in flight).

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
  // anvil mines a transaction it is sent in a block of its own, but after the call returns: wait for it.
  /** Sends signed bytes to the node and waits for their block. */
  const sendRaw = async (raw: string) =>
    node.publicClient.waitForTransactionReceipt({ hash: await node.rpc<Hex>("eth_sendRawTransaction", [raw]), pollingInterval: 50 });
  /** Waits for the block of the withdrawal's payout the worker just broadcast. */
  const minedNow = async (id: string) =>
    node.publicClient.waitForTransactionReceipt({
      hash: (await db.withdrawal.findUniqueOrThrow({ where: { id } })).txHash as Hex,
      pollingInterval: 50,
    });

  async function queue(asset = "eth") {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() } });
    await creditProfit(db, r.id, "eth", "0.01");
    const q = await quoteWithdrawal(db, { resellerId: r.id, asset, currencies: "all", now: new Date(clock) });
    const w = await confirmWithdrawal(db, {
      resellerId: r.id,
      nonce: q.nonce,
      signature: await signTypedDataJson(account, q.typedData),
      now: new Date(clock),
    });
    return { w, resellerId: r.id, to: account.address as Address, base: parseUnits(w.amount, asset === "eth" ? 18 : 6) };
  }

  /** Passes, a block mined after each, until the withdrawal is confirmed. */
  async function untilConfirmed(id: string) {
    for (let i = 0; i < 10 && (await status(id)) !== "confirmed"; i++) {
      await pass();
      await node.rpc("evm_mine");
    }
    expect(await status(id)).toBe("confirmed");
  }

  /** A payout asset's treasury against the chain, in base units: [books, chain]. */
  async function treasuryLine(asset = "eth", decimals = 18) {
    const line = (await reconcile(db, { assets: [asset] })).lines.find((l) => l.check === "treasury")!;
    return [parseUnits(line.books, decimals), parseUnits(line.actual!, decimals)];
  }
  /** The books and the chain agree on the hot wallet's ETH (and a token's), to the wei, gas included. */
  async function expectTreasuryMatches(token?: { asset: string; decimals: number }) {
    const [books, chain] = await treasuryLine();
    expect(books).toBe(chain);
    if (!token) return;
    const [tokenBooks, tokenChain] = await treasuryLine(token.asset, token.decimals);
    expect(tokenBooks).toBe(tokenChain);
  }
  /** The operator books what the hot wallet holds (its genesis funds, less the gas of transactions made outside the product). */
  async function bookFunding(asset = "eth", decimals = 18) {
    const [books, chain] = await treasuryLine(asset, decimals);
    if (books !== chain) await recordHotWalletDeposit(db, { asset, amount: formatUnits(chain - books, decimals) });
  }
  /** What payouts the withdrawal's journals book (network fees), in wei. */
  async function bookedFee(id: string) {
    const journals = await db.journal.findMany({ where: { withdrawalId: id }, select: { id: true } });
    const lines = await db.journalLine.findMany({ where: { account: "network_fees", journalId: { in: journals.map((j) => j.id) } } });
    return -lines.reduce((s, l) => s + parseUnits(l.amount, 18), 0n);
  }
  const kinds = async (id: string) =>
    (await db.journal.findMany({ where: { withdrawalId: id }, orderBy: { createdAt: "asc" } })).map((j) =>
      j.kind.replace("withdrawal_", ""),
    );
  /** The receipt's fee of whichever of the withdrawal's transactions is mined now. */
  async function chainFee(id: string) {
    for (const x of await db.payoutTx.findMany({ where: { withdrawalId: id } })) {
      const r = await node.publicClient.getTransactionReceipt({ hash: x.hash as Hex }).catch(() => null);
      if (r) return r.gasUsed * r.effectiveGasPrice;
    }
    return null;
  }
  /** The next block's base fee, a fraction of what the payout's max fee leaves above its tip: its gas differs from another block's. */
  async function nextBaseFee(id: string, divisor: bigint) {
    const [x] = await db.payoutTx.findMany({ where: { withdrawalId: id } });
    await node.rpc("anvil_setNextBlockBaseFeePerGas", [toHex((BigInt(x.maxFeePerGas!) - BigInt(x.maxPriorityFeePerGas!)) / divisor)]);
  }

  /** Another account's transaction freezes `who` on the token (it refuses transfers to it from then on). */
  async function freeze(token: Address, who: Address) {
    const other = node.accounts[1];
    const hash = await node.walletClient(other).writeContract({
      account: other,
      chain: node.chain,
      address: token,
      abi: [
        { type: "function", name: "freeze", stateMutability: "nonpayable", inputs: [{ name: "account", type: "address" }], outputs: [] },
      ],
      functionName: "freeze",
      args: [who],
    });
    await node.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  }

  /** Balances and ledger right: nothing reserved, nothing available, the ledger check passes. */
  async function expectBooksRight(resellerId: string, held: { reserved?: string } = {}) {
    expect(await getBalances(db, resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: held.reserved ?? "0" }]);
    expect((await checkLedger(db)).violations).toEqual([]);
  }

  beforeAll(async () => {
    node = await startAnvil();
    hotKey = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
    setSettings({
      PAYOUT_CHAIN_ID: String(node.chainId),
      // For reconcile: the hot wallet on this chain.
      PAYOUT_SENDER: "evm",
      PAYOUT_RPC_URL: node.rpcUrl,
      PAYOUT_PRIVATE_KEY: hotKey,
    });
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
    const again = await sendRaw(paid.rawTx);
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

  it("a payout mined then reorganised out, before its confirmation and after it: the treasury follows the chain to the wei, the gas of the block that holds it booked once", async () => {
    // No fee bump on the way: the same signed bytes are sent again each time.
    setSettings({ PAYOUT_BUMP_AFTER_SECONDS: "100000000" });
    try {
      await bookFunding();
      await expectTreasuryMatches();
      // A base fee of 1 gwei: the payout's max fee leaves room above its tip for the blocks below to differ.
      await node.rpc("anvil_setNextBlockBaseFeePerGas", [toHex(parseGwei("1"))]);
      await node.rpc("evm_mine");
      const beforePayout = await node.rpc<Hex>("evm_snapshot");
      const q = await queue();
      await pass(); // broadcast, mined at once
      await minedNow(q.w.id);
      await pass(); // seen mined, 1 of 2 confirmations: in flight
      expect(await status(q.w.id)).toBe("sent");
      await expectTreasuryMatches();
      const fee1 = (await chainFee(q.w.id))!;
      expect(await bookedFee(q.w.id)).toBe(fee1);

      // Its block leaves the chain before it is confirmed: booked back (amount and gas) before it is sent again.
      await node.rpc("evm_revert", [beforePayout]);
      const gone = await node.rpc<Hex>("evm_snapshot");
      await node.rpc("evm_setAutomine", [false]);
      await pass(); // not mined any more: booked back, the same bytes broadcast (they wait in the pool)
      expect(await status(q.w.id)).toBe("sent");
      expect(await chainFee(q.w.id)).toBeNull();
      await expectTreasuryMatches();
      expect(await bookedFee(q.w.id)).toBe(0n);
      await expectBooksRight(q.resellerId, { reserved: "0.01" });

      // Mined again in a block of another base fee: booked again, with that gas.
      await nextBaseFee(q.w.id, 4n);
      await node.rpc("evm_mine");
      await node.rpc("evm_setAutomine", [true]);
      const fee2 = (await chainFee(q.w.id))!;
      expect(fee2).not.toBe(fee1);
      await pass();
      await expectTreasuryMatches();
      expect(await bookedFee(q.w.id)).toBe(fee2);

      // Reorganised again between two passes, the same transaction in another block at once: its gas booked anew.
      await node.rpc("evm_revert", [gone]);
      const goneAgain = await node.rpc<Hex>("evm_snapshot");
      await node.rpc("evm_setAutomine", [false]);
      const [paid] = await db.payoutTx.findMany({ where: { withdrawalId: q.w.id } });
      await node.rpc("eth_sendRawTransaction", [paid.rawTx]);
      await nextBaseFee(q.w.id, 3n);
      await node.rpc("evm_mine");
      await node.rpc("evm_setAutomine", [true]);
      const fee3 = (await chainFee(q.w.id))!;
      expect(fee3).not.toBe(fee2);
      await pass();
      expect(await status(q.w.id)).toBe("sent");
      await expectTreasuryMatches();
      expect(await bookedFee(q.w.id)).toBe(fee3);

      // Reorganised once more, into a block of yet another fee that is deep enough when the worker
      // next looks: booked back, and paid out of the hot wallet with the gas of that block.
      await node.rpc("evm_revert", [goneAgain]);
      const goneThird = await node.rpc<Hex>("evm_snapshot");
      await node.rpc("evm_setAutomine", [false]);
      await node.rpc("eth_sendRawTransaction", [paid.rawTx]);
      await nextBaseFee(q.w.id, 2n);
      await node.rpc("evm_mine");
      await node.rpc("evm_mine");
      await node.rpc("evm_setAutomine", [true]);
      const fee4 = (await chainFee(q.w.id))!;
      expect(fee4).not.toBe(fee3);
      await pass();
      expect(await status(q.w.id)).toBe("confirmed");
      await expectTreasuryMatches();
      expect(await bookedFee(q.w.id)).toBe(fee4);
      expect(await kinds(q.w.id)).toEqual(["queued", "mined", "unmined", "mined", "unmined", "mined", "unmined", "confirmed"]);
      await expectBooksRight(q.resellerId);

      // And reorganised out after its confirmation: the watch books it back at once (the reseller stays paid).
      await node.rpc("evm_revert", [goneThird]);
      expect(await watchReorgs(db, sender(), tick())).toBe(1);
      expect(await status(q.w.id)).toBe("sent");
      await expectTreasuryMatches();
      expect(await bookedFee(q.w.id)).toBe(0n);
      await expectBooksRight(q.resellerId);
      // Sent again, mined, and deep enough when next seen: confirmed again, booked on chain once more (not paid out again).
      await pass();
      await minedNow(q.w.id);
      await node.rpc("evm_mine");
      await pass();
      expect(await status(q.w.id)).toBe("confirmed");
      await expectTreasuryMatches();
      expect(await bookedFee(q.w.id)).toBe((await chainFee(q.w.id))!);
      expect(await node.publicClient.getBalance({ address: q.to })).toBe(q.base);
      expect((await kinds(q.w.id)).slice(8)).toEqual(["unmined", "mined"]);
      await expectBooksRight(q.resellerId);
    } finally {
      await node.rpc("evm_setAutomine", [true]);
      setSettings({ PAYOUT_BUMP_AFTER_SECONDS: "120" });
    }
  }, 120_000);

  describe("token payouts", () => {
    let token: Address;
    const usdc = { asset: "usdc", decimals: 6 };
    beforeAll(async () => {
      token = await node.deploy("TestToken", ["USD Coin", "USDC", 6, parseUnits("1000000", 6)], node.accounts[0]);
    });
    beforeEach(() => setSettings({ PAYOUT_TOKENS: `usdc=${token}`, PAYOUT_BUMP_AFTER_SECONDS: "100000000" }));
    afterEach(() => setSettings({ PAYOUT_TOKENS: undefined, PAYOUT_BUMP_AFTER_SECONDS: "120" }));

    it("a token payout booked mined that reorganises out and reverts in the new chain (its recipient frozen meanwhile) fails: booked back, its reverted gas booked once", async () => {
      {
        await bookFunding();
        await bookFunding("usdc", 6);
        const beforePayout = await node.rpc<Hex>("evm_snapshot");
        const q = await queue("usdc");
        await pass(); // broadcast, mined at once
        await minedNow(q.w.id);
        await pass(); // seen mined: in flight
        expect(await status(q.w.id)).toBe("sent");
        expect(await kinds(q.w.id)).toEqual(["queued", "mined"]);
        await expectTreasuryMatches(usdc);

        // The new chain freezes the recipient (another account's transaction), then takes the same payout: it reverts.
        await node.rpc("evm_revert", [beforePayout]);
        await freeze(token, q.to);
        const [paid] = await db.payoutTx.findMany({ where: { withdrawalId: q.w.id } });
        const reverted = await sendRaw(paid.rawTx);
        expect(reverted.status).toBe("reverted");

        await pass();
        const w = await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } });
        expect([w.status, w.stateReason]).toEqual(["failed", "payout transaction reverted"]);
        expect(await kinds(q.w.id)).toEqual(["queued", "mined", "unmined", "failed"]);
        await expectTreasuryMatches(usdc);
        expect(await bookedFee(q.w.id)).toBe(reverted.gasUsed * reverted.effectiveGasPrice);
        expect(await getBalances(db, q.resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0.01", reserved: "0" }]);
        expect((await checkLedger(db)).violations).toEqual([]);
      }
    }, 120_000);

    it("a token payout confirmed, reorganised out, mined again, then reorganised into a chain where it reverts: booked back, it waits for the operator", async () => {
      await bookFunding();
      await bookFunding("usdc", 6);
      const beforePayout = await node.rpc<Hex>("evm_snapshot");
      const q = await queue("usdc");
      await untilConfirmed(q.w.id);
      await expectTreasuryMatches(usdc);

      // Reorganised out (booked back by the watch), then mined again in the new chain: booked on chain again.
      await node.rpc("evm_revert", [beforePayout]);
      const gone = await node.rpc<Hex>("evm_snapshot");
      expect(await watchReorgs(db, sender(), tick())).toBe(1);
      const [paid] = await db.payoutTx.findMany({ where: { withdrawalId: q.w.id } });
      await sendRaw(paid.rawTx);
      await pass(); // seen mined again, 1 of 2 confirmations
      expect(await status(q.w.id)).toBe("sent");
      expect(await kinds(q.w.id)).toEqual(["queued", "confirmed", "unmined", "mined"]);
      await expectTreasuryMatches(usdc);

      // Reorganised again, into a chain where its recipient is frozen first: it reverts there.
      await node.rpc("evm_revert", [gone]);
      await freeze(token, q.to);
      const reverted = await sendRaw(paid.rawTx);
      expect(reverted.status).toBe("reverted");
      await pass();
      const w = await db.withdrawal.findUniqueOrThrow({ where: { id: q.w.id } });
      expect(w.status).toBe("sent");
      expect(w.stateReason).toMatch(/^its payout reverted after a chain reorganisation: the operator must settle it/);
      expect(await kinds(q.w.id)).toEqual(["queued", "confirmed", "unmined", "mined", "unmined"]);
      // The token is back in the hot wallet, and in the books; the reverted gas is the operator's to book.
      const [tokenBooks, tokenChain] = await treasuryLine("usdc", 6);
      expect(tokenBooks).toBe(tokenChain);
      const [ethBooks, ethChain] = await treasuryLine();
      expect(ethChain - ethBooks).toBe(-(reverted.gasUsed * reverted.effectiveGasPrice));
      expect(await bookedFee(q.w.id)).toBe(0n);
      await expectBooksRight(q.resellerId);
    }, 120_000);
  });
});
