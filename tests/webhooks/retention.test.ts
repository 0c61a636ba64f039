import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { type PruneCursor, pruneWebhookMessages } from "@/lib/webhooks/retention";
import { startWorker } from "@/lib/worker/run-worker";
import { queryPlan, type TempDb, tempDatabase, tracedStatements } from "../support/sqlite-db";

// WEBHOOK_RETENTION_DAYS (lib/webhooks/retention.ts): finished messages older than the
// retention go with their deliveries and attempts; recent ones and pending ones stay.

const NOW = new Date("2026-06-30T12:00:00Z");
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 24 * 3600 * 1000);

type DeliverySpec = { endpoint: "on" | "off"; status: "pending" | "succeeded" | "failed"; lastAttempt?: Date; attempts?: number };

async function message(db: Db, id: string, createdAt: Date, deliveries: DeliverySpec[]) {
  await db.webhookMessage.create({ data: { id, resellerId: "r1", type: "order.created", subject: null, payload: "{}", createdAt } });
  for (const d of deliveries) {
    const row = await db.webhookDelivery.create({
      data: {
        endpointId: d.endpoint,
        messageId: id,
        orderingKey: id,
        status: d.status,
        attempts: d.attempts ?? 0,
        lastAttemptAt: d.lastAttempt ?? null,
        nextAttemptAt: d.status === "pending" ? createdAt : null,
        createdAt,
      },
    });
    for (let i = 0; i < (d.attempts ?? 0); i++)
      await db.webhookAttempt.create({ data: { deliveryId: row.id, at: d.lastAttempt ?? createdAt, statusCode: 500, latencyMs: 3 } });
  }
}

async function setUp(db: Db) {
  await db.reseller.create({ data: { id: "r1", walletAddress: `0x${"12".repeat(20)}` } });
  for (const [id, enabled] of [
    ["on", true],
    ["off", false],
  ] as const)
    await db.webhookEndpoint.create({
      data: { id, resellerId: "r1", url: "https://example.com/hook", events: '["*"]', secret: "whsec_x", enabled },
    });
}

const left = async (db: Db) => ({
  messages: (await db.webhookMessage.findMany({ orderBy: { id: "asc" }, select: { id: true } })).map((m) => m.id),
  deliveries: await db.webhookDelivery.count(),
  attempts: await db.webhookAttempt.count(),
});

describe.each(["sqlite", "postgres"] as const)("webhook retention on %s", (kind) => {
  let t: TempDb;
  beforeAll(async () => {
    t = await tempDatabase(kind);
    await setUp(t.db);
  });
  beforeEach(() => t.db.webhookMessage.deleteMany({}));
  afterAll(async () => t?.cleanup());

  it("deletes finished messages older than the retention with their deliveries and attempts; keeps recent and pending ones", async () => {
    const db = t.db;
    // Go: finished and old.
    await message(db, "old-succeeded", daysAgo(40), [{ endpoint: "on", status: "succeeded", lastAttempt: daysAgo(40), attempts: 2 }]);
    await message(db, "old-failed", daysAgo(40), [{ endpoint: "on", status: "failed", lastAttempt: daysAgo(39), attempts: 8 }]);
    await message(db, "old-no-delivery", daysAgo(31), []); // its endpoint was deleted
    await message(db, "old-both-done", daysAgo(35), [
      { endpoint: "on", status: "succeeded", lastAttempt: daysAgo(35), attempts: 1 },
      { endpoint: "off", status: "failed", lastAttempt: daysAgo(34), attempts: 3 },
    ]);
    // Stay: a delivery still pending, however old (here on a disabled endpoint).
    await message(db, "old-pending", daysAgo(90), [{ endpoint: "off", status: "pending", lastAttempt: daysAgo(89), attempts: 4 }]);
    await message(db, "old-one-pending", daysAgo(40), [
      { endpoint: "on", status: "succeeded", lastAttempt: daysAgo(40), attempts: 1 },
      { endpoint: "off", status: "pending", attempts: 0 },
    ]);
    // Stay: attempted within the retention, though created before it.
    await message(db, "old-attempted-lately", daysAgo(45), [{ endpoint: "on", status: "succeeded", lastAttempt: daysAgo(2), attempts: 6 }]);
    // Stay: recent.
    await message(db, "recent-succeeded", daysAgo(29), [{ endpoint: "on", status: "succeeded", lastAttempt: daysAgo(29), attempts: 1 }]);
    await message(db, "recent-pending", daysAgo(0), [{ endpoint: "on", status: "pending" }]);

    const before = await left(db);
    expect(before).toEqual({ messages: expect.any(Array), deliveries: 10, attempts: 26 });

    // 0 keeps everything.
    expect(await pruneWebhookMessages(db, { now: NOW, retentionDays: 0 })).toEqual({ deleted: 0, after: null });
    expect(await left(db)).toEqual(before);

    expect(await pruneWebhookMessages(db, { now: NOW, retentionDays: 30 })).toEqual({ deleted: 4, after: null });
    expect(await left(db)).toEqual({
      messages: ["old-attempted-lately", "old-one-pending", "old-pending", "recent-pending", "recent-succeeded"],
      deliveries: 6,
      attempts: 6 + 1 + 4 + 0 + 1,
    });
    // Nothing more to do.
    expect(await pruneWebhookMessages(db, { now: NOW, retentionDays: 30 })).toEqual({ deleted: 0, after: null });

    // The pending delivery finally fails: its message goes once its last attempt is old too.
    await db.webhookDelivery.updateMany({ where: { messageId: "old-pending" }, data: { status: "failed" } });
    expect(await pruneWebhookMessages(db, { now: NOW, retentionDays: 30 })).toEqual({ deleted: 1, after: null });
    expect((await left(db)).messages).not.toContain("old-pending");
  });

  it("works in batches, walking on past messages that must stay, from where the last pass stopped", async () => {
    const db = t.db;
    // The oldest five must stay (pending on a disabled endpoint); seven finished ones behind them.
    for (let i = 0; i < 5; i++) await message(db, `a-pending-${i}`, daysAgo(60 - i), [{ endpoint: "off", status: "pending" }]);
    for (let i = 0; i < 7; i++)
      await message(db, `b-done-${i}`, daysAgo(50 - i), [
        { endpoint: "on", status: "succeeded", lastAttempt: daysAgo(50 - i), attempts: 1 },
      ]);
    await message(db, "c-recent", daysAgo(1), [{ endpoint: "on", status: "succeeded", lastAttempt: daysAgo(1), attempts: 1 }]);

    // Two messages looked at per pass: a pass never deletes more than that.
    let after: PruneCursor | null = null;
    const passes: number[] = [];
    do {
      const r = await pruneWebhookMessages(db, { now: NOW, retentionDays: 30, after, batchSize: 2, batches: 1 });
      passes.push(r.deleted);
      after = r.after;
    } while (after && passes.length < 20);
    expect(passes).toEqual([0, 0, 1, 2, 2, 2, 0]);
    expect((await left(db)).messages).toEqual([...Array.from({ length: 5 }, (_, i) => `a-pending-${i}`), "c-recent"]);

    // Several batches in one pass.
    for (let i = 0; i < 5; i++)
      await message(db, `d-done-${i}`, daysAgo(40), [{ endpoint: "on", status: "failed", lastAttempt: daysAgo(40), attempts: 1 }]);
    expect(await pruneWebhookMessages(db, { now: NOW, retentionDays: 30, batchSize: 2, batches: 10 })).toEqual({ deleted: 5, after: null });
    expect((await left(db)).messages).toHaveLength(6);
  });
});

describe("webhook retention: the worker and the indexes (SQLite)", () => {
  let t: TempDb;
  beforeAll(async () => {
    t = await tempDatabase("sqlite");
    await setUp(t.db);
  });
  beforeEach(() => t.db.webhookMessage.deleteMany({}));
  afterAll(async () => t?.cleanup());

  it("the worker deletes old finished messages on its own", async () => {
    const now = new Date();
    const long = new Date(now.getTime() - 400 * 24 * 3600 * 1000);
    await message(t.db, "old", long, [{ endpoint: "on", status: "succeeded", lastAttempt: long, attempts: 1 }]);
    await message(t.db, "new", now, [{ endpoint: "off", status: "pending" }]);
    const worker = startWorker(t.db, { pollMs: 50, inProcess: true });
    try {
      for (let i = 0; i < 200 && (await t.db.webhookMessage.count({ where: { id: "old" } })); i++)
        await new Promise((r) => setTimeout(r, 25));
    } finally {
      await worker.stop();
    }
    expect((await left(t.db)).messages).toEqual(["new"]);
  });

  it("finds old messages, and a message's deliveries, by an index: no statement reads a whole table", async () => {
    await message(t.db, "x-pending", daysAgo(60), [{ endpoint: "off", status: "pending" }]);
    await message(t.db, "y-done", daysAgo(50), [{ endpoint: "on", status: "succeeded", lastAttempt: daysAgo(50), attempts: 1 }]);
    const ran = await tracedStatements(t.url, (db) =>
      pruneWebhookMessages(db, { now: NOW, retentionDays: 30, after: { createdAt: daysAgo(70), id: "a" }, batchSize: 1, batches: 3 }),
    );
    expect((await left(t.db)).messages).toEqual(["x-pending"]);
    const statements = [...new Set(ran.filter((q) => /^\s*(SELECT|DELETE)\b/i.test(q)))];
    expect(statements.some((q) => /FROM\W+main\W+WebhookMessage/.test(q) && /^\s*SELECT/.test(q))).toBe(true);
    expect(statements.some((q) => /FROM\W+main\W+WebhookDelivery/.test(q) && /^\s*SELECT/.test(q))).toBe(true);
    expect(statements.some((q) => /^\s*DELETE/.test(q))).toBe(true);
    for (const q of statements) {
      const plan = queryPlan(t.url, q);
      expect(plan, q).not.toMatch(/^SCAN\b|TEMP B-TREE/m);
      expect(plan, q).toMatch(/INDEX (WebhookMessage_createdAt_id_idx|WebhookDelivery_messageId_idx|sqlite_autoindex_WebhookMessage_1)/);
    }
    // ON DELETE CASCADE looks a message's deliveries up as this does.
    expect(queryPlan(t.url, `SELECT "id" FROM "WebhookDelivery" WHERE "messageId" = ?`, ["a"])).toMatch(
      /INDEX WebhookDelivery_messageId_idx/,
    );
  });
});
