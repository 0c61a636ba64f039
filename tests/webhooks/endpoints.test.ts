import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import {
  createEndpoint,
  DELIVERIES_PAGE,
  deliveryPage,
  listDeliveries,
  listEndpoints,
  rotateEndpointSecret,
  sendTestEvent,
  setEndpointEnabled,
} from "@/lib/webhooks/endpoints";
import { queryPlan, type TempDb, tempDatabase, tracedStatements } from "../support/sqlite-db";

// The dashboard's webhook management, scoped by reseller: another reseller's endpoint is
// NOT_FOUND for every operation; the secret is returned at creation and rotation only.

describe("webhook endpoints", () => {
  let t: TempDb;
  let db: Db;
  beforeAll(async () => {
    t = await tempDatabase("sqlite");
    db = t.db;
  });
  afterAll(() => t.cleanup());

  it("are the reseller's own; the secret is shown only when made; filters and URLs are checked", async () => {
    const a = await db.reseller.create({ data: { id: "ra", walletAddress: `0x${"a".repeat(40)}` } });
    const b = await db.reseller.create({ data: { id: "rb", walletAddress: `0x${"b".repeat(40)}` } });
    const made = await createEndpoint(db, { resellerId: a.id, url: "https://example.com/h", events: ["order.created", "order.created"] });
    expect(made.secret).toMatch(/^whsec_/);
    expect(made.endpoint).toMatchObject({ url: "https://example.com/h", events: ["order.created"], enabled: true });
    expect(JSON.stringify(await listEndpoints(db, a.id))).not.toContain(made.secret);
    expect(await listEndpoints(db, b.id)).toEqual([]);

    const id = made.endpoint.id;
    for (const op of [
      () => rotateEndpointSecret(db, { resellerId: b.id, endpointId: id }),
      () => setEndpointEnabled(db, { resellerId: b.id, endpointId: id, enabled: false }),
      () => sendTestEvent(db, { resellerId: b.id, endpointId: id }),
      () => listDeliveries(db, { resellerId: b.id, endpointId: id }),
    ])
      await expect(op()).rejects.toMatchObject({ code: "NOT_FOUND" });

    const rotated = await rotateEndpointSecret(db, { resellerId: a.id, endpointId: id });
    expect(rotated.secret).not.toBe(made.secret);
    expect(rotated.endpoint.previousSecretUntil).not.toBeNull();

    await expect(setEndpointEnabled(db, { resellerId: a.id, endpointId: id, enabled: false })).resolves.toMatchObject({
      enabled: false,
      disabledReason: "Disabled in the dashboard.",
    });
    await expect(sendTestEvent(db, { resellerId: a.id, endpointId: id })).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await setEndpointEnabled(db, { resellerId: a.id, endpointId: id, enabled: true });
    await sendTestEvent(db, { resellerId: a.id, endpointId: id });
    expect((await listDeliveries(db, { resellerId: a.id, endpointId: id })).map((d) => [d.type, d.status])).toEqual([
      ["webhook.test", "pending"],
    ]);

    for (const events of [[], ["order.deleted"], "order.created", null])
      await expect(createEndpoint(db, { resellerId: a.id, url: "https://example.com/x", events })).rejects.toMatchObject({
        code: "INVALID_REQUEST",
      });
    for (const url of ["http://10.0.0.1/", "ftp://example.com/", "javascript:alert(1)"])
      await expect(createEndpoint(db, { resellerId: a.id, url, events: ["*"], allowPrivate: false })).rejects.toMatchObject({
        code: "INVALID_REQUEST",
      });
  });

  it("the delivery log comes a page at a time, newest first, each delivery once, by an index range", async () => {
    const r = await db.reseller.create({ data: { id: "rc", walletAddress: `0x${"c".repeat(40)}` } });
    const { endpoint } = await createEndpoint(db, { resellerId: r.id, url: "https://example.com/log", events: ["*"] });
    const other = await createEndpoint(db, { resellerId: r.id, url: "https://example.com/other", events: ["*"] });
    const made: string[] = [];
    for (let i = 0; i < 2 * DELIVERIES_PAGE + 5; i++) {
      made.push(await sendTestEvent(db, { resellerId: r.id, endpointId: endpoint.id }));
      if (i % 4 === 0) await sendTestEvent(db, { resellerId: r.id, endpointId: other.endpoint.id });
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let older: string | null = null;
    do {
      const page = await deliveryPage(db, { resellerId: r.id, endpointId: endpoint.id, older });
      sizes.push(page.items.length);
      seen.push(...page.items.map((d) => d.messageId));
      older = page.older;
    } while (older);
    expect(sizes).toEqual([DELIVERIES_PAGE, DELIVERIES_PAGE, 5]);
    expect(seen).toEqual([...made].reverse());
    // Another reseller's endpoint, or a cursor that is not one, is refused.
    await expect(deliveryPage(db, { resellerId: "ra", endpointId: endpoint.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(deliveryPage(db, { resellerId: r.id, endpointId: endpoint.id, older: "x" })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    // Each page is a range of the (endpointId, createdAt) index (its entries end with the id): no scan, no sort.
    const first = await deliveryPage(db, { resellerId: r.id, endpointId: endpoint.id });
    const statements = await tracedStatements(t.url, (traced) =>
      listDeliveries(traced, { resellerId: r.id, endpointId: endpoint.id, older: first.older }),
    );
    const page = statements.filter((q) => /^\s*SELECT "id" FROM "WebhookDelivery"/.test(q));
    expect(page).toHaveLength(1);
    const plan = queryPlan(t.url, page[0]);
    expect(plan).toMatch(/USING COVERING INDEX WebhookDelivery_endpointId_createdAt_idx/);
    expect(plan).not.toMatch(/TEMP B-TREE|SCAN/);
  });

  it("at most 10 endpoints, also when they are created at once", async () => {
    const r = await db.reseller.create({ data: { id: "rd", walletAddress: `0x${"d".repeat(40)}` } });
    for (let i = 0; i < 8; i++) await createEndpoint(db, { resellerId: r.id, url: `https://example.com/${i}`, events: ["*"] });
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => createEndpoint(db, { resellerId: r.id, url: `https://example.com/at-once/${i}`, events: ["*"] })),
    );
    expect(results.filter((x) => x.status === "fulfilled")).toHaveLength(2);
    for (const x of results.filter((y) => y.status === "rejected")) expect(x.reason).toMatchObject({ code: "INVALID_REQUEST" });
    expect(await db.webhookEndpoint.count({ where: { resellerId: r.id } })).toBe(10);
  });
});
