import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { CLI_ACTOR } from "@/lib/operators/audit";
import { addOperator } from "@/lib/operators/operators";
import { type RunningApp, startApp } from "../support/app";
import { type ConsoleClient, consoleClient } from "../support/console";
import { migratedDatabase, type TestDatabase } from "../support/server";

// An orphan upstream exchange (made at a provider, its order never told: lib/orders/intents.ts)
// stays in the console's queue until a support operator says it is handled, with a reason: then
// it leaves the queue, the dismissal is in the audit log, and the intent's own row is unchanged
// (the CLI's upstream:orphans still lists it).

const support = privateKeyToAccount(`0x${"d1".repeat(32)}`);
let database: TestDatabase;
let server: RunningApp;
let db: Db;
let client: ConsoleClient;

beforeAll(async () => {
  database = await migratedDatabase(inject("dbKind"));
  server = await startApp({ databaseUrl: database.url });
  db = createDb(database.url);
  await addOperator(db, { walletAddress: support.address, role: "support", by: CLI_ACTOR });
  client = await consoleClient(server.baseUrl, support);
});

afterAll(async () => {
  await db?.$disconnect();
  await server?.stop();
  await database?.drop();
});

const orphansInQueue = async () =>
  ((await client.call("/queue")).body.items as { kind: string; targetId: string }[])
    .filter((i) => i.kind === "upstream_orphan")
    .map((i) => i.targetId);

describe("dismissing an orphan upstream exchange", () => {
  it("takes it out of the queue with a reason, once, on the record; the intent's row stays as it was", async () => {
    const made = { orderId: "0123456789abcdef01234567", provider: "sideshift", externalId: "ext-1", upstreamId: "ss-orphan-1" };
    const abandoned = await db.upstreamIntent.create({
      data: { id: "intent-abandoned", ...made, outcome: "abandoned", resolvedAt: new Date() },
    });
    const unknown = await db.upstreamIntent.create({ data: { id: "intent-unknown", ...made, upstreamId: null, outcome: "unknown" } });
    await db.upstreamIntent.create({ data: { id: "intent-committed", ...made, outcome: "committed" } });
    expect((await orphansInQueue()).sort()).toEqual([abandoned.id, unknown.id]);

    expect((await client.call(`/upstream/${abandoned.id}/dismiss`, { body: {} })).status).toBe(400);
    const r = await client.call(`/upstream/${abandoned.id}/dismiss`, { body: { reason: "refunded by SideShift support, ticket 4411" } });
    expect([r.status, r.body]).toEqual([200, { changed: true }]);
    expect(await orphansInQueue()).toEqual([unknown.id]);
    expect((await client.call(`/upstream/${abandoned.id}/dismiss`, { body: { reason: "again" } })).body).toEqual({ changed: false });

    // Not an orphan (committed) or no such intent: 404, nothing recorded.
    expect((await client.call("/upstream/intent-committed/dismiss", { body: { reason: "x" } })).status).toBe(404);
    expect((await client.call("/upstream/no-such-intent/dismiss", { body: { reason: "x" } })).status).toBe(404);

    const log = await client.call("/audit?targetType=upstream_intent");
    expect(log.body.events).toHaveLength(1);
    expect(log.body.events[0]).toMatchObject({
      action: "upstream.dismiss",
      targetId: abandoned.id,
      actor: support.address.toLowerCase(),
      role: "support",
      reason: "refunded by SideShift support, ticket 4411",
      before: { provider: "sideshift", upstreamId: "ss-orphan-1", externalId: "ext-1", outcome: "abandoned" },
    });
    expect(await db.upstreamIntent.findUniqueOrThrow({ where: { id: abandoned.id } })).toMatchObject({ outcome: "abandoned" });
  });
});
