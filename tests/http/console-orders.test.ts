import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { createApiKey } from "@/lib/keys/api-keys";
import { CLI_ACTOR } from "@/lib/operators/audit";
import { addOperator } from "@/lib/operators/operators";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { addressFor, newIp } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type ConsoleClient, consoleClient } from "../support/console";
import { type Fakes, startFakes } from "../support/fake-providers";
import { assertLedgerConsistent } from "../support/ledger";
import { recordSecret } from "../support/secrets";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Issue 52, points 2 to 4, over HTTP with the provider fakes: an exchange put on hold upstream
// appears in the console's queue after one worker pass; a support operator sends a refund
// address upstream through the console; the provider refunds; the order ends failed with the
// refund's hash; the audit log holds each step. Then FixedFloat's emergency answered from the
// console, orders resolved by hand (with their effect on the ledger), the search, and the
// refusals: 409 for a state that no longer allows an action, 404 for unknown ids, 400 for bad
// bodies, never a 500.

const admin = privateKeyToAccount(`0x${"c1".repeat(32)}`);
const support = privateKeyToAccount(`0x${"c2".repeat(32)}`);
const wallet = `0x${"6c".repeat(20)}`;

let fakes: Fakes;
let database: TestDatabase;
let server: RunningApp;
let db: Db;
let key: string;
let ops: ConsoleClient;
/** The worker's clock: each pass runs 10 minutes after the one before, so every order read is due. */
let clock = Date.now();

beforeAll(async () => {
  fakes = await startFakes();
  fakes.setPair("btc", "eth", { sideshift: "20.6" }, { min: "0.001", max: "2" });
  fakes.sideshift.shiftsPerMinute = 1000;
  fakes.sideshift.quotesPerMinute = 1000;
  fakes.setPair("btc", "ltc", { fixedfloat: "300" }, { min: "0.001", max: "2" });
  // ltc -> eth on ChangeNOW only: no refund address after creation there.
  fakes.setPair("ltc", "eth", { changenow: "0.05" }, { min: "0.01", max: "100" });
  database = await migratedDatabase(inject("dbKind"));
  // No worker of its own: the test runs each pass (app.runWorkerOnce).
  server = await startApp({
    databaseUrl: database.url,
    env: { ...fakes.env(), OPERATOR_ADMIN_WALLET: admin.address, WORKER_IN_PROCESS: "false" },
  });
  db = createDb(database.url);
  // A markup: each order has a profit of the reseller's, pending until it finishes or fails.
  const reseller = await getOrCreateReseller(db, { walletAddress: wallet, markupBps: 100 });
  key = (await createApiKey(db, { resellerId: reseller.id, name: "console" })).key;
  recordSecret(key);
  await addOperator(db, { walletAddress: support.address, role: "support", by: CLI_ACTOR });
  ops = await consoleClient(server.baseUrl, support);
});

afterAll(async () => {
  // A failure reverses the order's pending profit, a finish settles it: the books still balance.
  if (db) await assertLedgerConsistent(db);
  await db?.$disconnect();
  await server?.stop();
  await fakes?.stop();
  await database?.drop();
});

async function pass() {
  clock += 10 * 60_000;
  await server.app.runWorkerOnce(new Date(clock));
}

/** Worker passes until the order is as `ok` wants (a bound on passes, not on time). */
async function passUntil(id: string, ok: (o: { status: string; upstreamStatus: string | null; stateReason: string | null }) => boolean) {
  for (let i = 0; i < 12; i++) {
    const o = await db.order.findUniqueOrThrow({ where: { id } });
    if (ok(o)) return o;
    await pass();
  }
  throw new Error(`order ${id} never got there: ${JSON.stringify(await db.order.findUnique({ where: { id } }))}`);
}

/** A SideShift order scripted to go on hold after its deposit, with no refund address. */
async function sideshiftOrder(steps: (string | { status: string; [k: string]: unknown })[]) {
  const payout = addressFor("eth");
  fakes.sideshift.script(payout, steps);
  const res = await fetch(`${server.baseUrl}/api/v1/exchange`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "x-forwarded-for": newIp() },
    body: JSON.stringify({ from: "btc", to: "eth", amount: "0.1", address: payout }),
  });
  const body = (await res.json()) as { id: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return { id: body.id, payout, shift: fakes.sideshift.shiftFor(payout)! };
}

const queueItemsFor = async (id: string) => {
  const q = await ops.call("/queue");
  expect(q.status).toBe(200);
  return { items: (q.body.items as { targetId: string; kind: string }[]).filter((i) => i.targetId === id), body: q.body };
};

const auditOf = async (id: string) => {
  const r = await ops.call(`/audit?targetType=order&targetId=${id}`);
  expect(r.status).toBe(200);
  return (r.body.events as { action: string; before: any; after: any; reason: string | null; actor: string; role: string }[]).reverse();
};

describe("a hold upstream, resolved from the console", () => {
  it("shows the hold in the queue after one pass; support sends a refund address upstream; the refund's hash closes the order; each step is audited", async () => {
    const { id, payout, shift } = await sideshiftOrder(["waiting", "pending", "processing", "review"]);
    // Through the deposit to exchanging (the provider says processing): nothing needs a person yet.
    await passUntil(id, (o) => o.status === "exchanging");
    expect((await queueItemsFor(id)).items).toEqual([]);

    // One pass: SideShift answers review, the order waits on a hold, and the queue shows it.
    await pass();
    const { items, body } = await queueItemsFor(id);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      kind: "order_hold",
      targetType: "order",
      targetId: id,
      reseller: { wallet },
      provider: "sideshift",
      status: "exchanging",
      reason: "hold",
    });
    const held = body.items.find((i: { targetId: string }) => i.targetId === id);
    expect(held.since).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(held.waitingSeconds).toBeGreaterThanOrEqual(0);
    expect(body.counts.order_hold).toBeGreaterThanOrEqual(1);
    for (const kind of ["order_needs_action", "order_refund_no_address", "order_stuck", "order_unknown_status", "upstream_orphan"])
      expect(body.counts).toHaveProperty(kind);
    // The queue's hold began when the provider's review was recorded.
    const raw = await db.upstreamStatusEvent.findMany({ where: { orderId: id }, orderBy: { id: "asc" } });
    expect(raw.map((e) => [e.status, e.reason])).toContainEqual(["review", "hold"]);
    expect(held.since).toBe(raw.find((e) => e.status === "review")!.at.toISOString());

    // The detail: our history, the provider's raw statuses, the journals, and what may be done.
    const detail = await ops.call(`/orders/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.order).toMatchObject({ id, status: "exchanging", stateReason: "hold", upstreamId: shift.id, payoutAddress: payout });
    expect(detail.body.order.actions).toEqual(["sync", "refund_address", "resolve", "note"]);
    expect(detail.body.order).not.toHaveProperty("accessTokenHash");
    expect(detail.body.order).not.toHaveProperty("upstreamData");
    expect(detail.body.events.map((e: { status: string }) => e.status)).toEqual(["waiting", "confirming", "exchanging"]);
    expect(detail.body.upstreamStatuses.at(-1)).toMatchObject({ provider: "sideshift", status: "review", reason: "hold" });
    expect(detail.body.journals.length).toBeGreaterThanOrEqual(1);
    expect(detail.body.reseller).toMatchObject({ wallet });

    // Support sends a refund address upstream.
    const refundAddress = addressFor("btc");
    const sent = await ops.call(`/orders/${id}/refund-address`, { body: { address: refundAddress, reason: "the user wrote to support" } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body).toMatchObject({ sentUpstream: true, remaining: null, unchanged: false, order: { refundAddress } });
    expect(fakes.sideshift.refundAddressCalls.filter((c) => c.shiftId === shift.id)).toEqual([
      { shiftId: shift.id, address: refundAddress, memo: undefined, status: "review", answered: 201 },
    ]);
    // Again: the same answer, SideShift not asked twice, no second audit row.
    const again = await ops.call(`/orders/${id}/refund-address`, { body: { address: refundAddress } });
    expect(again.status).toBe(200);
    expect(again.body.unchanged).toBe(true);
    expect(fakes.sideshift.refundAddressCalls.filter((c) => c.shiftId === shift.id)).toHaveLength(1);
    // Another address: the order has one, it cannot change.
    const other = await ops.call(`/orders/${id}/refund-address`, { body: { address: addressFor("btc") } });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("INVALID_ORDER_STATE");

    // SideShift refunds; support syncs the order until the refund is there.
    fakes.sideshift.refund(shift.id);
    let synced: any;
    for (let i = 0; i < 5; i++) {
      synced = await ops.call(`/orders/${id}/sync`, { method: "POST" });
      expect(synced.status, JSON.stringify(synced.body)).toBe(200);
      if (synced.body.order.status === "failed") break;
    }
    expect(synced.body.order).toMatchObject({
      status: "failed",
      failureReason: "refunded",
      refundHash: `ss-refund-${shift.id}`,
      refundState: "sent",
      refundAddress,
      stateReason: null,
    });
    expect(synced.body.order.actions).toEqual(["note"]);
    expect((await queueItemsFor(id)).items).toEqual([]);
    const after = await ops.call(`/orders/${id}`);
    expect(after.body.upstreamStatuses.map((e: { status: string }) => e.status)).toEqual(
      expect.arrayContaining(["review", "refund", "refunding", "refunded"]),
    );
    expect(after.body.journals.map((j: { kind: string }) => j.kind)).toContain("order_failed");

    // A note, once (the same note again is the same note).
    const note = await ops.call(`/orders/${id}/notes`, { body: { text: "refunded after review; user informed" } });
    expect(note.status).toBe(201);
    expect((await ops.call(`/orders/${id}/notes`, { body: { text: "refunded after review; user informed" } })).status).toBe(200);

    // The audit log holds each step, by the support operator, with before and after.
    const audit = await auditOf(id);
    const actions = audit.map((a) => a.action);
    expect(actions[0]).toBe("order.refund_address");
    expect(actions.filter((a) => a === "order.refund_address")).toHaveLength(1);
    expect(actions).toContain("order.sync");
    expect(actions.at(-1)).toBe("order.note");
    expect(actions.filter((a) => a === "order.note")).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      actor: support.address.toLowerCase(),
      role: "support",
      reason: "the user wrote to support",
      before: { refundAddress: null, stateReason: "hold" },
      after: { refundAddress, sentUpstream: true },
    });
    const lastSync = audit.filter((a) => a.action === "order.sync").at(-1)!;
    expect(lastSync.after).toMatchObject({ status: "failed", refundHash: `ss-refund-${shift.id}`, changed: true });
    expect(audit.at(-1)!.after).toEqual({ text: "refunded after review; user informed" });

    // Closed: the actions that change it are refused.
    for (const [path, body] of [
      ["sync", {}],
      ["choice", { choice: "exchange" }],
      ["resolve", { outcome: "finished", reason: "no", payoutHash: "0xabc" }],
    ] as const) {
      const r = await ops.call(`/orders/${id}/${path}`, { body });
      expect(r.status, path).toBe(409);
      expect(r.body.error.code).toBe("INVALID_ORDER_STATE");
    }
  });
});

describe("FixedFloat's emergency, answered from the console", () => {
  it("lists the order as awaiting a choice, passes EXCHANGE to FixedFloat once, and the order goes on to finished", async () => {
    const payout = addressFor("ltc");
    fakes.fixedfloat.script(payout, ["NEW", "PENDING", { status: "EMERGENCY", emergency: ["LESS"] }, "EXCHANGE", "WITHDRAW", "DONE"]);
    const res = await fetch(`${server.baseUrl}/api/v1/exchange`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key, "x-forwarded-for": newIp() },
      body: JSON.stringify({ from: "btc", to: "ltc", amount: "0.1", address: payout }),
    });
    const made = (await res.json()) as { id: string };
    expect(res.status, JSON.stringify(made)).toBe(201);
    const id = made.id;
    const o = await passUntil(id, (x) => x.stateReason === "needs_action");
    expect(o).toMatchObject({ provider: "fixedfloat", upstreamStatus: "EMERGENCY/LESS/NONE" });
    expect((await queueItemsFor(id)).items.map((i) => i.kind)).toEqual(["order_needs_action"]);
    const detail = await ops.call(`/orders/${id}`);
    expect(detail.body.order.actions).toContain("choice");

    // A bad body, and a refund with no address anywhere: refused before FixedFloat is asked.
    expect((await ops.call(`/orders/${id}/choice`, { body: { choice: "later" } })).status).toBe(400);
    const noAddress = await ops.call(`/orders/${id}/choice`, { body: { choice: "refund" } });
    expect(noAddress.status).toBe(422);
    expect(noAddress.body.error.code).toBe("INVALID_REFUND_ADDRESS");

    const ffOrder = [...fakes.fixedfloat.orders.values()].find((x) => x.params.toAddress === payout)!;
    const chosen = await ops.call(`/orders/${id}/choice`, { body: { choice: "exchange", reason: "the user accepts the new rate" } });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(chosen.body.unchanged).toBe(false);
    expect(ffOrder.emergencyCalls).toHaveLength(1);
    expect(ffOrder.emergencyCalls[0]).toMatchObject({ id: ffOrder.id, choice: "EXCHANGE" });
    // Again before FixedFloat is read: the same answer, not asked twice; the other choice is refused.
    const again = await ops.call(`/orders/${id}/choice`, { body: { choice: "exchange" } });
    expect(again.body.unchanged).toBe(true);
    const refund = await ops.call(`/orders/${id}/choice`, { body: { choice: "refund", address: addressFor("btc") } });
    expect(refund.status).toBe(409);
    expect(refund.body.error.code).toBe("INVALID_ORDER_STATE");
    expect(ffOrder.emergencyCalls).toHaveLength(1);

    const done = await passUntil(id, (x) => x.status === "finished");
    expect(done.stateReason).toBeNull();
    const audit = await auditOf(id);
    expect(audit.map((a) => a.action)).toEqual(["order.choice"]);
    expect(audit[0]).toMatchObject({
      reason: "the user accepts the new rate",
      before: { upstreamStatus: "EMERGENCY/LESS/NONE" },
      after: { choice: "exchange" },
    });
    // Not awaiting a choice any more.
    expect((await ops.call(`/orders/${id}/choice`, { body: { choice: "exchange" } })).status).toBe(409);
  });
});

describe("FixedFloat's emergency answered with a refund", () => {
  it("sends REFUND with the address the operator gives, records it on the order, and the refund closes it", async () => {
    const payout = addressFor("ltc");
    const emergency = { status: "EMERGENCY", emergency: ["MORE"] };
    fakes.fixedfloat.script(payout, ["NEW", "PENDING", emergency, emergency, { status: "DONE", refunded: true }]);
    const res = await fetch(`${server.baseUrl}/api/v1/exchange`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key, "x-forwarded-for": newIp() },
      body: JSON.stringify({ from: "btc", to: "ltc", amount: "0.1", address: payout }),
    });
    const { id } = (await res.json()) as { id: string };
    expect(res.status).toBe(201);
    await passUntil(id, (x) => x.upstreamStatus === "EMERGENCY/MORE/NONE");
    const refundAddress = addressFor("btc");
    const chosen = await ops.call(`/orders/${id}/choice`, { body: { choice: "refund", address: refundAddress } });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(chosen.body.order.refundAddress).toBe(refundAddress);
    const ffOrder = [...fakes.fixedfloat.orders.values()].find((x) => x.params.toAddress === payout)!;
    expect(ffOrder.emergencyCalls.map((c) => [c.choice, c.address])).toEqual([["REFUND", refundAddress]]);
    const done = await passUntil(id, (x) => x.status === "failed");
    expect(done).toMatchObject({ failureReason: "refunded", refundHash: `ff-refund-${ffOrder.id}`, refundState: "sent" });
    const detail = await ops.call(`/orders/${id}`);
    expect(detail.body.upstreamStatuses.map((e: { status: string }) => e.status)).toEqual(
      expect.arrayContaining(["EMERGENCY/MORE/NONE", "EMERGENCY/MORE/REFUND", "DONE"]),
    );
    expect(detail.body.events.map((e: { note: string | null }) => e.note)).toContain("choice_refund");
  });
});

describe("resolved by hand", () => {
  it("a forced failure reverses the pending profit; a finish by hand settles it; both are idempotent and audited", async () => {
    // Held forever upstream: the operator gives up on it.
    const held = await sideshiftOrder(["waiting", "pending", "processing", "review"]);
    await passUntil(held.id, (o) => o.stateReason === "hold");
    const bad = await ops.call(`/orders/${held.id}/resolve`, { body: { outcome: "failed" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("INVALID_REQUEST");
    const failed = await ops.call(`/orders/${held.id}/resolve`, { body: { outcome: "failed", reason: "SideShift support closed it" } });
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    expect(failed.body.order).toMatchObject({ status: "failed", failureReason: "provider_failed", refundState: "awaiting_address" });
    // Its refund has no address: it is in the queue now, for that.
    expect((await queueItemsFor(held.id)).items.map((i) => i.kind)).toEqual(["order_refund_no_address"]);
    const entries = await db.ledgerEntry.findMany({ where: { orderId: held.id } });
    expect(entries.map((e) => e.kind).sort()).toEqual(["order_profit_pending", "order_profit_reverse"]);
    const journals = (await ops.call(`/orders/${held.id}`)).body.journals.map((j: { kind: string }) => j.kind);
    expect(journals).toEqual(["order_created", "order_failed"]);
    // SideShift takes no address for a failed shift: the console records it and says what remains.
    const calls = fakes.sideshift.refundAddressCalls.length;
    const refundAddress = addressFor("btc");
    const recorded = await ops.call(`/orders/${held.id}/refund-address`, { body: { address: refundAddress, reason: "user's address" } });
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);
    expect(recorded.body).toMatchObject({ sentUpstream: false, order: { refundAddress, refundState: "pending" } });
    expect(recorded.body.remaining).toContain(`exchange ${held.shift.id}`);
    expect(fakes.sideshift.refundAddressCalls).toHaveLength(calls);
    expect((await queueItemsFor(held.id)).items).toEqual([]);
    // The refund sent by hand closes it, with its hash; the same again changes nothing.
    const closed = await ops.call(`/orders/${held.id}/resolve`, {
      body: { outcome: "failed", reason: "refunded by SideShift support", refundHash: "ss-manual-1" },
    });
    expect(closed.status).toBe(200);
    expect(closed.body.order).toMatchObject({ refundState: "sent", refundHash: "ss-manual-1" });
    expect((await queueItemsFor(held.id)).items).toEqual([]);
    const same = await ops.call(`/orders/${held.id}/resolve`, { body: { outcome: "failed", reason: "again", refundHash: "ss-manual-1" } });
    expect(same.body.unchanged).toBe(true);
    expect((await ops.call(`/orders/${held.id}/resolve`, { body: { outcome: "finished", reason: "x", payoutHash: "0x1" } })).status).toBe(
      409,
    );
    const heldAudit = await auditOf(held.id);
    expect(heldAudit.map((a) => a.action)).toEqual(["order.resolve", "order.refund_address", "order.resolve"]);
    expect(heldAudit[1].after).toMatchObject({ refundAddress, sentUpstream: false, remaining: recorded.body.remaining });
    expect(heldAudit[2]).toMatchObject({ before: { refundState: "pending" }, after: { refundState: "sent", refundHash: "ss-manual-1" } });

    // Still waiting for its deposit, paid out by hand (the provider's support said so).
    const waiting = await sideshiftOrder(["waiting"]);
    const finished = await ops.call(`/orders/${waiting.id}/resolve`, {
      body: { outcome: "finished", reason: "paid out per SideShift support", payoutHash: "0xpaid" },
    });
    expect(finished.status, JSON.stringify(finished.body)).toBe(200);
    expect(finished.body.order).toMatchObject({ status: "finished", payoutHash: "0xpaid" });
    const settled = await db.ledgerEntry.findMany({ where: { orderId: waiting.id } });
    expect(settled.map((e) => e.kind).sort()).toEqual(["order_profit_pending", "order_profit_release", "order_profit_settle"]);
    const finishedDetail = await ops.call(`/orders/${waiting.id}`);
    expect(finishedDetail.body.journals.map((j: { kind: string }) => j.kind)).toEqual(["order_created", "order_finished"]);
    expect(finishedDetail.body.events.map((e: { status: string }) => e.status)).toEqual(["waiting", "finished"]);
    const repeat = await ops.call(`/orders/${waiting.id}/resolve`, {
      body: { outcome: "finished", reason: "again", payoutHash: "0xpaid" },
    });
    expect(repeat.body.unchanged).toBe(true);
    const audit = await auditOf(waiting.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: "order.resolve",
      before: { status: "waiting" },
      after: { status: "finished", outcome: "finished" },
    });
  });
});

describe("a refund address for a provider that takes none later", () => {
  it("records it on the open order, tells no provider, and says what remains to do", async () => {
    const res = await fetch(`${server.baseUrl}/api/v1/exchange`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key, "x-forwarded-for": newIp() },
      body: JSON.stringify({ from: "ltc", to: "eth", amount: "1", address: addressFor("eth") }),
    });
    const { id } = (await res.json()) as { id: string };
    expect(res.status).toBe(201);
    const refundAddress = addressFor("ltc");
    const r = await ops.call(`/orders/${id}/refund-address`, { body: { address: refundAddress } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ sentUpstream: false, order: { status: "waiting", refundAddress, refundState: null } });
    expect(r.body.remaining).toMatch(/^changenow takes no refund address through its API/);
    // The claim it wrote under is released: the worker reads the order as before.
    expect(await db.order.findUniqueOrThrow({ where: { id } })).toMatchObject({ leaseToken: null, refundAddress });
    expect((await auditOf(id)).map((a) => [a.action, a.after.sentUpstream])).toEqual([["order.refund_address", false]]);
  });
});

describe("orders across all resellers", () => {
  it("finds an order by its id, the provider's id, its payout address, the reseller's wallet, a refund hash; filters; keyset pages", async () => {
    const { id, payout, shift } = await sideshiftOrder(["waiting"]);
    const ids = async (qs: string) => {
      const r = await ops.call(`/orders?${qs}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body.orders as { id: string }[]).map((o) => o.id);
    };
    expect(await ids(`q=${id}`)).toEqual([id]);
    expect(await ids(`q=${id.toUpperCase()}`)).toEqual([id]);
    expect(await ids(`q=${encodeURIComponent(shift.id)}`)).toEqual([id]);
    expect(await ids(`q=${encodeURIComponent(payout)}`)).toEqual([id]);
    expect(await ids(`q=${payout.slice(0, -2)}`)).toEqual([]); // exact, never a prefix
    expect(await ids(`q=ss-manual-1`)).toHaveLength(1);
    const byWallet = await ids(`q=${wallet.toUpperCase().replace("0X", "0x")}`);
    expect(byWallet).toContain(id);
    expect(byWallet.length).toBeGreaterThanOrEqual(4);
    expect(await ids(`q=${id}&status=failed`)).toEqual([]);
    expect(await ids(`q=${id}&status=waiting&provider=sideshift`)).toEqual([id]);
    expect(await ids(`q=${id}&olderThanMinutes=600`)).toEqual([]);
    for (const o of await ids("status=failed&provider=sideshift"))
      expect((await db.order.findUnique({ where: { id: o } }))?.status).toBe("failed");

    // Keyset pages of one, newest first: every order once, in (createdAt, id) descending.
    const all = await db.order.findMany({ where: { payinAddress: { not: null } }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 50; i++) {
      const r: any = await ops.call(`/orders?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.orders.map((o: { id: string }) => o.id));
      cursor = r.body.next;
      if (!cursor) break;
    }
    expect(seen).toEqual(all.map((o) => o.id));
  });

  it("answers 404 NOT_FOUND for unknown ids and 400 for bad queries and bodies, never a 500", async () => {
    const { id } = await sideshiftOrder(["waiting"]);
    const unknown = "0".repeat(24);
    for (const [path, body] of [
      [`/orders/${unknown}`, undefined],
      [`/orders/not-an-id`, undefined],
      [`/orders/${unknown}/sync`, {}],
      [`/orders/${unknown}/refund-address`, { address: addressFor("btc") }],
      [`/orders/${unknown}/choice`, { choice: "exchange" }],
      [`/orders/${unknown}/resolve`, { outcome: "failed", reason: "x" }],
      [`/orders/${unknown}/notes`, { text: "x" }],
    ] as const) {
      const r = await ops.call(path, body === undefined ? {} : { body });
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe("NOT_FOUND");
    }
    for (const qs of [
      "status=lost",
      "reason=sleepy",
      "limit=0",
      "limit=1000",
      "olderThanMinutes=-1",
      "cursor=garbage",
      `q=${"x".repeat(300)}`,
    ]) {
      const r = await ops.call(`/orders?${qs}`);
      expect(r.status, qs).toBe(400);
      expect(r.body.error.code).toBe("INVALID_REQUEST");
    }
    for (const [path, body] of [
      ["refund-address", {}],
      ["refund-address", { address: ["x"] }],
      ["refund-address", { address: addressFor("btc"), extra: true }],
      ["choice", {}],
      ["resolve", { outcome: "finished", reason: "x" }],
      ["resolve", { outcome: "lost", reason: "x" }],
      ["resolve", { outcome: "failed", reason: "" }],
      ["notes", { text: "   " }],
      ["notes", { text: "x".repeat(2001) }],
      ["sync", { now: true }],
    ] as const) {
      const r = await ops.call(`/orders/${id}/${path}`, { body });
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.error.code).toBe("INVALID_REQUEST");
    }
    // Not JSON at all.
    const res = await fetch(`${server.baseUrl}/api/console/orders/${id}/notes`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        cookie: ops.cookie,
        origin: server.baseUrl.replace("127.0.0.1", "localhost"),
        "x-forwarded-for": newIp(),
      },
      body: "{not json",
    });
    expect(res.status).toBe(400);
    // A refund address of another chain: the address is checked before anything is sent.
    const wrong = await ops.call(`/orders/${id}/refund-address`, { body: { address: addressFor("eth") } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.code).toBe("INVALID_REFUND_ADDRESS");
    // A waiting order awaits no choice.
    const choice = await ops.call(`/orders/${id}/choice`, { body: { choice: "exchange" } });
    expect(choice.status).toBe(409);
    expect(choice.body.error.code).toBe("INVALID_ORDER_STATE");
    expect(server.logs()).not.toContain("unhandled error");
  });
});
