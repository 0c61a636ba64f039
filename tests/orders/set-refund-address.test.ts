import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db, Order } from "@/lib/db/client";
import { getEngine } from "@/lib/engine";
import { newOrderId } from "@/lib/ids";
import { hashOrderToken } from "@/lib/orders/get-order";
import { REFUND_ADDRESS_NOTE, setRefundAddress } from "@/lib/orders/set-refund-address";
import { createEndpoint } from "@/lib/webhooks/endpoints";
import { newCaller } from "../support/callers";
import { orderRow } from "../support/orders";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempSqlite } from "../support/sqlite-db";

// A refund address given after creation (lib/orders/set-refund-address.ts), in-process on
// SQLite with the simulated engine: who may give one, when it is refused and why, what is
// checked, and what is written (the row, the timeline note, the order.action_required event).
// tests/http/refund-address.test.ts drives the same through the HTTP doors.

settingsForTests({ WEBHOOK_ALLOW_PRIVATE: "true" });
const BTC = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const XRP = "rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY";
const NOW = new Date("2031-05-01T10:00:00.000Z");

let t: TempDb;
let db: Db;
let reseller: string;
let other: string;
beforeAll(async () => {
  t = await tempSqlite();
  db = t.db;
  reseller = (await newCaller(db, 0)).resellerId;
  other = (await newCaller(db, 0)).resellerId;
});
afterAll(() => t.cleanup());

/** A reseller's open order (waiting, no refund address), with `over`. */
async function order(over: Partial<Order> = {}): Promise<Order> {
  const id = newOrderId();
  return db.order.create({ data: orderRow(id, { resellerId: reseller, createdAt: new Date(NOW.getTime() - 60_000), ...over }) });
}

const give = (
  o: Order,
  refundAddress: string,
  more: { refundExtraId?: string | null; auth?: { resellerId: string } | { token: string | null } } = {},
) =>
  setRefundAddress(db, {
    orderId: o.id,
    auth: more.auth ?? { resellerId: reseller },
    refundAddress,
    refundExtraId: more.refundExtraId,
    now: NOW,
  });

const refusal = async (p: Promise<unknown>) => {
  const e = (await p.then(
    () => null,
    (err) => err,
  )) as { code?: string; message?: string } | null;
  return e && { code: e.code, message: e.message };
};

describe("setRefundAddress: who may give it", () => {
  it("the order's reseller, by id; another reseller, a keyless order or a wrong status-link secret find no order", async () => {
    const o = await order();
    const notFound = { code: "ORDER_NOT_FOUND", message: "No order with this id." };
    expect(await refusal(give(o, BTC, { auth: { resellerId: other } }))).toEqual(notFound);
    const keyless = await order({ resellerId: null });
    expect(await refusal(give(keyless, BTC, { auth: { token: "secret" } }))).toEqual(notFound);
    expect(await refusal(setRefundAddress(db, { orderId: keyless.id, auth: { resellerId: reseller }, refundAddress: BTC }))).toEqual(
      notFound,
    );
    const linked = await order({ accessTokenHash: hashOrderToken("the-secret") });
    expect(await refusal(give(linked, BTC, { auth: { token: "not-it" } }))).toEqual(notFound);
    expect((await give(linked, BTC, { auth: { token: "the-secret" } })).refundAddress).toBe(BTC);
  });
});

describe("setRefundAddress: what it writes", () => {
  it("an open order: the address (trimmed) and extra id, read again now, its claim free, a note on its timeline", async () => {
    const o = await order({ fromCurrency: "xrp", nextActionAt: new Date(NOW.getTime() + 600_000) });
    const got = await give(o, `  ${XRP} `, { refundExtraId: " 12345 " });
    expect(got).toMatchObject({
      refundAddress: XRP,
      refundExtraId: "12345",
      updatedAt: NOW,
      nextActionAt: NOW,
      status: "waiting",
      refundState: null,
      leaseToken: null,
      leaseUntil: null,
    });
    expect(got.events.map((e) => [e.status, e.note, e.at])).toEqual([["waiting", REFUND_ADDRESS_NOTE, NOW]]);
    expect(await db.order.findUniqueOrThrow({ where: { id: o.id } })).toMatchObject({ refundAddress: XRP, refundExtraId: "12345" });
    // The same address again is a retry: the order as it is, nothing written.
    const again = await setRefundAddress(db, { orderId: o.id, auth: { resellerId: reseller }, refundAddress: XRP, refundExtraId: "12345" });
    expect(again.events).toHaveLength(1);
    expect(again.updatedAt).toEqual(NOW);
  });

  it("an order on hold, or whose provider needs this address: the need is answered, and no action_required is announced", async () => {
    const endpoint = await createEndpoint(db, { resellerId: reseller, url: "http://127.0.0.1:9/hook", events: ["order.action_required"] });
    expect(endpoint.secret).toBeTruthy();
    const hold = await order({ status: "confirming", stateReason: "hold" });
    const needs = await order({ status: "confirming", stateReason: "needs_action" });
    expect(await give(hold, BTC)).toMatchObject({ stateReason: "hold", refundAddress: BTC, nextActionAt: NOW });
    expect(await give(needs, BTC)).toMatchObject({ stateReason: null, refundAddress: BTC, nextActionAt: NOW });
    // hold: provide_refund_address before, wait_for_review after; needs_action: nothing after.
    const events = await db.webhookMessage.findMany({ where: { subject: { in: [hold.id, needs.id] } } });
    expect(events.map((e) => [e.subject, e.type])).toEqual([[hold.id, "order.action_required"]]);
    expect(JSON.parse(events[0].payload).data).toMatchObject({
      requiredAction: "wait_for_review",
      previousRequiredAction: "provide_refund_address",
    });
  });

  it("a failed order whose refund awaited an address: the refund is sent (the simulated engine's hash), or pending where the engine keeps nothing", async () => {
    const failed = await order({ status: "failed", refundState: "awaiting_address", amountReceived: "0.1" });
    const sent = await give(failed, BTC);
    expect(sent).toMatchObject({ status: "failed", refundAddress: BTC, refundState: "sent", nextActionAt: null });
    expect(sent.refundHash).toMatch(/^[0-9a-f]{64}$/);
    const engine = getEngine();
    const real = engine.setRefundAddress;
    engine.setRefundAddress = undefined;
    try {
      const owed = await give(await order({ status: "failed", refundState: "awaiting_address", amountReceived: "0.1" }), BTC);
      expect(owed).toMatchObject({ refundAddress: BTC, refundState: "pending", refundHash: null });
    } finally {
      engine.setRefundAddress = real;
    }
  });
});

describe("setRefundAddress: when it is refused", () => {
  const locked = (message: string) => ({ code: "REFUND_ADDRESS_LOCKED", message });
  it.each([
    ["finished", { status: "finished" }, "The order is finished: there is nothing to refund."],
    [
      "with another address",
      { refundAddress: "1AGNa15ZQXAZUgFiqJ2i7Z2DPU2J6hW62i" },
      "The order already has a refund address; it cannot be changed.",
    ],
    ["failed with nothing to refund", { status: "failed" }, "The order failed with nothing to refund."],
    ["failed, its refund sent", { status: "failed", refundState: "sent" }, "The refund is already under way or sent."],
    ["being refunded", { status: "confirming", stateReason: "refunding" }, "The refund is already under way."],
    ["of a currency no longer listed", { fromCurrency: "nosuchcoin" }, "The order's currency nosuchcoin is no longer listed."],
  ] as const)("an order %s: locked, nothing written", async (_, over, message) => {
    const o = await order(over as Partial<Order>);
    expect(await refusal(give(o, BTC))).toEqual(locked(message));
    expect(await db.orderEvent.count({ where: { orderId: o.id } })).toBe(0);
    expect((await db.order.findUniqueOrThrow({ where: { id: o.id } })).updatedAt).toEqual(o.updatedAt);
  });

  it("a failed order held by a provider, even with its refund awaiting an address: unsupported (the provider refunds or not)", async () => {
    const o = await order({ status: "failed", refundState: "awaiting_address", provider: "sideshift", upstreamId: "ss-1" });
    expect(await refusal(give(o, BTC))).toEqual({
      code: "REFUND_ADDRESS_UNSUPPORTED",
      message: "This order's exchange provider cannot take a refund address after creation.",
    });
  });

  it("an order held by a provider that takes none after creation: unsupported; one that does takes it", async () => {
    const cn = await order({ provider: "changenow", upstreamId: "cn-1" });
    expect(await refusal(give(cn, BTC))).toEqual({
      code: "REFUND_ADDRESS_UNSUPPORTED",
      message: "This order's exchange provider cannot take a refund address after creation.",
    });
    const ss = await order({ provider: "sideshift", upstreamId: "ss-2" });
    expect(await give(ss, BTC)).toMatchObject({ refundAddress: BTC, provider: "sideshift" });
  });

  it("an empty or invalid address, or an extra id the currency does not take: refused with the reason", async () => {
    const o = await order();
    expect(await refusal(give(o, "   "))).toEqual({ code: "INVALID_REFUND_ADDRESS", message: "The refund address is empty." });
    expect(await refusal(give(o, "not-an-address"))).toEqual({
      code: "INVALID_REFUND_ADDRESS",
      message: "The refund address is not a valid Bitcoin (bitcoin) address.",
    });
    expect(await refusal(give(o, BTC, { refundExtraId: "7" }))).toEqual({
      code: "INVALID_REFUND_EXTRA_ID",
      message: "btc does not use an extra ID.",
    });
    const x = await order({ fromCurrency: "xrp" });
    expect(await refusal(give(x, XRP, { refundExtraId: "not-a-tag" }))).toEqual({
      code: "INVALID_REFUND_EXTRA_ID",
      message: "The refund Destination tag is not valid for xrp.",
    });
    expect(await db.order.findUniqueOrThrow({ where: { id: o.id } })).toMatchObject({ refundAddress: null, updatedAt: o.updatedAt });
  });
});

describe("setRefundAddress: one giver at a time", () => {
  it("waits while a worker holds the order's claim, then writes", async () => {
    const o = await order({ leaseToken: "worker", leaseUntil: new Date(Date.now() + 60_000) });
    const release = new Promise<void>((resolve) =>
      setTimeout(() => {
        void db.order.update({ where: { id: o.id }, data: { leaseToken: null, leaseUntil: null } }).then(() => resolve());
      }, 150),
    );
    const got = await give(o, BTC);
    await release;
    expect(got).toMatchObject({ refundAddress: BTC, leaseToken: null });
  });

  it("two at once with one address: both answer it, written once; with two addresses: the second is refused", async () => {
    const o = await order();
    const same = await Promise.all([give(o, BTC), give(o, BTC)]);
    expect(same.map((r) => r.refundAddress)).toEqual([BTC, BTC]);
    expect(await db.orderEvent.count({ where: { orderId: o.id, note: REFUND_ADDRESS_NOTE } })).toBe(1);
    const p = await order();
    const both = await Promise.allSettled([give(p, BTC), give(p, "1AGNa15ZQXAZUgFiqJ2i7Z2DPU2J6hW62i")]);
    const refused = both.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.code);
    expect(refused).toEqual(["REFUND_ADDRESS_LOCKED"]);
    expect(await db.orderEvent.count({ where: { orderId: p.id, note: REFUND_ADDRESS_NOTE } })).toBe(1);
  });

  it("a row that moved while the provider was asked (a sandbox deposit takes no claim) is written as it is now", async () => {
    const o = await order();
    const engine = getEngine();
    const real = engine.setRefundAddress;
    engine.setRefundAddress = async () => {
      await db.order.update({ where: { id: o.id }, data: { status: "confirming", amountReceived: "0.1" } });
      return { refundHash: null };
    };
    try {
      const got = await give(o, BTC);
      expect(got).toMatchObject({ status: "confirming", amountReceived: "0.1", refundAddress: BTC });
      expect(got.events.map((e) => [e.status, e.note])).toEqual([["confirming", REFUND_ADDRESS_NOTE]]);
    } finally {
      engine.setRefundAddress = real;
    }
  });
});
