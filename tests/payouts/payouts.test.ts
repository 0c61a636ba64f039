import { getAddress, type Hex, parseUnits } from "viem";
import { generatePrivateKey, mnemonicToAccount, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Clock, now as clockNow, provideClock } from "@/lib/clock";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { getBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { getPayoutsView, type InstructionInput, requestInstruction, revokeInstruction, signInstruction } from "@/lib/payouts/instructions";
import { runPayoutInstructionsOnce } from "@/lib/payouts/run";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { maybeScope } from "@/lib/scope";
import { rejectWithdrawal } from "@/lib/withdrawals/approval";
import { runWithdrawalsOnce, SenderStopped } from "@/lib/withdrawals/process";
import { reconcile, recordHotWalletDeposit } from "@/lib/withdrawals/reconcile";
import { createEvmSender } from "@/lib/withdrawals/sender/evm";
import { confirmWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { assertLedgerConsistent } from "../support/ledger";
import { setSettings, settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// Automatic payouts by a signed standing instruction (lib/payouts), on a real local chain (anvil)
// and both databases, the worker's clock moved through the app's clock (lib/clock.ts): a
// threshold pays once per crossing; a monthly instruction pays once per month across a crash
// between its period row and the send (the payout sender stopped mid-payment, as a kill -9
// leaves it: the lease held, nothing cleaned up) and a restart, and across a crash inside the
// period row's transaction; the caps hold per payout and per calendar month; a revoked
// instruction pays nothing, even when the revocation commits while a pass is pricing; a change of
// wallet applies only after PAYOUT_CHANGE_DELAY_HOURS. After each: the ledger check passes and
// reconciliation finds the hot wallet's books equal to the chain.

const code = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return "OK";
};

/** What a wallet does with an instruction's eth_signTypedData_v4 argument (uint256 fields arrive as decimal strings). */
function signInstructionJson(account: PrivateKeyAccount, json: string): Promise<Hex> {
  const d = JSON.parse(json);
  const { EIP712Domain: _, ...types } = d.types;
  const message = { ...d.message, chainId: BigInt(d.message.chainId), expiresAt: BigInt(d.message.expiresAt) };
  return account.signTypedData({ domain: d.domain, types, primaryType: d.primaryType, message });
}

const HOUR = 3_600_000;

describe.each(["sqlite", "postgres"] as const)("automatic payouts on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let node: AnvilNode;
  let hotKey: Hex;
  // The app's clock: every pass reads it (lib/clock.ts); a Monday, so weeks and months are plain.
  let at = Date.parse("2027-01-04T00:00:00Z");
  const clock: Clock = { now: () => new Date(at) };
  const moveTo = (iso: string) => {
    at = Date.parse(iso);
  };
  const later = (ms: number) => {
    at += ms;
  };
  const settings = {
    WITHDRAWAL_MIN_USD: "10",
    PAYOUT_CONFIRMATIONS: "1",
    // The clock jumps days between passes: no fee bumps in these tests (tests/withdrawals/fee-bump.test.ts has them).
    PAYOUT_BUMP_AFTER_SECONDS: "100000000",
    PAYOUT_CHANGE_DELAY_HOURS: "24",
    LOG_LEVEL: "silent",
  };
  settingsForTests(settings);
  /** Settings changed for a test: a new app, given the same clock. */
  const withClockSettings = (env: Record<string, string | undefined>) => {
    setSettings(env);
    provideClock(maybeScope()!, clock);
  };

  const sender = () => createEvmSender({ rpcUrl: node.rpcUrl, chainId: node.chainId, privateKey: hotKey });

  async function reseller() {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await getOrCreateReseller(db, { walletAddress: account.address }); // its wallet is its team's owner
    return { id: r.id, account };
  }

  /** The owner asks for and signs an instruction. */
  async function instruct(resellerId: string, account: PrivateKeyAccount, input: InstructionInput) {
    const req = await requestInstruction(db, { resellerId, wallet: account.address, input, now: clockNow() });
    const row = await signInstruction(db, {
      resellerId,
      wallet: account.address,
      nonce: req.nonce,
      signature: await signInstructionJson(account, req.typedData),
      now: clockNow(),
      sender: sender(),
    });
    return { req, row };
  }

  const payoutsPass = () => runPayoutInstructionsOnce(db);

  /** Withdrawal passes, a second of the clock apart, until none is queued, processing or sent (a block mined for each payout sent). */
  async function settle() {
    for (let i = 0; i < 20; i++) {
      const active = await db.withdrawal.findMany({ where: { status: { in: ["queued", "processing", "sent"] } } });
      if (!active.length) return;
      await runWithdrawalsOnce(db, sender(), { now: clockNow() });
      for (const w of await db.withdrawal.findMany({ where: { status: "sent" } }))
        await node.publicClient.waitForTransactionReceipt({ hash: w.txHash as Hex, pollingInterval: 50 });
      later(1000);
    }
    throw new Error("withdrawals did not settle");
  }

  const runsOf = (resellerId: string) =>
    db.payoutRun.findMany({ where: { resellerId }, orderBy: { createdAt: "asc" }, include: { withdrawal: true } });
  const onChain = (address: string) => node.publicClient.getBalance({ address: getAddress(address) });
  const wei = (eth: string) => parseUnits(eth, 18);
  const available = async (resellerId: string) => (await getBalances(db, resellerId)).find((b) => b.currency === "eth")?.available ?? "0";

  /** The books hold: the ledger check passes, and reconciliation finds the treasury equal to the chain, and no other difference. */
  async function expectBooksMatchChain() {
    await assertLedgerConsistent(db);
    const report = await reconcile(db);
    expect(report.differences).toEqual([]);
    const eth = report.lines.find((l) => l.check === "treasury" && l.name.endsWith(":eth"))!;
    expect(eth.actual).not.toBeNull();
    expect(parseUnits(eth.books, 18)).toBe(parseUnits(eth.actual!, 18));
  }

  beforeAll(async () => {
    node = await startAnvil();
    hotKey = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
    withClockSettings({
      PAYOUT_CHAIN_ID: String(node.chainId),
      PAYOUT_SENDER: "evm",
      PAYOUT_RPC_URL: node.rpcUrl,
      PAYOUT_PRIVATE_KEY: hotKey,
    });
    t = await tempDatabase(kind);
    db = t.db;
    // The operator books what the hot wallet holds (its genesis funds).
    const line = (await reconcile(db, { assets: ["eth"] })).lines.find((l) => l.check === "treasury")!;
    await recordHotWalletDeposit(db, { asset: "eth", amount: line.actual! });
  }, 120_000);
  afterEach(async () => {
    // Every scenario leaves the books matching the chain.
    await expectBooksMatchChain();
  }, 60_000);
  afterAll(async () => {
    await t?.cleanup();
    await node?.stop();
  });

  it("a threshold pays once when the balance crosses it, not again until it falls below and crosses again", async () => {
    moveTo("2027-01-04T00:00:00Z");
    const r = await reseller();
    // 20 USD threshold, at most 50 USD a payout: 0.06 ETH (about 128 USD) leaves about 78 USD above it.
    await instruct(r.id, r.account, {
      trigger: "threshold",
      thresholdUsd: "20",
      asset: "eth",
      maxPerPayoutUsd: "50",
      maxPerMonthUsd: "10000",
    });
    await creditProfit(db, r.id, "eth", "0.005"); // about 10.6 USD: below
    expect(await payoutsPass()).toBe(0);
    await creditProfit(db, r.id, "eth", "0.055");
    later(HOUR);
    expect(await payoutsPass()).toBe(1);
    await settle();
    const [first] = await runsOf(r.id);
    expect(first.period).toBe("t1");
    expect(first.withdrawal).toMatchObject({ status: "confirmed", destination: r.account.address.toLowerCase() });
    expect(new D(first.usdValue).lte(50)).toBe(true);
    expect(new D(first.usdValue).gt(49)).toBe(true);
    expect(await onChain(r.account.address)).toBe(wei(first.withdrawal!.amount));

    // Still above the threshold (about 78 USD), and more credited: no second payout while it stays above.
    await creditProfit(db, r.id, "eth", "0.01");
    for (let i = 0; i < 3; i++) {
      later(HOUR);
      expect(await payoutsPass()).toBe(0);
    }
    expect(await runsOf(r.id)).toHaveLength(1);

    // A manual withdrawal takes it below; a pass sees it below; crossing again pays again.
    const q = await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: "all", now: clockNow() });
    await confirmWithdrawal(db, {
      resellerId: r.id,
      nonce: q.nonce,
      signature: await signTypedDataJson(r.account, q.typedData),
      now: clockNow(),
    });
    await settle();
    expect(await available(r.id)).toBe("0");
    later(HOUR);
    expect(await payoutsPass()).toBe(0);
    await creditProfit(db, r.id, "eth", "0.015"); // about 32 USD
    later(HOUR);
    expect(await payoutsPass()).toBe(1);
    await settle();
    const runs = await runsOf(r.id);
    expect(runs.map((x) => [x.period, x.withdrawal?.status])).toEqual([
      ["t1", "confirmed"],
      ["t2", "confirmed"],
    ]);
    expect(await available(r.id)).toBe("0");
  }, 120_000);

  it("a monthly instruction pays once a month across a crash mid-payment and a restart", async () => {
    moveTo("2027-01-04T00:00:00Z");
    const r = await reseller();
    await instruct(r.id, r.account, { trigger: "monthly", asset: "eth", maxPerPayoutUsd: "1000", maxPerMonthUsd: "1000" });
    await creditProfit(db, r.id, "eth", "0.05");

    // A crash inside the transaction that writes the period row: nothing of it stays.
    const crash = new Error("killed inside the period's transaction");
    await expect(
      runPayoutInstructionsOnce(db, {
        onStep: (step) => {
          if (step === "after_run_row") throw crash;
        },
      }),
    ).resolves.toBe(0);
    expect(await runsOf(r.id)).toHaveLength(0);
    expect(await available(r.id)).toBe("0.05");

    // The period row and its withdrawal are written; the worker dies after broadcasting the payout
    // (the payout sender's own crash point: its lease stays held, nothing is recorded as sent).
    later(60_000);
    expect(await payoutsPass()).toBe(1);
    const [run] = await runsOf(r.id);
    expect(run.period).toBe("2027-01");
    await expect(
      runWithdrawalsOnce(db, sender(), { now: clockNow(), stopAt: (step) => step === "after_broadcast" }),
    ).rejects.toBeInstanceOf(SenderStopped);

    // A restarted worker (a new sender; the clock past the dead worker's lease): the month is paid already.
    later(5 * 60_000);
    await creditProfit(db, r.id, "eth", "0.05");
    for (let i = 0; i < 3; i++) {
      expect(await payoutsPass()).toBe(0);
      later(HOUR);
    }
    await settle();
    expect((await runsOf(r.id)).map((x) => [x.period, x.withdrawal?.status])).toEqual([["2027-01", "confirmed"]]);
    expect(await db.payoutTx.count({ where: { withdrawalId: run.withdrawal!.id } })).toBe(1);
    expect(await onChain(r.account.address)).toBe(wei(run.withdrawal!.amount));
    expect(run.withdrawal!.amount).toBe("0.05");

    // The end of the month: nothing more; the next month pays once.
    moveTo("2027-01-31T23:59:00Z");
    expect(await payoutsPass()).toBe(0);
    moveTo("2027-02-01T00:01:00Z");
    expect(await payoutsPass()).toBe(1);
    expect(await payoutsPass()).toBe(0);
    await settle();
    const runs = await runsOf(r.id);
    expect(runs.map((x) => [x.period, x.withdrawal?.status, x.withdrawal?.amount])).toEqual([
      ["2027-01", "confirmed", "0.05"],
      ["2027-02", "confirmed", "0.05"],
    ]);
    expect(await onChain(r.account.address)).toBe(wei("0.1"));
  }, 120_000);

  it("never exceeds the caps, per payout and per calendar month; a rejected payout does not use the month's cap", async () => {
    moveTo("2027-01-04T00:00:00Z");
    const r = await reseller();
    await instruct(r.id, r.account, { trigger: "weekly", asset: "eth", maxPerPayoutUsd: "30", maxPerMonthUsd: "50" });
    await creditProfit(db, r.id, "eth", "1"); // about 2,130 USD: far above both caps
    const monthTotal = async () =>
      (await runsOf(r.id))
        .filter((x) => x.createdAt.toISOString().startsWith("2027-01") && x.withdrawal?.status !== "failed")
        .reduce((s, x) => s.plus(x.usdValue), new D(0));

    // Above WITHDRAWAL_APPROVAL_USD it waits for the operator, as any withdrawal; rejected, it does not count.
    withClockSettings({ WITHDRAWAL_APPROVAL_USD: "25" });
    expect(await payoutsPass()).toBe(1);
    const [waiting] = await runsOf(r.id);
    expect(waiting.withdrawal?.status).toBe("awaiting_approval");
    await rejectWithdrawal(db, {
      withdrawalId: waiting.withdrawal!.id,
      reason: "test",
      by: { operatorId: null, actor: "cli", role: null },
    });
    withClockSettings({ WITHDRAWAL_APPROVAL_USD: "" });

    // Week 1 had its payout (rejected: its period is spent, its money back and not counted): nothing until week 2.
    expect(await payoutsPass()).toBe(0);
    moveTo("2027-01-11T00:00:00Z"); // week 2: 30 USD
    expect(await payoutsPass()).toBe(1);
    moveTo("2027-01-18T00:00:00Z"); // week 3: the 20 USD the month has left
    expect(await payoutsPass()).toBe(1);
    moveTo("2027-01-25T00:00:00Z"); // week 4: nothing left this month (below the 10 USD minimum)
    expect(await payoutsPass()).toBe(0);
    await settle();
    const runs = await runsOf(r.id);
    for (const x of runs) expect(new D(x.usdValue).lte(30)).toBe(true);
    expect((await monthTotal()).lte(50)).toBe(true);
    expect((await monthTotal()).gt(49)).toBe(true);
    expect(runs.map((x) => [x.period, x.withdrawal?.status])).toEqual([
      ["2027-W01", "failed"],
      ["2027-W02", "confirmed"],
      ["2027-W03", "confirmed"],
    ]);
    // February: the month's cap starts again.
    moveTo("2027-02-01T00:00:00Z");
    expect(await payoutsPass()).toBe(1);
    await settle();
    const feb = (await runsOf(r.id)).at(-1)!;
    expect([feb.period, new D(feb.usdValue).lte(30)]).toEqual(["2027-W05", true]);
    const paid = (await runsOf(r.id)).filter((x) => x.withdrawal?.status === "confirmed");
    expect(await onChain(r.account.address)).toBe(paid.reduce((s, x) => s + wei(x.withdrawal!.amount), 0n));
  }, 120_000);

  it("a revoked instruction pays nothing, also when the revocation commits while a pass is pricing", async () => {
    moveTo("2027-01-04T00:00:00Z");
    const r = await reseller();
    const base = { trigger: "threshold", thresholdUsd: "20", asset: "eth", maxPerPayoutUsd: "500", maxPerMonthUsd: "500" } as const;
    await instruct(r.id, r.account, base);
    await creditProfit(db, r.id, "eth", "0.05");
    // The pass priced the payout; the owner revokes before its transaction: it must not pay.
    expect(
      await runPayoutInstructionsOnce(db, {
        onStep: async (step) => {
          if (step === "priced") await revokeInstruction(db, { resellerId: r.id, wallet: r.account.address, now: clockNow() });
        },
      }),
    ).toBe(0);
    for (let i = 0; i < 3; i++) {
      later(HOUR);
      expect(await payoutsPass()).toBe(0);
    }
    expect(await runsOf(r.id)).toHaveLength(0);
    expect(await db.withdrawal.count({ where: { resellerId: r.id } })).toBe(0);
    expect(await available(r.id)).toBe("0.05");
    expect((await getPayoutsView(db, { resellerId: r.id })).active).toBeNull();
    expect(await code(revokeInstruction(db, { resellerId: r.id, wallet: r.account.address }))).toBe("NOT_FOUND");
    // Revoking and signing again cannot skip the delay: higher caps than the revoked one's still wait.
    const again = (over: Partial<InstructionInput>) =>
      requestInstruction(db, { resellerId: r.id, wallet: r.account.address, input: { ...base, ...over }, now: clockNow() });
    expect((await again({ maxPerMonthUsd: "501" })).delayed).toBe(true);
    expect((await again({})).delayed).toBe(false);
    // Only the owner revokes.
    const other = privateKeyToAccount(generatePrivateKey());
    expect(await code(revokeInstruction(db, { resellerId: r.id, wallet: other.address }))).toBe("FORBIDDEN");
  }, 120_000);

  it("a change of payout wallet applies only after the delay; a cap raised waits, a cap lowered applies at once", async () => {
    moveTo("2027-01-04T00:00:00Z");
    const r = await reseller();
    const input = { trigger: "threshold", thresholdUsd: "20", asset: "eth", maxPerPayoutUsd: "500", maxPerMonthUsd: "5000" } as const;
    const first = await instruct(r.id, r.account, input);
    expect(first.row.status).toBe("active");

    // A cap raised by the same wallet waits; a cap lowered applies at once (and drops the pending raise).
    const raised = await instruct(r.id, r.account, { ...input, maxPerMonthUsd: "9000" });
    expect([raised.req.delayed, raised.row.status]).toEqual([true, "pending"]);
    const lowered = await instruct(r.id, r.account, { ...input, maxPerPayoutUsd: "400" });
    expect([lowered.req.delayed, lowered.row.status]).toEqual([false, "active"]);
    expect((await getPayoutsView(db, { resellerId: r.id })).pending).toBeNull();

    // Another owner of the team signs, to pay their own wallet: a change of payout wallet, it waits 24 h.
    const b = privateKeyToAccount(generatePrivateKey());
    await db.resellerMember.create({
      data: { id: `m-${b.address.slice(2, 14)}`, resellerId: r.id, walletAddress: b.address.toLowerCase(), role: "owner" },
    });
    // A finance member may not: only owners set up payouts (to themselves).
    const f = privateKeyToAccount(generatePrivateKey());
    await db.resellerMember.create({
      data: { id: `m-${f.address.slice(2, 14)}`, resellerId: r.id, walletAddress: f.address.toLowerCase(), role: "finance" },
    });
    await expect(instruct(r.id, f, input)).rejects.toMatchObject({ code: "FORBIDDEN" });
    const changed = await instruct(r.id, b, input);
    expect(changed.row.status).toBe("pending");
    expect(changed.row.effectiveAt).toBe("2027-01-05T00:00:00.000Z");
    const view = await getPayoutsView(db, { resellerId: r.id, now: clockNow() });
    expect(view.active?.destination).toBe(r.account.address.toLowerCase());
    expect(view.pending).toMatchObject({ destination: b.address.toLowerCase(), effectiveAt: "2027-01-05T00:00:00.000Z" });

    // During the delay the balance crosses: the signed wallet of the active instruction is paid.
    await creditProfit(db, r.id, "eth", "0.02");
    moveTo("2027-01-04T23:59:59Z");
    expect(await payoutsPass()).toBe(1);
    await settle();
    expect(await onChain(r.account.address)).toBe(wei("0.02"));
    expect(await onChain(b.address)).toBe(0n);
    expect(await payoutsPass()).toBe(0); // below again: armed

    // After the delay the change applies; the next crossing pays the new wallet.
    moveTo("2027-01-05T00:00:00Z");
    await creditProfit(db, r.id, "eth", "0.03");
    expect(await payoutsPass()).toBe(1);
    await settle();
    const after = await getPayoutsView(db, { resellerId: r.id, now: clockNow() });
    expect([after.active?.id, after.pending]).toEqual([changed.row.id, null]);
    expect(await onChain(b.address)).toBe(wei("0.03"));
    expect(await onChain(r.account.address)).toBe(wei("0.02"));
    expect(after.runs.map((x) => [x.withdrawalStatus, x.amount])).toEqual([
      ["confirmed", "0.03"],
      ["confirmed", "0.02"],
    ]);
  }, 120_000);

  it("refuses a signature of other terms or by another wallet, a replayed one, and accepts a contract wallet's (ERC-1271)", async () => {
    moveTo("2027-01-04T00:00:00Z");
    const r = await reseller();
    const input = { trigger: "monthly", asset: "eth", maxPerPayoutUsd: "100", maxPerMonthUsd: "100" } as const;
    const req = await requestInstruction(db, { resellerId: r.id, wallet: r.account.address, input, now: clockNow() });
    const altered = JSON.parse(req.typedData);
    altered.message.maxPerMonthUsd = "1000000";
    const sign = (signature: Hex, nonce = req.nonce) =>
      code(signInstruction(db, { resellerId: r.id, wallet: r.account.address, nonce, signature, now: clockNow(), sender: sender() }));
    expect(await sign(await signInstructionJson(r.account, JSON.stringify(altered)))).toBe("INVALID_SIGNATURE");
    expect(await sign(await signInstructionJson(privateKeyToAccount(generatePrivateKey()), req.typedData))).toBe("INVALID_SIGNATURE");
    const good = await signInstructionJson(r.account, req.typedData);
    expect(await sign(good)).toBe("OK");
    expect(await sign(good)).toBe("CONFIRMATION_USED");
    // An instruction's nonce is never a withdrawal quote.
    expect(await code(confirmWithdrawal(db, { resellerId: r.id, nonce: req.nonce, signature: good }))).toBe("WITHDRAWAL_NOT_FOUND");
    expect(
      await code(
        requestInstruction(db, { resellerId: r.id, wallet: r.account.address, input: { ...input, thresholdUsd: "5" }, now: clockNow() }),
      ),
    ).toBe("INVALID_REQUEST");
    expect(
      await code(
        requestInstruction(db, {
          resellerId: r.id,
          wallet: r.account.address,
          input: { ...input, maxPerPayoutUsd: "-1" },
          now: clockNow(),
        }),
      ),
    ).toBe("INVALID_REQUEST");

    // A reseller whose wallet is a contract (ERC1271Wallet) owned by a key: the contract accepts the key's signature.
    // (Deployed by another account than the hot wallet, whose gas the books would not know.)
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = getAddress(await node.deploy("ERC1271Wallet", [owner.address], node.accounts[1]));
    const c = await getOrCreateReseller(db, { walletAddress: wallet });
    const creq = await requestInstruction(db, { resellerId: c.id, wallet, input, now: clockNow() });
    const row = await signInstruction(db, {
      resellerId: c.id,
      wallet,
      nonce: creq.nonce,
      signature: await signInstructionJson(owner, creq.typedData),
      now: clockNow(),
      sender: sender(),
    });
    expect(row).toMatchObject({ status: "active", destination: wallet.toLowerCase(), signer: wallet.toLowerCase() });
  }, 120_000);
});
