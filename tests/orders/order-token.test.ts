import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db, Order } from "@/lib/db/client";
import { newOrderId } from "@/lib/ids";
import { announceRequiredAction, requiredActionAppears } from "@/lib/orders/announce";
import { getOrderForToken, hashOrderToken } from "@/lib/orders/get-order";
import { createEndpoint } from "@/lib/webhooks/endpoints";
import { refusalOf } from "../support/app-error";
import { newCaller } from "../support/callers";
import { orderRow } from "../support/orders";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempSqlite } from "../support/sqlite-db";

// An order read by its status link's secret (getOrderForToken, the hosted page's and status
// page's door) and the order.action_required announcement (lib/orders/announce.ts), in-process
// on SQLite.

settingsForTests({ WEBHOOK_ALLOW_PRIVATE: "true" });
let t: TempDb;
let db: Db;
let reseller: string;
beforeAll(async () => {
  t = await tempSqlite();
  db = t.db;
  reseller = (await newCaller(db, 0)).resellerId;
});
afterAll(() => t.cleanup());

const order = (over: Partial<Order> = {}) => db.order.create({ data: orderRow(newOrderId(), { resellerId: reseller, ...over }) });
const NOT_FOUND = { code: "ORDER_NOT_FOUND", message: "No order with this id.", details: undefined };

describe("getOrderForToken", () => {
  it("stores the secret as its SHA-256 in hex", () => {
    expect(hashOrderToken("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("finds the order (any case of its id) with its timeline for its secret, up to 100 characters", async () => {
    const secret = "s".repeat(100);
    const o = await order({ accessTokenHash: hashOrderToken(secret) });
    await db.orderEvent.create({ data: { orderId: o.id, status: "waiting", at: o.createdAt } });
    const got = await getOrderForToken(db, { orderId: o.id.toUpperCase(), token: secret });
    expect(got).toMatchObject({ id: o.id, resellerId: reseller });
    expect(got.events.map((e) => e.status)).toEqual(["waiting"]);
  });

  it("finds nothing for no secret, a wrong one, one too long, a malformed id, a keyless order or one without a secret", async () => {
    const long = "l".repeat(101);
    const o = await order({ accessTokenHash: hashOrderToken("right") });
    const tooLong = await order({ accessTokenHash: hashOrderToken(long) });
    const keyless = await order({ resellerId: null, accessTokenHash: hashOrderToken("right") });
    const none = await order();
    const cases: [string, string | null][] = [
      [o.id, null],
      [o.id, ""],
      [o.id, "wrong"],
      [o.id, "rigHt"],
      [tooLong.id, long],
      [`${o.id}x`, "right"],
      [keyless.id, "right"],
      [none.id, "right"],
      [newOrderId(), "right"],
    ];
    for (const [orderId, token] of cases) expect(await refusalOf(getOrderForToken(db, { orderId, token }))).toEqual(NOT_FOUND);
  });
});

describe("order.action_required", () => {
  const held = { status: "confirming", stateReason: "hold", refundState: null, refundAddress: null, provider: null, resellerId: "r" };
  it("appears when the order's requiredAction becomes another non-null one", () => {
    const open = { ...held, stateReason: null };
    expect(requiredActionAppears(open as Order, held as Order)).toBe(true);
    expect(requiredActionAppears(held as Order, held as Order)).toBe(false);
    expect(requiredActionAppears(held as Order, open as Order)).toBe(false);
    expect(requiredActionAppears(held as Order, { ...held, refundAddress: "x" } as Order)).toBe(true); // wait_for_review
  });

  it("is enqueued with the order's whole timeline, read when not given; a keyless order calls for one but has no endpoint", async () => {
    await createEndpoint(db, { resellerId: reseller, url: "http://127.0.0.1:9/hook", events: ["order.action_required"] });
    const before = await order({ status: "confirming" });
    await db.orderEvent.createMany({
      data: [
        { orderId: before.id, status: "waiting", at: new Date(before.createdAt.getTime()) },
        { orderId: before.id, status: "confirming", at: new Date(before.createdAt.getTime() + 1000) },
      ],
    });
    await db.orderEvent.create({ data: { orderId: (await order()).id, status: "waiting", at: before.createdAt } });
    const after = { ...before, stateReason: "hold" };
    const now = new Date();
    expect(await db.$transaction((tx) => announceRequiredAction(tx, before, after, { now }))).toBe(true);
    const [m] = await db.webhookMessage.findMany({ where: { subject: before.id } });
    expect(m.type).toBe("order.action_required");
    const body = JSON.parse(m.payload);
    expect(body).toMatchObject({
      type: "order.action_required",
      data: { orderId: before.id, status: "confirming", requiredAction: "provide_refund_address", previousRequiredAction: null },
    });
    expect(body.data.order.id).toBe(before.id);
    // The timeline as read: this order's events only, oldest first.
    expect(body.data.order.history.map((h: { status: string }) => h.status)).toEqual(["waiting", "confirming"]);
    // Nothing new: no event, false.
    expect(await db.$transaction((tx) => announceRequiredAction(tx, after, after, { now }))).toBe(false);
    const keyless = { ...after, id: newOrderId(), resellerId: null };
    expect(await db.$transaction((tx) => announceRequiredAction(tx, { ...keyless, stateReason: null }, keyless, { now }))).toBe(true);
    expect(await db.webhookMessage.count()).toBe(1);
  });
});
