import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { authenticateApiKey, createApiKey, markResellerKeysChanged } from "@/lib/keys/api-keys";
import { startKeyCache, stopKeyCache } from "@/lib/keys/key-cache";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { refusalOf } from "../support/app-error";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// A suspension reaches the key cache of every process (issue 52): the database's key_cache
// triggers watch a reseller's markup and revocation, not suspendedAt, so the suspension's
// transaction announces it itself (markResellerKeysChanged: SQLite's version row, PostgreSQL's
// NOTIFY at commit). Here the change is made on another client, as another process would make
// it, and the cache's TTL is 10 minutes: only that announcement can make it apply in time. The
// same write without the announcement stays unseen (the control), which is why it is there.

const TTL_MS = 600_000;
const BOUND_MS = 5000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(["sqlite", "postgres"] as const)("a suspension announced to the key cache on %s", (kind) => {
  let t: TempDb;
  let other: Db;
  beforeAll(async () => {
    t = await tempDatabase(kind);
    other = createDb(t.url);
  });
  afterEach(async () => stopKeyCache(t.db));
  afterAll(async () => {
    await other?.$disconnect();
    await t?.cleanup();
  });

  const auth = (key: string) =>
    Promise.resolve(authenticateApiKey(t.db, key)).then(
      () => "OK",
      async (e) => (await refusalOf(Promise.reject(e))).code,
    );

  /** Reads until the answer is `want` or the bound passed; the last answer. */
  async function within(key: string, want: string) {
    const deadline = Date.now() + BOUND_MS;
    for (;;) {
      const got = await auth(key);
      if (got === want || Date.now() > deadline) return got;
      await sleep(20);
    }
  }

  it("applies within the bound when announced, and not before the TTL when not", async () => {
    await startKeyCache(t.db, { ttlMs: TTL_MS, invalidation: "postgres", databaseUrl: t.url, waitMs: 10_000 });
    const r = await getOrCreateReseller(t.db, { walletAddress: `0x${kind === "sqlite" ? "1" : "2"}${"a".repeat(39)}` });
    const { key } = await createApiKey(t.db, { resellerId: r.id, name: "k" });
    expect(await auth(key)).toBe("OK");
    expect(await auth(key)).toBe("OK"); // cached now

    // The control: suspendedAt written elsewhere, unannounced: the cache keeps serving the key.
    await other.reseller.update({ where: { id: r.id }, data: { suspendedAt: new Date() } });
    await sleep(300);
    expect(await auth(key)).toBe("OK");

    // Announced in the transaction of the change (here: of lifting and setting it again).
    await writeTransaction(other, async (tx) => {
      await tx.reseller.update({ where: { id: r.id }, data: { suspendedAt: new Date() } });
      await markResellerKeysChanged(tx, r.id);
    });
    expect(await within(key, "RESELLER_SUSPENDED")).toBe("RESELLER_SUSPENDED");

    await writeTransaction(other, async (tx) => {
      await tx.reseller.update({ where: { id: r.id }, data: { suspendedAt: null } });
      await markResellerKeysChanged(tx, r.id);
    });
    expect(await within(key, "OK")).toBe("OK");
  });
});
