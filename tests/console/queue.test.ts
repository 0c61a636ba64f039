import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseStuckMinutes, type QueueSource, readQueue } from "@/lib/console/queue";
import type { Db, Order } from "@/lib/db/client";
import { newId, newOrderId } from "@/lib/ids";
import { newCaller } from "../support/callers";
import { orderRow } from "../support/orders";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempSqlite } from "../support/sqlite-db";

// The console's queue (lib/console/queue.ts), in-process on SQLite: each kind from the rows
// that make it, when each began ("since"), oldest first, one item per order, the counts, and a
// source added from outside (the extension point the withdrawals' kinds use).

settingsForTests({ QUEUE_STUCK_MINUTES: "confirming=120, exchanging=60,bogus=5" });
const NOW = new Date("2031-05-01T10:00:00.000Z");
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);

let t: TempDb;
let db: Db;
let resellerId: string;
let wallet: string;
beforeAll(async () => {
  t = await tempSqlite();
  db = t.db;
  resellerId = (await newCaller(db, 0)).resellerId;
  wallet = (await db.reseller.findUniqueOrThrow({ where: { id: resellerId } })).walletAddress;
});
afterAll(() => t.cleanup());

async function order(over: Partial<Order>, events: { status: string; at: Date }[] = []): Promise<Order> {
  const id = newOrderId();
  const o = await db.order.create({ data: orderRow(id, { resellerId, provider: "sideshift", upstreamId: `up-${id}`, ...over }) });
  for (const e of events) await db.orderEvent.create({ data: { orderId: id, status: e.status, at: e.at } });
  return o;
}

const upstream = (orderId: string, status: string, reason: string | null, at: Date) =>
  db.upstreamStatusEvent.create({ data: { orderId, provider: "sideshift", status, reason, at } });

describe("parseStuckMinutes", () => {
  it("reads state=minutes pairs for open states and ignores other names", () => {
    expect(parseStuckMinutes("waiting=1440,confirming=120, exchanging = 60,finished=5,bogus=1")).toEqual({
      waiting: 1440,
      confirming: 120,
      exchanging: 60,
    });
    expect(parseStuckMinutes("")).toEqual({});
  });
});

describe("readQueue", () => {
  it("lists each kind from its rows, since it began, oldest first, once per order, with counts", async () => {
    // On hold since the first of its latest run of hold statuses (not the latest one, not the first status).
    const hold = await order({ status: "exchanging", stateReason: "hold", upstreamStatus: "review2", createdAt: ago(600) });
    await upstream(hold.id, "processing", null, ago(300));
    await upstream(hold.id, "review", "hold", ago(200));
    await upstream(hold.id, "processing", null, ago(150));
    await upstream(hold.id, "review", "hold", ago(100));
    await upstream(hold.id, "review2", "hold", ago(90));
    // No recorded status: since its updatedAt. Also past the exchanging limit, yet listed once, for its reason.
    const choice = await order(
      { status: "exchanging", stateReason: "needs_action", upstreamStatus: "EMERGENCY/LESS/NONE", createdAt: ago(500), updatedAt: ago(80) },
      [{ status: "exchanging", at: ago(400) }],
    );
    const unknown = await order({ status: "confirming", stateReason: "unknown", upstreamStatus: "FROZEN", createdAt: ago(20) });
    await upstream(unknown.id, "FROZEN", "unknown", ago(10));
    const noAddress = await order({
      status: "failed",
      failureReason: "provider_failed",
      refundState: "awaiting_address",
      refundAmount: "0.1",
      updatedAt: ago(70),
    });
    // Stuck: in confirming for 3 hours (limit 2); in exchanging 30 minutes of a 60 limit (not yet);
    // waiting for 2 days (no limit set for waiting here).
    const stuck = await order({ status: "confirming", createdAt: ago(400) }, [
      { status: "waiting", at: ago(400) },
      { status: "confirming", at: ago(180) },
    ]);
    await order({ status: "exchanging", createdAt: ago(400) }, [{ status: "exchanging", at: ago(30) }]);
    await order({ status: "waiting", createdAt: ago(2880) }, [{ status: "waiting", at: ago(2880) }]);
    // Not for a person: finished, a refund pending to a known address, a refund under way, an unopened reservation.
    await order({ status: "finished", stateReason: null });
    await order({ status: "failed", refundState: "pending", refundAddress: "bc1qx" });
    await order({ status: "sending", stateReason: "refunding", createdAt: ago(10) }, [{ status: "sending", at: ago(5) }]);
    await order({ status: "exchanging", stateReason: "hold", payinAddress: null });
    const orphan = await db.upstreamIntent.create({
      data: {
        id: newId(),
        orderId: newOrderId(),
        provider: "changenow",
        upstreamId: "cn-1",
        outcome: "abandoned",
        createdAt: ago(50),
        resolvedAt: ago(45),
      },
    });
    await db.upstreamIntent.create({ data: { id: newId(), orderId: newOrderId(), provider: "changenow", outcome: "committed" } });

    const q = await readQueue({ db, now: NOW });
    expect(q.items.map((i) => [i.kind, i.targetId, i.since])).toEqual([
      ["order_stuck", stuck.id, ago(180).toISOString()],
      ["order_hold", hold.id, ago(100).toISOString()],
      ["order_needs_action", choice.id, ago(80).toISOString()],
      ["order_refund_no_address", noAddress.id, ago(70).toISOString()],
      ["upstream_orphan", orphan.id, ago(45).toISOString()],
      ["order_unknown_status", unknown.id, ago(10).toISOString()],
    ]);
    expect(q.items[1]).toEqual({
      kind: "order_hold",
      targetType: "order",
      targetId: hold.id,
      since: ago(100).toISOString(),
      waitingSeconds: 100 * 60,
      summary: "sideshift held for review: review2 (order exchanging)",
      reseller: { id: resellerId, wallet },
      provider: "sideshift",
      status: "exchanging",
      reason: "hold",
    });
    expect(q.items[4]).toMatchObject({ targetType: "upstream_intent", reseller: null, provider: "changenow", status: "abandoned" });
    expect(q.counts).toEqual({
      order_hold: 1,
      order_needs_action: 1,
      order_unknown_status: 1,
      order_refund_no_address: 1,
      order_stuck: 1,
      upstream_orphan: 1,
      // The money side's kinds (lib/console/money/queue-items.ts: tests/http/console-withdrawals.test.ts), none here.
      withdrawal_awaiting_approval: 0,
      withdrawal_stuck: 0,
      reconciliation_difference: 0,
      hot_wallet_low: 0,
    });
  });

  it("takes another domain's source: its kinds counted, its items merged by age", async () => {
    const extra: QueueSource = {
      kinds: ["withdrawal_awaiting_approval", "hot_wallet_low"],
      read: async ({ now }) => [
        {
          kind: "withdrawal_awaiting_approval",
          targetType: "withdrawal",
          targetId: "w1",
          since: new Date(now.getTime() - 1000),
          summary: "100 USDC awaits approval",
          resellerId,
          provider: null,
          status: "awaiting_approval",
          reason: null,
        },
      ],
    };
    const q = await readQueue({ db, now: NOW, sources: [extra] });
    expect(q.counts).toEqual({ withdrawal_awaiting_approval: 1, hot_wallet_low: 0 });
    expect(q.items).toEqual([expect.objectContaining({ targetId: "w1", waitingSeconds: 1, reseller: { id: resellerId, wallet } })]);
  });
});
