import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { createOrderCounter, createWebhookDeliveryCounter } from "@/lib/observability/state-counts";
import { orderRow } from "../support/orders";
import { queryPlan, type TempDb, tempDatabase, tempSqlite } from "../support/sqlite-db";

// The `orders` and `webhook_deliveries` gauges (lib/observability/state-counts.ts): open states
// exact at every scrape, final ones recounted at most every finalMaxAgeMs.

const row = (id: string, status: string) => orderRow(id, { status });

describe.each(["sqlite", "postgres"] as const)("countOrders on %s", (kind) => {
  let t: TempDb;
  beforeAll(async () => {
    t = await tempDatabase(kind);
    const states = { waiting: 3, confirming: 2, sending: 1, finished: 4, failed: 2 };
    await t.db.order.createMany({
      data: Object.entries(states).flatMap(([s, n]) => Array.from({ length: n }, (_, i) => row(`${s}-${i}`, s))),
    });
  });
  afterAll(async () => t?.cleanup());

  it("counts every state, open ones at once and final ones when their count is older than the limit", async () => {
    let clock = 1_000_000;
    const count = createOrderCounter({ finalMaxAgeMs: 60_000, now: () => clock });
    expect(await count(t.db)).toEqual({ waiting: 3, confirming: 2, exchanging: 0, sending: 1, finished: 4, failed: 2 });

    // An order finishes, another fails, a new one arrives.
    await t.db.order.update({ where: { id: "sending-0" }, data: { status: "finished" } });
    await t.db.order.update({ where: { id: "waiting-0" }, data: { status: "failed" } });
    await t.db.order.create({ data: row("new-0", "exchanging") });
    clock += 59_999;
    expect(await count(t.db)).toEqual({ waiting: 2, confirming: 2, exchanging: 1, sending: 0, finished: 4, failed: 2 });
    clock += 1;
    expect(await count(t.db)).toEqual({ waiting: 2, confirming: 2, exchanging: 1, sending: 0, finished: 5, failed: 3 });

    // The cache is the counter's own: a new one (another process) counts afresh.
    await t.db.order.update({ where: { id: "waiting-1" }, data: { status: "failed" } });
    expect((await count(t.db)).failed).toBe(3);
    expect((await createOrderCounter({ finalMaxAgeMs: 60_000, now: () => clock })(t.db)).failed).toBe(4);
    // 0: the final states at every scrape.
    expect((await createOrderCounter({ finalMaxAgeMs: 0, now: () => clock })(t.db)).failed).toBe(4);
  });

  it("counts webhook deliveries the same way: pending at once, succeeded and failed when their count is old", async () => {
    await t.db.reseller.create({ data: { id: "r1", walletAddress: `0x${"12".repeat(20)}` } });
    await t.db.webhookEndpoint.create({
      data: { id: "e1", resellerId: "r1", url: "https://example.com/hook", events: '["*"]', secret: "whsec_x" },
    });
    await t.db.webhookMessage.create({ data: { id: "m1", resellerId: "r1", type: "order.created", payload: "{}" } });
    const delivery = (status: string) => ({ endpointId: "e1", messageId: "m1", orderingKey: "k", status });
    await t.db.webhookDelivery.createMany({ data: [delivery("pending"), delivery("pending"), delivery("pending"), delivery("succeeded")] });
    let clock = 0;
    const count = createWebhookDeliveryCounter({ finalMaxAgeMs: 10_000, now: () => clock });
    expect(await count(t.db)).toEqual({ pending: 3, succeeded: 1, failed: 0 });
    const [a, b] = await t.db.webhookDelivery.findMany({ where: { status: "pending" }, orderBy: { id: "asc" } });
    await t.db.webhookDelivery.update({ where: { id: a.id }, data: { status: "failed" } });
    await t.db.webhookDelivery.update({ where: { id: b.id }, data: { status: "succeeded" } });
    clock = 9_999;
    expect(await count(t.db)).toEqual({ pending: 1, succeeded: 1, failed: 0 });
    clock = 10_000;
    expect(await count(t.db)).toEqual({ pending: 1, succeeded: 2, failed: 1 });
  });
});

describe("countOrders' statements on SQLite", () => {
  let t: TempDb;
  let traced: Db;
  const statements: string[] = [];
  beforeAll(async () => {
    t = await tempSqlite();
    traced = createDb(t.url, undefined, { trace: (sql) => statements.push(sql) });
    await t.db.order.createMany({ data: [row("a", "waiting"), row("b", "finished")] });
  });
  afterAll(async () => {
    await traced?.$disconnect();
    await t?.cleanup();
  });

  const groupBys = () => statements.filter((s) => /GROUP BY/i.test(s));

  it("scrapes that arrive during a recount share it, and later ones read only the open states, by an index", async () => {
    let clock = 0;
    const count = createOrderCounter({ finalMaxAgeMs: 1_000, now: () => clock });
    statements.length = 0;
    const [a, b] = await Promise.all([count(traced), count(traced)]);
    expect(a).toEqual(b);
    expect(a.finished).toBe(1);
    // One recount of all states, and each scrape's count of the open ones.
    expect(groupBys().filter((s) => !/\bIN\b/i.test(s))).toHaveLength(1);
    expect(groupBys().filter((s) => /\bIN\b/i.test(s))).toHaveLength(2);

    statements.length = 0;
    clock += 999;
    await count(traced);
    const ran = groupBys();
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatch(/\bIN\b/i);
    const steps = queryPlan(t.url, ran[0]);
    expect(steps).toMatch(/^SEARCH (main\.)?"?Order"? USING (COVERING )?INDEX /m);
    expect(steps.split("\n").filter((d) => /^SCAN (main\.)?"?Order"?\b/.test(d))).toEqual([]);
  });
});
