import { type Address, erc20Abi, getAddress, type Hex, parseUnits } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { createEvmSender } from "@/lib/withdrawals/sender/evm";
import { confirmWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { refusalOf } from "../support/app-error";
import { setSettings, settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// A reseller signed in with a smart-contract wallet (ERC-1271: the test contract accepts its
// owner's ECDSA signature of the hash it is asked about) confirms a withdrawal: the EIP-712
// confirmation is checked with the contract's isValidSignature on the payout chain, and the
// payout goes to the contract's address. A signature the contract refuses is refused; a node
// that cannot answer is a 503, not a refusal.

describe.each(["sqlite", "postgres"] as const)("contract wallet withdrawals on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let node: AnvilNode;
  let hotKey: Hex;
  let token: Address;
  let clock = Date.now();
  settingsForTests({ PAYOUT_CONFIRMATIONS: "1", WITHDRAWAL_MIN_USD: "10", LOG_LEVEL: "silent" });
  const sender = () => createEvmSender({ rpcUrl: node.rpcUrl, chainId: node.chainId, privateKey: hotKey });

  /** A reseller whose wallet is a freshly deployed ERC1271Wallet owned by a new key, with profit to withdraw in USDC. */
  async function contractReseller() {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = getAddress(await node.deploy("ERC1271Wallet", [owner.address]));
    const r = await db.reseller.create({ data: { id: `c-${wallet.slice(2, 14)}`, walletAddress: wallet.toLowerCase() } });
    await creditProfit(db, r.id, "eth", "0.01");
    const q = await quoteWithdrawal(db, { resellerId: r.id, asset: "usdc", currencies: "all", now: new Date(clock) });
    expect(q.destination).toBe(wallet);
    return { owner, wallet, resellerId: r.id, q };
  }

  beforeAll(async () => {
    node = await startAnvil();
    hotKey = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
    token = await node.deploy("TestToken", ["USD Coin", "USDC", 6, parseUnits("1000000", 6)]);
    setSettings({ PAYOUT_CHAIN_ID: String(node.chainId), PAYOUT_TOKENS: `usdc=${token}` });
    t = await tempDatabase(kind);
    db = t.db;
  }, 120_000);
  afterAll(async () => {
    await t?.cleanup();
    await node?.stop();
  });

  it("the owner's signature, accepted by the contract's isValidSignature, queues it; the payout goes to the contract", async () => {
    const c = await contractReseller();
    const signature = await signTypedDataJson(c.owner, c.q.typedData);
    const w = await confirmWithdrawal(db, {
      resellerId: c.resellerId,
      nonce: c.q.nonce,
      signature,
      now: new Date(clock),
      sender: sender(),
    });
    expect(w.status).toBe("queued");
    expect(w.destination).toBe(c.wallet);
    for (let i = 0; i < 6; i++) {
      clock += 3_600_000;
      await runWithdrawalsOnce(db, sender(), { now: new Date(clock) });
    }
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: w.id } })).status).toBe("confirmed");
    const held = await node.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [c.wallet] });
    expect(held).toBe(parseUnits(w.amount, 6));
    expect((await checkLedger(db)).violations).toEqual([]);
  }, 60_000);

  it("a signature the contract refuses (another key's) is refused, and nothing is queued", async () => {
    const c = await contractReseller();
    const signature = await signTypedDataJson(privateKeyToAccount(generatePrivateKey()), c.q.typedData);
    expect(
      (
        await refusalOf(
          confirmWithdrawal(db, { resellerId: c.resellerId, nonce: c.q.nonce, signature, now: new Date(clock), sender: sender() }),
        )
      ).code,
    ).toBe("INVALID_SIGNATURE");
    expect(await db.withdrawal.count({ where: { resellerId: c.resellerId } })).toBe(0);
  }, 60_000);

  it("without the payout chain's sender (simulated, or another chain) a contract wallet's signature is refused", async () => {
    const c = await contractReseller();
    const signature = await signTypedDataJson(c.owner, c.q.typedData);
    const elsewhere = createEvmSender({ rpcUrl: node.rpcUrl, chainId: node.chainId + 1, privateKey: hotKey });
    expect(
      (
        await refusalOf(
          confirmWithdrawal(db, { resellerId: c.resellerId, nonce: c.q.nonce, signature, now: new Date(clock), sender: elsewhere }),
        )
      ).code,
    ).toBe("INVALID_SIGNATURE");
  }, 60_000);

  it("a payout chain node that cannot answer is PAYOUT_CHAIN_UNAVAILABLE (try again), not a refusal", async () => {
    const c = await contractReseller();
    const signature = await signTypedDataJson(c.owner, c.q.typedData);
    const down = createEvmSender({ rpcUrl: "http://127.0.0.1:9", chainId: node.chainId, privateKey: hotKey });
    expect(
      (
        await refusalOf(
          confirmWithdrawal(db, { resellerId: c.resellerId, nonce: c.q.nonce, signature, now: new Date(clock), sender: down }),
        )
      ).code,
    ).toBe("PAYOUT_CHAIN_UNAVAILABLE");
    // Not used up: the same confirmation goes through once the node answers.
    const w = await confirmWithdrawal(db, {
      resellerId: c.resellerId,
      nonce: c.q.nonce,
      signature,
      now: new Date(clock),
      sender: sender(),
    });
    expect(w.status).toBe("queued");
  }, 60_000);
});
