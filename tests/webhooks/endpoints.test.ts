import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import {
  createEndpoint,
  listDeliveries,
  listEndpoints,
  rotateEndpointSecret,
  sendTestEvent,
  setEndpointEnabled,
} from "@/lib/webhooks/endpoints";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

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
});
