import { type Address, erc20Abi, type Hex, parseEther, parseUnits } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { payoutChains } from "@/lib/withdrawals/chains";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { getPayoutSender, getPayoutSenders } from "@/lib/withdrawals/sender";
import { confirmWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { refusalOf } from "../support/app-error";
import { setSettings, settingsForTests, withSettings } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// Several payout chains: the PAYOUT_* settings describe the first (as before), PAYOUT_CHAINS
// adds more, each with its own node, tokens, confirmations, explorer and minimum. Two anvil
// nodes with different chain ids: a reseller withdraws on each, paid by that chain's hot
// wallet; a confirmation signed for one chain is refused for a quote on the other.

const CHAIN_A = 31337;
const CHAIN_B = 31338;

describe.each(["sqlite", "postgres"] as const)("two payout chains on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let a: AnvilNode;
  let b: AnvilNode;
  let usdcB: Address;
  let clock = Date.now();
  const key: Hex = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
  // Chain B's hot wallet is a key of its own, funded by the test.
  const keyB = generatePrivateKey();
  settingsForTests({ LOG_LEVEL: "silent", PAYOUT_SENDER: "evm", PAYOUT_CONFIRMATIONS: "1", WITHDRAWAL_MIN_USD: "10" });

  async function reseller(eth: string) {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() } });
    await creditProfit(db, r.id, "eth", eth);
    return { account, id: r.id };
  }

  /** Worker passes for one chain, its node mining a block after each. */
  async function payAll(chainId: number) {
    for (let i = 0; i < 6; i++) {
      clock += 3_600_000;
      await runWithdrawalsOnce(db, getPayoutSender(chainId), { now: new Date(clock) });
      await (chainId === CHAIN_A ? a : b).rpc("evm_mine");
    }
  }

  beforeAll(async () => {
    [a, b] = await Promise.all([startAnvil({ chainId: CHAIN_A }), startAnvil({ chainId: CHAIN_B })]);
    const from = b.accounts[1];
    const fund = await b
      .walletClient(from)
      .sendTransaction({ account: from, chain: b.chain, to: privateKeyToAccount(keyB).address, value: parseEther("5") });
    await b.publicClient.waitForTransactionReceipt({ hash: fund, pollingInterval: 50 });
    usdcB = await b.deploy("TestToken", ["USD Coin", "USDC", 6, parseUnits("1000000", 6)]);
    const holder = b.accounts[0];
    const move = await b.walletClient(holder).writeContract({
      account: holder,
      chain: b.chain,
      address: usdcB,
      abi: erc20Abi,
      functionName: "transfer",
      args: [privateKeyToAccount(keyB).address, parseUnits("1000", 6)],
    });
    await b.publicClient.waitForTransactionReceipt({ hash: move, pollingInterval: 50 });
    setSettings({
      PAYOUT_RPC_URL: a.rpcUrl,
      PAYOUT_CHAIN_ID: String(CHAIN_A),
      PAYOUT_PRIVATE_KEY: key,
      PAYOUT_EXPLORER_URL: "https://a.example",
      PAYOUT_CHAINS: JSON.stringify([
        {
          chainId: CHAIN_B,
          name: "Chain B",
          rpcUrl: b.rpcUrl,
          privateKey: keyB,
          tokens: `usdc=${usdcB}`,
          confirmations: 2,
          explorerUrl: "https://b.example",
          minUsd: "5",
        },
      ]),
    });
    t = await tempDatabase(kind);
    db = t.db;
  }, 120_000);
  afterAll(async () => {
    await t?.cleanup();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("lists the first chain from the PAYOUT_* settings and the others from PAYOUT_CHAINS, with the first's defaults", () => {
    expect(payoutChains().map((c) => [c.chainId, c.name, c.confirmations, c.minUsd, c.explorerUrl, c.tokens])).toEqual([
      [CHAIN_A, `Chain ${CHAIN_A}`, 1, "10", "https://a.example", ""],
      [CHAIN_B, "Chain B", 2, "5", "https://b.example", `usdc=${usdcB}`],
    ]);
    expect(getPayoutSenders().map((s) => [s.chainId, s.address])).toEqual([
      [CHAIN_A, a.accounts[0].address],
      [CHAIN_B, privateKeyToAccount(keyB).address],
    ]);
  });

  it("a reseller withdraws on each chain; each is paid by that chain's hot wallet, once", async () => {
    const r = await reseller("0.02");
    const qa = await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: ["eth"], chainId: CHAIN_A, now: new Date(clock) });
    expect(qa.chainId).toBe(CHAIN_A);
    expect(JSON.parse(qa.typedData).domain.chainId).toBe(CHAIN_A);
    const wa = await confirmWithdrawal(db, {
      resellerId: r.id,
      nonce: qa.nonce,
      signature: await signTypedDataJson(r.account, qa.typedData),
      now: new Date(clock),
    });
    await payAll(CHAIN_A);
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: wa.id } })).status).toBe("confirmed");
    expect(await a.publicClient.getBalance({ address: r.account.address })).toBe(parseEther(wa.amount));
    expect(await b.publicClient.getBalance({ address: r.account.address })).toBe(0n);

    await creditProfit(db, r.id, "eth", "0.01");
    const qb = await quoteWithdrawal(db, { resellerId: r.id, asset: "usdc", currencies: "all", chainId: CHAIN_B, now: new Date(clock) });
    expect(qb.chainId).toBe(CHAIN_B);
    const wb = await confirmWithdrawal(db, {
      resellerId: r.id,
      nonce: qb.nonce,
      signature: await signTypedDataJson(r.account, qb.typedData),
      now: new Date(clock),
    });
    expect(wb.chainId).toBe(CHAIN_B);
    await payAll(CHAIN_A); // the other chain's worker leaves it alone
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: wb.id } })).status).toBe("queued");
    // Mined in one block, no other after it: chain B asks for two.
    for (let i = 0; i < 3; i++) {
      clock += 3_600_000;
      await runWithdrawalsOnce(db, getPayoutSender(CHAIN_B), { now: new Date(clock) });
    }
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: wb.id } })).status).toBe("sent");
    await payAll(CHAIN_B);
    const done = await db.withdrawal.findUniqueOrThrow({ where: { id: wb.id } });
    expect(done.status).toBe("confirmed");
    const held = await b.publicClient.readContract({ address: usdcB, abi: erc20Abi, functionName: "balanceOf", args: [r.account.address] });
    expect(held).toBe(parseUnits(wb.amount, 6));
    const [tx] = await db.payoutTx.findMany({ where: { withdrawalId: wb.id } });
    expect(tx.fromAddress).toBe(privateKeyToAccount(keyB).address.toLowerCase());
    expect(tx.chainId).toBe(CHAIN_B);
    const rows = await getPayoutSender(CHAIN_B).receipt(tx.hash as Hex);
    expect(done.networkFee).toBe(rows!.fee.toString());
    expect((await checkLedger(db)).violations).toEqual([]);
  }, 120_000);

  it("a confirmation signed for one chain is refused for a quote on the other", async () => {
    const r = await reseller("0.01");
    const qb = await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: "all", chainId: CHAIN_B, now: new Date(clock) });
    // The same terms, signed with chain A in the EIP-712 domain.
    const forA = JSON.parse(qb.typedData);
    forA.domain.chainId = CHAIN_A;
    const signature = await signTypedDataJson(r.account, JSON.stringify(forA));
    expect((await refusalOf(confirmWithdrawal(db, { resellerId: r.id, nonce: qb.nonce, signature, now: new Date(clock) }))).code).toBe(
      "INVALID_SIGNATURE",
    );
    // Signed for its own chain, it goes through.
    const ok = await confirmWithdrawal(db, {
      resellerId: r.id,
      nonce: qb.nonce,
      signature: await signTypedDataJson(r.account, qb.typedData),
      now: new Date(clock),
    });
    expect(ok.chainId).toBe(CHAIN_B);
  }, 60_000);

  it("a chain withdrawals are not paid on is refused; the minimum is the chain's", async () => {
    const r = await reseller("0.003"); // about 7 USD at reference prices: under chain A's 10, over chain B's 5
    expect((await refusalOf(quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: "all", chainId: 1 }))).code).toBe(
      "PAYOUT_ASSET_UNAVAILABLE",
    );
    expect((await refusalOf(quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: "all", chainId: CHAIN_A }))).code).toBe(
      "WITHDRAWAL_TOO_SMALL",
    );
    expect((await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: "all", chainId: CHAIN_B })).chainId).toBe(CHAIN_B);
    // USDC is a payout asset on chain B only.
    expect((await refusalOf(quoteWithdrawal(db, { resellerId: r.id, asset: "usdc", currencies: "all", chainId: CHAIN_A }))).code).toBe(
      "PAYOUT_ASSET_UNAVAILABLE",
    );
  });

  it("refuses PAYOUT_CHAINS that is not JSON, names a chain twice, or lacks a node with PAYOUT_SENDER=evm", () => {
    for (const [value, message] of [
      ["not json", /PAYOUT_CHAINS: not JSON/],
      [JSON.stringify([{ chainId: CHAIN_A, rpcUrl: "http://127.0.0.1:1" }]), /chain 31337 is configured twice/],
      [JSON.stringify([{ chainId: 10 }]), /chain 10 needs an rpcUrl/],
      [JSON.stringify([{ chainId: 10, rpcUrl: "http://x", colour: "red" }]), /PAYOUT_CHAINS: .*colour/],
    ] as const)
      expect(() => withSettings({ PAYOUT_CHAINS: value }, () => getConfig())).toThrow(message);
  });
});
