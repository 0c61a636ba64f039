import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { createEndpoint, setEndpointEnabled } from "@/lib/webhooks/endpoints";
import { enqueueEvent } from "@/lib/webhooks/outbox";
import { MAX_REDELIVER, redeliverFailed, redeliverOne } from "@/lib/webhooks/redeliver";
import { runWebhooksOnce } from "@/lib/webhooks/sender";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { WebhookReceiver } from "../support/webhook-receiver";

// Resending webhook deliveries (lib/webhooks/redeliver.ts), sent by the real sender to a real
// receiver on 127.0.0.1: the same webhook-id and body again, the attempts kept in the
// delivery's log, only the reseller's own, only the failed ones of a range, nothing twice.

const at = (hhmm: string) => new Date(`2026-06-30T${hhmm}:00Z`);
/** A worker pass: everything queued so far is due (the sender's retries are 0 s apart here). */
const pass = (db: Db) => runWebhooksOnce(db, new Date(Date.now() + 60_000));

describe.each(["sqlite", "postgres"] as const)("webhook redelivery on %s", (kind) => {
  settingsForTests({
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_RETRY_SCHEDULE: "0",
    WEBHOOK_DISABLE_AFTER_FAILURES: "1000",
    // No test here waits for an attempt's timeout: the receiver answers every delivery, however
    // late a loaded machine lets it.
    WEBHOOK_TIMEOUT_MS: "600000",
  });
  const receiver = new WebhookReceiver();
  let t: TempDb;
  let db: Db;
  let a1 = "";
  let a2 = "";
  let b1 = "";
  let secretA1 = "";

  beforeAll(async () => {
    await receiver.start();
    t = await tempDatabase(kind);
    db = t.db;
    for (const [id, hex] of [
      ["ra", "a"],
      ["rb", "b"],
    ])
      await db.reseller.create({ data: { id, walletAddress: `0x${hex.repeat(40)}` } });
    const made = await createEndpoint(db, { resellerId: "ra", url: receiver.url, events: ["*"], allowPrivate: true });
    a1 = made.endpoint.id;
    secretA1 = made.secret;
    a2 = (await createEndpoint(db, { resellerId: "ra", url: `${receiver.url}/two`, events: ["*"], allowPrivate: true })).endpoint.id;
    b1 = (await createEndpoint(db, { resellerId: "rb", url: receiver.url, events: ["*"], allowPrivate: true })).endpoint.id;
  });
  beforeEach(async () => {
    receiver.received.length = 0;
    receiver.status = 200;
    await db.webhookMessage.deleteMany({});
  });
  afterAll(async () => {
    await receiver.stop();
    await t?.cleanup();
  });

  /** An event about `subject` for one endpoint of `resellerId`; its delivery's id. */
  async function event(endpointId: string, when: Date, subject: string, resellerId = "ra"): Promise<{ messageId: string; id: number }> {
    const messageId = await db.$transaction((tx) =>
      enqueueEvent(tx, {
        resellerId,
        type: "order.status_changed",
        subject,
        endpointId,
        data: { orderId: subject, status: "sending" },
        now: when,
      }),
    );
    if (!messageId) throw new Error("not enqueued");
    const d = await db.webhookDelivery.findFirstOrThrow({ where: { messageId, endpointId } });
    return { messageId, id: d.id };
  }
  /** A delivery the sender gave up on, as it leaves one. */
  const failed = (id: number) =>
    db.webhookDelivery.update({
      where: { id },
      data: { status: "failed", attempts: 2, nextAttemptAt: null, lastStatusCode: 500, lastError: "HTTP 500" },
    });
  const row = (id: number) => db.webhookDelivery.findUniqueOrThrow({ where: { id }, include: { log: { orderBy: { id: "asc" } } } });

  it("a failed delivery resent is delivered again with the same webhook-id and body, every attempt kept in its log", async () => {
    receiver.status = 500;
    const d = await event(a1, new Date(), "order-1");
    for (let i = 0; i < 5 && (await row(d.id)).status === "pending"; i++) await pass(db);
    expect((await row(d.id)).status).toBe("failed");
    expect(receiver.received.map((r) => [r.id, r.answered])).toEqual([
      [d.messageId, 500],
      [d.messageId, 500],
    ]);

    receiver.status = 200;
    expect(await redeliverOne(db, { resellerId: "ra", deliveryId: d.id })).toEqual({ deliveryId: d.id, queued: true });
    // A second click while it is pending queues nothing more: still one delivery, sent once.
    expect(await redeliverOne(db, { resellerId: "ra", deliveryId: d.id })).toEqual({ deliveryId: d.id, queued: false });
    expect(await db.webhookDelivery.count({ where: { messageId: d.messageId } })).toBe(1);
    expect(await pass(db)).toBe(1);
    expect(await pass(db)).toBe(0);

    const [first, , again] = receiver.received;
    expect(receiver.received).toHaveLength(3);
    expect(again.id).toBe(d.messageId);
    expect(again.body).toBe(first.body);
    const message = await db.webhookMessage.findUniqueOrThrow({ where: { id: d.messageId } });
    expect(again.body).toBe(message.payload);
    expect(new Webhook(secretA1).verify(again.body, again.headers)).toMatchObject({ type: "order.status_changed" });
    const after = await row(d.id);
    expect(after).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 200, lastError: null });
    expect(after.log.map((x) => x.statusCode)).toEqual([500, 500, 200]);

    // A delivered one can be sent again too (a receiver that lost it): same id and body.
    expect((await redeliverOne(db, { resellerId: "ra", deliveryId: d.id })).queued).toBe(true);
    await pass(db);
    expect(receiver.received.map((r) => r.id)).toEqual([d.messageId, d.messageId, d.messageId, d.messageId]);
    expect(receiver.received[3].body).toBe(first.body);
    expect((await row(d.id)).log).toHaveLength(4);
  });

  it("a bulk resend queues the failed deliveries of that endpoint in the range, and only those", async () => {
    const f0 = await event(a1, at("09:00"), "s-f0"); // before the range
    const f1 = await event(a1, at("10:00"), "s-f1"); // at its start: in
    const s1 = await event(a1, at("10:30"), "s-s1"); // succeeded
    const p1 = await event(a1, at("10:45"), "s-p1"); // still pending, retried later
    const f2 = await event(a1, at("11:59"), "s-f2");
    const f3 = await event(a1, at("12:00"), "s-f3"); // at its end: out
    const other = await event(a2, at("10:15"), "s-o"); // another endpoint
    const theirs = await event(b1, at("10:15"), "s-b", "rb"); // another reseller's
    for (const d of [f0, f1, f2, f3, other, theirs]) await failed(d.id);
    await db.webhookDelivery.update({ where: { id: s1.id }, data: { status: "succeeded", attempts: 1, nextAttemptAt: null } });
    const later = new Date(Date.now() + 3600_000);
    await db.webhookDelivery.update({ where: { id: p1.id }, data: { attempts: 1, nextAttemptAt: later } });

    const range = { resellerId: "ra", endpointId: a1, from: at("10:00"), to: at("12:00") };
    expect(await redeliverFailed(db, range)).toEqual({ queued: 2, more: false });
    // Clicked again: they are pending now, nothing is queued twice.
    expect(await redeliverFailed(db, range)).toEqual({ queued: 0, more: false });
    expect((await row(p1.id)).nextAttemptAt).toEqual(later);

    await pass(db);
    expect(receiver.received.map((r) => r.id).sort()).toEqual([f1.messageId, f2.messageId].sort());
    const status = async (d: { id: number }) => (await row(d.id)).status;
    expect(await Promise.all([f0, f1, s1, p1, f2, f3, other, theirs].map(status))).toEqual([
      "failed",
      "succeeded",
      "succeeded",
      "pending",
      "succeeded",
      "failed",
      "failed",
      "failed",
    ]);
  });

  it("a bulk resend queues at most MAX_REDELIVER, oldest first, and says when more are left", async () => {
    const n = MAX_REDELIVER + 1;
    const base = at("08:00").getTime();
    await db.webhookMessage.createMany({
      data: Array.from({ length: n }, (_, i) => ({
        id: `msg_bulk_${String(i).padStart(5, "0")}`,
        resellerId: "ra",
        type: "order.status_changed",
        subject: `bulk-${i}`,
        payload: "{}",
        createdAt: new Date(base + i * 1000),
      })),
    });
    await db.webhookDelivery.createMany({
      data: Array.from({ length: n }, (_, i) => ({
        endpointId: a2,
        messageId: `msg_bulk_${String(i).padStart(5, "0")}`,
        orderingKey: `bulk-${i}`,
        status: "failed",
        attempts: 2,
        createdAt: new Date(base + i * 1000),
      })),
    });
    // Ahead of them in the range: deliveries of the endpoint that did not fail, and failed ones of another endpoint; none counts.
    for (const [i, [endpointId, st]] of [
      [a2, "succeeded"],
      [a2, "pending"],
      [a1, "failed"],
      [a1, "failed"],
    ].entries()) {
      const messageId = `msg_bulk_noise_${i}`;
      await db.webhookMessage.create({
        data: { id: messageId, resellerId: "ra", type: "order.status_changed", subject: messageId, payload: "{}", createdAt: at("08:00") },
      });
      await db.webhookDelivery.create({
        data: { endpointId, messageId, orderingKey: messageId, status: st, attempts: 1, nextAttemptAt: null, createdAt: at("08:00") },
      });
    }
    const range = { resellerId: "ra", endpointId: a2, from: at("08:00"), to: at("09:00") };
    expect(await redeliverFailed(db, range)).toEqual({ queued: MAX_REDELIVER, more: true });
    const stillFailed = await db.webhookDelivery.findMany({ where: { endpointId: a2, status: "failed" }, select: { messageId: true } });
    expect(stillFailed.map((d) => d.messageId)).toEqual([`msg_bulk_${String(n - 1).padStart(5, "0")}`]);
    expect(await redeliverFailed(db, range)).toEqual({ queued: 1, more: false });
  });

  it("a delivery queued by another click between the bulk resend's read and its write is not queued twice", async () => {
    const d = await event(a1, at("10:00"), "race-1");
    await failed(d.id);
    // The other click queues it and a worker tries it once (it fails; its next retry is later), all
    // after the bulk resend has read the failed deliveries and before it writes.
    const later = new Date(Date.now() + 3600_000);
    let interleaved = false;
    const racing = db.$extends({
      query: {
        webhookDelivery: {
          async updateMany({ args, query }) {
            if (!interleaved) {
              interleaved = true;
              await redeliverOne(db, { resellerId: "ra", deliveryId: d.id });
              await db.webhookDelivery.update({ where: { id: d.id }, data: { attempts: 1, nextAttemptAt: later } });
            }
            return query(args);
          },
        },
      },
    }) as unknown as Db;
    expect(await redeliverFailed(racing, { resellerId: "ra", endpointId: a1, from: at("10:00"), to: at("11:00") })).toEqual({
      queued: 0,
      more: false,
    });
    expect(interleaved).toBe(true);
    expect(await row(d.id)).toMatchObject({ status: "pending", attempts: 1, nextAttemptAt: later });
  });

  it("another reseller's deliveries and endpoints are refused, as ones that do not exist, and change nothing", async () => {
    const mine = await event(a1, at("10:00"), "o-1");
    await failed(mine.id);
    for (const op of [
      () => redeliverOne(db, { resellerId: "rb", deliveryId: mine.id }),
      () => redeliverOne(db, { resellerId: "ra", deliveryId: mine.id + 1_000_000 }),
      () => redeliverOne(db, { resellerId: "ra", deliveryId: Number.NaN }),
      () => redeliverFailed(db, { resellerId: "rb", endpointId: a1, from: at("00:00"), to: at("23:00") }),
      () => redeliverFailed(db, { resellerId: "ra", endpointId: "ep_nope", from: at("00:00"), to: at("23:00") }),
    ])
      await expect(op()).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await row(mine.id)).toMatchObject({ status: "failed", attempts: 2 });
    // A range that is none.
    await expect(redeliverFailed(db, { resellerId: "ra", endpointId: a1, from: at("12:00"), to: at("12:00") })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    await expect(
      redeliverFailed(db, { resellerId: "ra", endpointId: a1, from: new Date(Number.NaN), to: at("12:00") }),
    ).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    expect(await row(mine.id)).toMatchObject({ status: "failed", attempts: 2 });
  });

  it("a disabled endpoint's deliveries are refused until it is enabled again", async () => {
    const d = await event(a2, at("10:00"), "dis-1");
    await failed(d.id);
    await setEndpointEnabled(db, { resellerId: "ra", endpointId: a2, enabled: false });
    try {
      await expect(redeliverOne(db, { resellerId: "ra", deliveryId: d.id })).rejects.toMatchObject({ code: "WEBHOOK_ENDPOINT_DISABLED" });
      await expect(redeliverFailed(db, { resellerId: "ra", endpointId: a2, from: at("00:00"), to: at("23:00") })).rejects.toMatchObject({
        code: "WEBHOOK_ENDPOINT_DISABLED",
      });
      expect((await row(d.id)).status).toBe("failed");
    } finally {
      await setEndpointEnabled(db, { resellerId: "ra", endpointId: a2, enabled: true });
    }
    expect(await redeliverOne(db, { resellerId: "ra", deliveryId: d.id })).toMatchObject({ queued: true });
  });

  it("a resent delivery keeps its subject's order: it waits for one in flight, and goes before a later one waiting", async () => {
    const old = await event(a1, at("10:00"), "order-x");
    const inFlight = await event(a1, at("10:05"), "order-x");
    const waiting = await event(a1, at("10:10"), "order-x");
    await failed(old.id);
    // The delivery after it is being sent by a worker right now.
    await db.webhookDelivery.update({
      where: { id: inFlight.id },
      data: { leaseToken: "another-worker", leaseUntil: new Date(Date.now() + 3600_000) },
    });
    expect((await redeliverOne(db, { resellerId: "ra", deliveryId: old.id })).queued).toBe(true);
    await pass(db);
    expect(receiver.received).toEqual([]);
    expect((await row(old.id)).attempts).toBe(0);

    // That worker is done: the resent one goes next, alone, then the one that waited.
    await db.webhookDelivery.update({
      where: { id: inFlight.id },
      data: { status: "succeeded", attempts: 1, nextAttemptAt: null, leaseToken: null, leaseUntil: null },
    });
    await pass(db);
    expect(receiver.received.map((r) => r.id)).toEqual([old.messageId]);
    await pass(db);
    expect(receiver.received.map((r) => r.id)).toEqual([old.messageId, waiting.messageId]);
  });
});
