import { type Address, type Hex, parseEther } from "viem";
import { generatePrivateKey, mnemonicToAccount, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { moneyQueueItems } from "@/lib/console/money/queue-items";
import { createDb, type Db, getDb } from "@/lib/db/client";
import { getBalances } from "@/lib/ledger/ledger";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { getPayoutSender } from "@/lib/withdrawals/sender";
import { confirmWithdrawal, listWithdrawals, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { ANVIL_MNEMONIC, type AnvilNode, startAnvil } from "../support/anvil";
import { type RunningApp, startApp } from "../support/app";
import { type ConsoleClient, consoleClient } from "../support/console";
import { assertLedgerConsistent } from "../support/ledger";
import { migratedDatabase, type TestDatabase } from "../support/server";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// Issue 52, point 6, on a real local chain (anvil) and on both databases: a withdrawal worth
// more than WITHDRAWAL_APPROVAL_USD waits in awaiting_approval (reserved, never paid by the
// worker) until a finance operator approves it with a fresh EIP-712 signature of their own
// wallet; then it is paid exactly once. A rejected one fails with the reason and its amount is
// available again. Forged, other-wallet, tampered and replayed signatures are refused; every
// action is in the audit log; the journals balance. And the treasury: the hot wallet against
// PAYOUT_LOW_BALANCE, a reconciliation run from the console and recorded; the queue's money items.

const admin = privateKeyToAccount(`0x${"b1".repeat(32)}`);
const finance = privateKeyToAccount(`0x${"b2".repeat(32)}`);
const viewer = privateKeyToAccount(`0x${"b3".repeat(32)}`);
const stranger = privateKeyToAccount(`0x${"b4".repeat(32)}`);
const THRESHOLD_USD = "100";

/** What an operator's wallet does with the approval's eth_signTypedData_v4 argument (uint256 fields arrive as decimal strings). */
function signApproval(account: PrivateKeyAccount, json: string): Promise<Hex> {
  const d = JSON.parse(json);
  const { EIP712Domain: _, ...types } = d.types;
  const m = d.message;
  const message = { ...m, chainId: BigInt(m.chainId), amountBaseUnits: BigInt(m.amountBaseUnits), expiresAt: BigInt(m.expiresAt) };
  return account.signTypedData({ domain: d.domain, types, primaryType: d.primaryType, message });
}

let node: AnvilNode;
let database: TestDatabase;
let server: RunningApp;
let db: Db;
let adminClient: ConsoleClient;
let financeClient: ConsoleClient;
let viewerClient: ConsoleClient;
/** The worker's clock: each pass an hour later, so every withdrawal is due. */
let clock = Date.now();

const pass = () => {
  clock += 3_600_000;
  return server.app.run(() => runWithdrawalsOnce(getDb(), getPayoutSender(), { now: new Date(clock) }));
};
const statusOf = async (id: string) => (await db.withdrawal.findUniqueOrThrow({ where: { id } })).status;
const onChain = (a: Address) => node.publicClient.getBalance({ address: a });

/** A new reseller with `profit` ETH available, who withdraws all of it as ETH, signed by their wallet. */
async function withdraw(profit: string) {
  const wallet = privateKeyToAccount(generatePrivateKey());
  return server.app.run(async () => {
    const r = await getDb().reseller.create({
      data: { id: `r-${wallet.address.slice(2, 14)}`, walletAddress: wallet.address.toLowerCase() },
    });
    await creditProfit(getDb(), r.id, "eth", profit);
    const q = await quoteWithdrawal(getDb(), { resellerId: r.id, asset: "eth", currencies: "all" });
    const w = await confirmWithdrawal(getDb(), {
      resellerId: r.id,
      nonce: q.nonce,
      signature: await signTypedDataJson(wallet, q.typedData),
    });
    return { w, resellerId: r.id, wallet };
  });
}

beforeAll(async () => {
  node = await startAnvil();
  const hotKey: Hex = `0x${Buffer.from(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }).getHdKey().privateKey!).toString("hex")}`;
  database = await migratedDatabase(inject("dbKind"));
  server = await startApp({
    databaseUrl: database.url,
    env: {
      OPERATOR_ADMIN_WALLET: admin.address,
      PAYOUT_SENDER: "evm",
      PAYOUT_RPC_URL: node.rpcUrl,
      PAYOUT_PRIVATE_KEY: hotKey,
      PAYOUT_CHAIN_ID: String(node.chainId),
      PAYOUT_CONFIRMATIONS: "1",
      WITHDRAWAL_MIN_USD: "10",
      WITHDRAWAL_APPROVAL_USD: THRESHOLD_USD,
      // anvil's first account holds 10,000 ETH: below this threshold, on purpose.
      PAYOUT_LOW_BALANCE: "eth=20000",
      // The test runs the worker's passes itself.
      WORKER_IN_PROCESS: "false",
    },
  });
  db = createDb(database.url);
  adminClient = await consoleClient(server.baseUrl, admin);
  for (const [who, role] of [
    [finance, "finance"],
    [viewer, "viewer"],
  ] as const)
    expect((await adminClient.call("/operators", { body: { wallet: who.address, role } })).status).toBe(201);
  financeClient = await consoleClient(server.baseUrl, finance);
  viewerClient = await consoleClient(server.baseUrl, viewer);
}, 180_000);

afterAll(async () => {
  if (db) await assertLedgerConsistent(db);
  await db?.$disconnect();
  await server?.stop();
  await database?.drop();
  await node?.stop();
});

describe("withdrawals above WITHDRAWAL_APPROVAL_USD", () => {
  let big: Awaited<ReturnType<typeof withdraw>>;

  it("one at or below the threshold is queued as before; one above it waits for approval, reserved, and the worker never pays it", async () => {
    const small = await withdraw("0.02");
    expect(Number(small.w.usdValue)).toBeLessThanOrEqual(Number(THRESHOLD_USD));
    expect(small.w.status).toBe("queued");

    big = await withdraw("0.1");
    expect(Number(big.w.usdValue)).toBeGreaterThan(Number(THRESHOLD_USD));
    expect(big.w).toMatchObject({ status: "awaiting_approval", amount: "0.1", asset: "eth" });
    // The reseller's dashboard shows it waiting, with why; the amount stays reserved.
    const [shown] = await server.app.run(() => listWithdrawals(getDb(), { resellerId: big.resellerId }));
    expect(shown.status).toBe("awaiting_approval");
    expect(shown.stateReason).toMatch(/^waiting for the operator's approval: withdrawals worth more than 100 USD/);
    expect(await getBalances(db, big.resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: "0.1" }]);

    for (let i = 0; i < 4; i++) await pass();
    expect(await statusOf(small.w.id)).toBe("confirmed");
    expect(await statusOf(big.w.id)).toBe("awaiting_approval");
    expect(await db.payoutTx.count({ where: { withdrawalId: big.w.id } })).toBe(0);
    expect(await onChain(big.wallet.address)).toBe(0n);

    const listed = await financeClient.call("/withdrawals?status=awaiting_approval");
    expect(listed.status).toBe(200);
    expect(listed.body.withdrawals.map((w: { id: string }) => w.id)).toEqual([big.w.id]);
    expect(listed.body.withdrawals[0].reseller).toEqual({ id: big.resellerId, wallet: big.wallet.address.toLowerCase() });

    const queue = await server.app.run(() => moneyQueueItems(getDb(), { readHotWallets: false }));
    expect(queue.filter((q) => q.kind === "withdrawal_awaiting_approval")).toEqual([
      expect.objectContaining({ targetType: "withdrawal", targetId: big.w.id, provider: null, status: "awaiting_approval" }),
    ]);
    // And in the console's queue itself, with its reseller and how long it has waited.
    const home = await viewerClient.call("/queue");
    expect(home.body.counts.withdrawal_awaiting_approval).toBe(1);
    expect(home.body.items.filter((i: { kind: string }) => i.kind === "withdrawal_awaiting_approval")).toEqual([
      expect.objectContaining({ targetId: big.w.id, reseller: { id: big.resellerId, wallet: big.wallet.address.toLowerCase() } }),
    ]);
  });

  it("only finance or admin may approve; forged, other-wallet, tampered and other operators' signatures are refused with nothing changed", async () => {
    const refused = await viewerClient.call(`/withdrawals/${big.w.id}/approval`, { method: "POST" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "FORBIDDEN", permission: "withdrawals.approve" });

    const req = await financeClient.call(`/withdrawals/${big.w.id}/approval`, { method: "POST" });
    expect(req.status).toBe(200);
    const td = JSON.parse(req.body.typedData);
    expect(td.primaryType).toBe("WithdrawalApproval");
    expect(td.domain).toEqual({ name: "Reseller Exchange withdrawal", version: "1", chainId: node.chainId });
    expect(td.message).toMatchObject({
      withdrawalId: big.w.id,
      amount: "0.1",
      asset: "eth",
      chainId: String(node.chainId),
      destination: big.wallet.address,
      operator: finance.address,
      nonce: req.body.nonce,
    });

    const approve = (signature: string, client = financeClient, nonce = req.body.nonce) =>
      client.call(`/withdrawals/${big.w.id}/approve`, { body: { nonce, signature } });
    // Signed by another wallet than the session's operator.
    const other = await approve(await signApproval(stranger, req.body.typedData));
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe("INVALID_SIGNATURE");
    // The operator's wallet, but of other terms (paid to someone else).
    const tampered = { ...td, message: { ...td.message, destination: stranger.address } };
    expect((await approve(await signApproval(finance, JSON.stringify(tampered)))).body.error.code).toBe("INVALID_SIGNATURE");
    for (const forged of ["0x1234", `0x${"00".repeat(65)}`, "not hex"])
      expect((await approve(forged)).body.error.code, forged).toBe("INVALID_SIGNATURE");
    // The admin, with the finance operator's nonce and valid signature: not the admin's approval.
    const foreign = await approve(await signApproval(finance, req.body.typedData), adminClient);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("WITHDRAWAL_NOT_FOUND");
    // Bodies are validated: a 400, never a 500.
    for (const body of [{}, { nonce: "x", signature: "0x" }, { nonce: req.body.nonce }, "x"])
      expect((await financeClient.call(`/withdrawals/${big.w.id}/approve`, { body })).status, JSON.stringify(body)).toBe(400);

    expect(await statusOf(big.w.id)).toBe("awaiting_approval");
    expect(await db.auditEvent.count({ where: { action: "withdrawal.approve" } })).toBe(0);
  });

  it("approved with a fresh signature it is queued and paid exactly once; a replayed signature is refused", async () => {
    const req = await financeClient.call(`/withdrawals/${big.w.id}/approval`, { method: "POST" });
    const signature = await signApproval(finance, req.body.typedData);
    const ok = await financeClient.call(`/withdrawals/${big.w.id}/approve`, { body: { nonce: req.body.nonce, signature } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.withdrawal).toMatchObject({ id: big.w.id, status: "queued", stateReason: null });
    const row = await db.withdrawal.findUniqueOrThrow({ where: { id: big.w.id } });
    expect(row).toMatchObject({ approvedBy: finance.address.toLowerCase(), approvalSignature: signature });
    expect(row.approvedAt).toBeInstanceOf(Date);

    // The same request again, and the signature replayed: nothing more happens.
    const again = await financeClient.call(`/withdrawals/${big.w.id}/approve`, { body: { nonce: req.body.nonce, signature } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("INVALID_WITHDRAWAL_STATE");
    expect((await financeClient.call(`/withdrawals/${big.w.id}/approval`, { method: "POST" })).body.error.code).toBe(
      "INVALID_WITHDRAWAL_STATE",
    );

    for (let i = 0; i < 4; i++) await pass();
    expect(await statusOf(big.w.id)).toBe("confirmed");
    const txs = await db.payoutTx.findMany({ where: { withdrawalId: big.w.id } });
    expect(txs.map((t) => t.status)).toEqual(["mined"]);
    expect(await onChain(big.wallet.address)).toBe(parseEther("0.1"));
    for (let i = 0; i < 2; i++) await pass();
    expect(await db.payoutTx.count({ where: { withdrawalId: big.w.id } })).toBe(1);
    expect(await onChain(big.wallet.address)).toBe(parseEther("0.1"));
    expect(await getBalances(db, big.resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: "0" }]);

    // That signature, replayed to approve another withdrawal (under that one's own nonce): refused.
    const next = await withdraw("0.1");
    expect(next.w.status).toBe("awaiting_approval");
    const nextReq = await financeClient.call(`/withdrawals/${next.w.id}/approval`, { method: "POST" });
    const replay = await financeClient.call(`/withdrawals/${next.w.id}/approve`, { body: { nonce: nextReq.body.nonce, signature } });
    expect(replay.status).toBe(403);
    expect(replay.body.error.code).toBe("INVALID_SIGNATURE");
    // ... or under the used nonce of the first: not that withdrawal's approval.
    const crossed = await financeClient.call(`/withdrawals/${next.w.id}/approve`, { body: { nonce: req.body.nonce, signature } });
    expect(crossed.body.error.code).toBe("WITHDRAWAL_NOT_FOUND");
    expect(await statusOf(next.w.id)).toBe("awaiting_approval");

    // Rejected, with a reason: failed, and its amount available again.
    expect((await financeClient.call(`/withdrawals/${next.w.id}/reject`, { body: {} })).status).toBe(400);
    expect((await viewerClient.call(`/withdrawals/${next.w.id}/reject`, { body: { reason: "no" } })).status).toBe(403);
    const rejected = await financeClient.call(`/withdrawals/${next.w.id}/reject`, { body: { reason: "unusual amount for this reseller" } });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body.withdrawal).toMatchObject({
      status: "failed",
      stateReason: "rejected by the operator: unusual amount for this reseller",
    });
    expect(await getBalances(db, next.resellerId)).toEqual([{ currency: "eth", pending: "0", available: "0.1", reserved: "0" }]);
    expect(await db.withdrawal.findUniqueOrThrow({ where: { id: next.w.id } })).toMatchObject({
      rejectedBy: finance.address.toLowerCase(),
      rejectionReason: "unusual amount for this reseller",
    });
    // Once only: again, or approved after, refused; the worker never pays it.
    const twice = await financeClient.call(`/withdrawals/${next.w.id}/reject`, { body: { reason: "again" } });
    expect([twice.status, twice.body.error.code]).toEqual([409, "INVALID_WITHDRAWAL_STATE"]);
    const late = await financeClient.call(`/withdrawals/${next.w.id}/approve`, { body: { nonce: nextReq.body.nonce, signature } });
    expect(late.body.error.code).toBe("INVALID_WITHDRAWAL_STATE");
    for (let i = 0; i < 2; i++) await pass();
    expect(await statusOf(next.w.id)).toBe("failed");
    expect(await db.payoutTx.count({ where: { withdrawalId: next.w.id } })).toBe(0);
    expect(await onChain(next.wallet.address)).toBe(0n);

    // Both in the audit log, with who and why, the approval with its signature.
    const log = await adminClient.call("/audit?targetType=withdrawal");
    expect(log.body.events.map((e: { action: string; targetId: string }) => [e.action, e.targetId])).toEqual([
      ["withdrawal.reject", next.w.id],
      ["withdrawal.approve", big.w.id],
    ]);
    expect(log.body.events[0]).toMatchObject({
      actor: finance.address.toLowerCase(),
      role: "finance",
      reason: "unusual amount for this reseller",
    });
    expect(log.body.events[1]).toMatchObject({ actor: finance.address.toLowerCase(), after: { status: "queued", signature } });
    await assertLedgerConsistent(db);
  });
});

describe("retry, the list and the treasury", () => {
  it("retries a queued withdrawal (audited) and refuses one that is not queued", async () => {
    const small = await withdraw("0.02");
    const r = await financeClient.call(`/withdrawals/${small.w.id}/retry`, { method: "POST" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.withdrawal.status).toBe("queued");
    expect((await viewerClient.call(`/withdrawals/${small.w.id}/retry`, { method: "POST" })).status).toBe(403);
    expect((await financeClient.call("/withdrawals/no-such-id/retry", { method: "POST" })).status).toBe(404);
    for (let i = 0; i < 3; i++) await pass();
    expect(await statusOf(small.w.id)).toBe("confirmed");
    const late = await financeClient.call(`/withdrawals/${small.w.id}/retry`, { method: "POST" });
    expect([late.status, late.body.error.code]).toEqual([409, "INVALID_WITHDRAWAL_STATE"]);
    expect(await db.auditEvent.count({ where: { action: "withdrawal.retry", targetId: small.w.id } })).toBe(1);
  });

  it("lists every reseller's withdrawals newest first by keyset pages; a bad cursor or status is a 400", async () => {
    const all = await db.withdrawal.findMany({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], select: { id: true } });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { withdrawals: { id: string }[]; next: string | null } } = await viewerClient.call(
        `/withdrawals?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.withdrawals.map((w) => w.id));
      cursor = page.body.next;
    } while (cursor);
    expect(seen).toEqual(all.map((w) => w.id));
    for (const q of ["status=paid", "cursor=garbage", "limit=0", `cursor=${Buffer.from("[1,2]").toString("base64url")}`])
      expect((await viewerClient.call(`/withdrawals?${q}`)).status, q).toBe(400);
  });

  it("shows the hot wallet against PAYOUT_LOW_BALANCE and the last reconciliation, run from the console and recorded", async () => {
    const before = await viewerClient.call("/treasury");
    expect(before.status).toBe(200);
    expect(before.body.lastReconciliation).toBeNull();
    const [chain] = before.body.chains;
    expect(chain).toMatchObject({ chainId: node.chainId, sender: "evm", address: node.accounts[0].address, error: null });
    expect(chain.assets).toEqual([
      expect.objectContaining({ asset: "eth", threshold: "20000", low: true, balance: expect.stringMatching(/^9\d{3}\.\d+$/) }),
    ]);

    expect((await viewerClient.call("/treasury/reconcile", { method: "POST" })).status).toBe(403);
    const run = await financeClient.call("/treasury/reconcile", { method: "POST" });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const report = run.body.reconciliation.report;
    // The hot wallet's genesis ETH was never booked as a deposit: the treasury line differs, named.
    expect(report.ok).toBe(false);
    expect(report.differences).toContainEqual(expect.stringMatching(new RegExp(`^treasury:${node.chainId}:eth: the books hold`)));

    const after = await viewerClient.call("/treasury");
    expect(after.body.lastReconciliation).toMatchObject({
      auditId: run.body.reconciliation.auditId,
      actor: finance.address.toLowerCase(),
      report,
    });
    const row = await db.auditEvent.findUniqueOrThrow({ where: { id: run.body.reconciliation.auditId } });
    expect(row).toMatchObject({ action: "treasury.reconcile", operatorId: expect.any(String), role: "finance" });

    const queue = await server.app.run(() => moneyQueueItems(getDb()));
    const diffs = queue.filter((q) => q.kind === "reconciliation_difference");
    expect(diffs.map((d) => d.summary)).toEqual(report.differences);
    expect(diffs[0]).toMatchObject({ targetType: "reconciliation", reseller: null, provider: null, since: new Date(row.at) });
    expect(queue.filter((q) => q.kind === "hot_wallet_low")).toEqual([
      expect.objectContaining({ targetType: "hot_wallet", targetId: `${node.chainId}:eth`, reseller: null, provider: null, status: "low" }),
    ]);
    // None stuck: every queued one was paid.
    expect(queue.filter((q) => q.kind === "withdrawal_stuck")).toEqual([]);
  });
});
