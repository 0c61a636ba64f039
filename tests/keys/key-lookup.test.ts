import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db, driverOf } from "@/lib/db/client";
import { authenticateApiKey, createApiKey, revokeApiKey } from "@/lib/keys/api-keys";
import { getOrCreateReseller, setMarkup } from "@/lib/resellers/resellers";
import { refusalOf } from "../support/app-error";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// A key is looked up on the bare driver (lib/keys/api-keys.ts), not through Prisma. What must
// hold: a change committed by another client (another process: a CLI `key:revoke`, another
// instance's dashboard) counts for the very next request of a client without a started key cache
// (lib/keys/key-cache.ts; the server's cache is tested in key-cache.test.ts): no stale read.

const code = async (p: unknown) => (await refusalOf(p)).code;

describe.each(["sqlite", "postgres"] as const)("API key lookup on the bare driver (%s)", (kind) => {
  let t: TempDb;
  let other: Db;
  beforeAll(async () => {
    t = await tempDatabase(kind);
    other = createDb(t.url); // a second client, as another process would have
  });
  afterAll(async () => {
    await other?.$disconnect();
    await t?.cleanup();
  });

  it("sees another client's revocation and markup change on the next request", async () => {
    const r = await getOrCreateReseller(t.db, { walletAddress: "0x52908400098527886E0F7030069857D2E4169EE7" });
    const { key, apiKey } = await createApiKey(t.db, { resellerId: r.id, name: "app" });
    expect(await authenticateApiKey(t.db, key)).toEqual({ apiKeyId: apiKey.id, resellerId: r.id, markupBps: 0 });
    await setMarkup(other, { resellerId: r.id, markupBps: 125 });
    expect((await authenticateApiKey(t.db, key)).markupBps).toBe(125);
    await revokeApiKey(other, { resellerId: r.id, keyId: apiKey.id });
    expect(await code(authenticateApiKey(t.db, key))).toBe("INVALID_API_KEY");
  });

  it("an unknown key is refused, and the lookup is by the key's hash (SQL injection is just an unknown key)", async () => {
    expect(await code(authenticateApiKey(t.db, "rsk_live_11111111111111111111111111"))).toBe("INVALID_API_KEY");
    expect(await code(authenticateApiKey(t.db, "rsk_live_' OR '1'='1"))).toBe("INVALID_API_KEY");
  });
});

describe("the SQLite reader connection", () => {
  it("is closed with the client", async () => {
    const t = await tempDatabase("sqlite");
    const driver = driverOf(t.db);
    if (driver.kind !== "sqlite") throw new Error("expected sqlite");
    const conn = driver.reader();
    expect(conn.open).toBe(true);
    expect(driver.reader()).toBe(conn); // one connection per client, not one per lookup
    await t.cleanup();
    expect(conn.open).toBe(false);
  });
});
