import type { Hex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { moneyQueueItems } from "@/lib/console/money/queue-items";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { APPROVAL_TTL_MS, approveWithdrawal, needsApproval, rejectWithdrawal, requestApproval } from "@/lib/withdrawals/approval";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { createSimulatedSender } from "@/lib/withdrawals/sender/simulated";
import { confirmWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// The approval step on both databases, below the HTTP layer (tests/http/console-withdrawals.test.ts
// runs it on anvil through the console): the threshold's boundary, an expired approval, an
// approval nonce that can never confirm a reseller's quote, concurrent approvals and a race
// between approval and rejection (one wins), and the queue's money items.

const code = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return "OK";
};

function signApproval(account: PrivateKeyAccount, json: string): Promise<Hex> {
  const d = JSON.parse(json);
  const { EIP712Domain: _, ...types } = d.types;
  const m = d.message;
  const message = { ...m, chainId: BigInt(m.chainId), amountBaseUnits: BigInt(m.amountBaseUnits), expiresAt: BigInt(m.expiresAt) };
  return account.signTypedData({ domain: d.domain, types, primaryType: d.primaryType, message });
}

describe.each(["sqlite", "postgres"] as const)("withdrawal approval on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  const block = settingsForTests({ PAYOUT_CHAIN_ID: "31337", WITHDRAWAL_MIN_USD: "10", WITHDRAWAL_APPROVAL_USD: "100" });
  const operator = privateKeyToAccount(generatePrivateKey());
  const by = { operatorId: "op-1", actor: operator.address.toLowerCase(), role: "finance" };

  /** A reseller withdrawing `profit` ETH, confirmed. */
  async function withdraw(profit: string) {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() } });
    await creditProfit(db, r.id, "eth", profit);
    const q = await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: "all" });
    const w = await confirmWithdrawal(db, { resellerId: r.id, nonce: q.nonce, signature: await signTypedDataJson(account, q.typedData) });
    return { w, resellerId: r.id, account, q };
  }

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("needs approval only strictly above the threshold; none at all with WITHDRAWAL_APPROVAL_USD empty", async () => {
    const probe = await withdraw("0.1");
    expect(probe.w.status).toBe("awaiting_approval");
    const usd = probe.w.usdValue;
    block.set({ WITHDRAWAL_APPROVAL_USD: usd });
    // Exactly at the threshold: not more than it.
    expect(needsApproval(usd)).toBeNull();
    expect(needsApproval(new D(usd).plus("0.000001").toFixed())).toBe(usd);
    block.set({ WITHDRAWAL_APPROVAL_USD: "" });
    expect(needsApproval("1000000000")).toBeNull();
    expect((await withdraw("10")).w.status).toBe("queued");
    block.set();
  });

  it("refuses an expired approval, and an approval's nonce can never confirm a reseller's quote", async () => {
    const { w, resellerId, account } = await withdraw("0.1");
    const now = new Date();
    const req = await requestApproval(db, { withdrawalId: w.id, by, now });
    const signature = await signApproval(operator, req.typedData);
    const late = new Date(now.getTime() + APPROVAL_TTL_MS + 1000);
    expect(await code(approveWithdrawal(db, { withdrawalId: w.id, nonce: req.nonce, signature, by, now: late }))).toBe("QUOTE_EXPIRED");
    // The reseller (who owns the row the nonce is stored under) cannot use it as a quote's.
    const asQuote = await code(
      confirmWithdrawal(db, { resellerId, nonce: req.nonce, signature: await signTypedDataJson(account, req.typedData) }),
    );
    expect(asQuote).toBe("WITHDRAWAL_NOT_FOUND");
    expect(await code(approveWithdrawal(db, { withdrawalId: w.id, nonce: req.nonce, signature, by, now }))).toBe("OK");
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: w.id } })).status).toBe("queued");
  });

  it("two approvals at once, or an approval racing a rejection: one wins, the books hold", async () => {
    const a = await withdraw("0.1");
    const reqs = await Promise.all([1, 2].map(() => requestApproval(db, { withdrawalId: a.w.id, by })));
    const sigs = await Promise.all(reqs.map((r) => signApproval(operator, r.typedData)));
    const both = await Promise.all(
      reqs.map((r, i) => code(approveWithdrawal(db, { withdrawalId: a.w.id, nonce: r.nonce, signature: sigs[i], by }))),
    );
    expect(both.sort()).toEqual(["INVALID_WITHDRAWAL_STATE", "OK"]);
    expect(await db.auditEvent.count({ where: { action: "withdrawal.approve", targetId: a.w.id } })).toBe(1);

    const b = await withdraw("0.1");
    const req = await requestApproval(db, { withdrawalId: b.w.id, by });
    const sig = await signApproval(operator, req.typedData);
    const race = await Promise.all([
      code(approveWithdrawal(db, { withdrawalId: b.w.id, nonce: req.nonce, signature: sig, by })),
      code(rejectWithdrawal(db, { withdrawalId: b.w.id, reason: "race", by })),
    ]);
    expect(race.filter((c) => c === "OK")).toHaveLength(1);
    expect(race.filter((c) => c !== "OK")).toEqual(["INVALID_WITHDRAWAL_STATE"]);
    const row = await db.withdrawal.findUniqueOrThrow({ where: { id: b.w.id } });
    const audits = await db.auditEvent.findMany({ where: { targetId: b.w.id } });
    expect(audits.map((x) => x.action)).toEqual([row.status === "queued" ? "withdrawal.approve" : "withdrawal.reject"]);
    expect(await getBalances(db, b.resellerId)).toEqual([
      row.status === "queued"
        ? { currency: "eth", pending: "0", available: "0", reserved: "0.1" }
        : { currency: "eth", pending: "0", available: "0.1", reserved: "0" },
    ]);
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  it("lists a waiting withdrawal and a stuck one in the queue, and the worker pays only what was approved", async () => {
    const waiting = await withdraw("0.1");
    const later = new Date(Date.now() + 3_600_000);
    // The simulated sender has no hot wallet to read; a queued withdrawal not yet paid an hour later is stuck.
    const items = await moneyQueueItems(db, { now: later, readHotWallets: false });
    const mine = items.find((i) => i.targetId === waiting.w.id);
    expect(mine).toMatchObject({
      kind: "withdrawal_awaiting_approval",
      reseller: { id: waiting.resellerId, wallet: waiting.account.address.toLowerCase() },
      since: new Date(waiting.w.createdAt),
    });
    expect(items.some((i) => i.kind === "withdrawal_stuck" && i.status === "queued")).toBe(true);
    expect(items.map((i) => i.since.getTime())).toEqual([...items.map((i) => i.since.getTime())].sort((x, y) => x - y));

    const sender = createSimulatedSender(31337);
    for (let i = 0; i < 5; i++) await runWithdrawalsOnce(db, sender, { now: new Date(later.getTime() + i * 10_000) });
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: waiting.w.id } })).status).toBe("awaiting_approval");
    expect(await db.withdrawal.count({ where: { status: { in: ["queued", "processing", "sent"] } } })).toBe(0);
    // Nothing is stuck any more: what is left waits for approval.
    const left = await moneyQueueItems(db, { now: later, readHotWallets: false });
    expect(new Set(left.map((i) => i.kind))).toEqual(new Set(["withdrawal_awaiting_approval"]));
    expect((await checkLedger(db)).violations).toEqual([]);
  });
});
