import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import {
  ACTIVE_KEYS_PAGE,
  authenticateApiKey,
  createApiKey,
  hashApiKey,
  listApiKeys,
  MAX_ACTIVE_KEYS,
  REVOKED_KEYS_PAGE,
  revokeApiKey,
  rotateApiKey,
} from "@/lib/keys/api-keys";
import { getOrCreateReseller, setMarkup } from "@/lib/resellers/resellers";
import { queryPlan, tempSqlite, tracedStatements } from "../support/sqlite-db";

let db: Db;
let url: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ db, url, cleanup } = await tempSqlite()));
afterAll(() => cleanup());

const code = async (p: unknown) => {
  try {
    await p;
    return null;
  } catch (e) {
    return e instanceof AppError ? e.code : String(e);
  }
};

describe("API keys", () => {
  it("are random, prefixed, stored only as a hash, and authenticate", async () => {
    const r = await getOrCreateReseller(db, { walletAddress: "0x52908400098527886E0F7030069857D2E4169EE7" });
    const a = await createApiKey(db, { resellerId: r.id, name: "app" });
    const b = await createApiKey(db, { resellerId: r.id, name: "bot" });
    expect(a.key).toMatch(/^rsk_live_[1-9A-HJ-NP-Za-km-z]{30,}$/);
    expect(a.key).not.toBe(b.key);
    const rows = await db.apiKey.findMany();
    expect(JSON.stringify(rows)).not.toContain(a.key);
    expect(rows.find((k) => k.id === a.apiKey.id)?.hash).toBe(hashApiKey(a.key));
    expect(a.key.startsWith(a.apiKey.prefix)).toBe(true);
    expect(await authenticateApiKey(db, a.key)).toMatchObject({ resellerId: r.id, apiKeyId: a.apiKey.id, markupBps: 0 });
    expect(await code(authenticateApiKey(db, a.key.slice(0, -1) + (a.key.endsWith("z") ? "y" : "z")))).toBe("INVALID_API_KEY");
    expect(await code(authenticateApiKey(db, ""))).toBe("INVALID_API_KEY");
  });

  it("rotation: the new key works at once, the old one stops", async () => {
    const r = await getOrCreateReseller(db, { walletAddress: "0x0000000000000000000000000000000000000002" });
    const old = await createApiKey(db, { resellerId: r.id, name: "rot" });
    const fresh = await rotateApiKey(db, { resellerId: r.id, keyId: old.apiKey.id });
    expect(fresh.apiKey.name).toBe("rot");
    expect(await code(authenticateApiKey(db, old.key))).toBe("INVALID_API_KEY");
    expect((await authenticateApiKey(db, fresh.key)).apiKeyId).toBe(fresh.apiKey.id);
    expect((await listApiKeys(db, { resellerId: r.id })).items.map((k) => k.id)).toEqual([fresh.apiKey.id]);
    // Rotating or revoking a key twice, or another reseller's key, is a not-found.
    expect(await code(rotateApiKey(db, { resellerId: r.id, keyId: old.apiKey.id }))).toBe("NOT_FOUND");
    const other = await getOrCreateReseller(db, { walletAddress: "0x0000000000000000000000000000000000000003" });
    expect(await code(revokeApiKey(db, { resellerId: other.id, keyId: fresh.apiKey.id }))).toBe("NOT_FOUND");
    await revokeApiKey(db, { resellerId: r.id, keyId: fresh.apiKey.id });
    expect(await code(authenticateApiKey(db, fresh.key))).toBe("INVALID_API_KEY");
  });

  it("a key name is 1 to 64 characters", async () => {
    const r = await getOrCreateReseller(db, { walletAddress: "0x0000000000000000000000000000000000000004" });
    expect(await code(createApiKey(db, { resellerId: r.id, name: "  " }))).toBe("INVALID_REQUEST");
    expect(await code(createApiKey(db, { resellerId: r.id, name: "x".repeat(65) }))).toBe("INVALID_REQUEST");
  });
});

describe("API key pages", () => {
  // Keys written as rows: 3 active and 45 revoked, revoked 5 to a second (ties on revokedAt:
  // the order goes on by createdAt, then id), and another reseller's, which never show.
  let resellerId = "";
  let revokedInOrder: string[] = [];
  beforeAll(async () => {
    resellerId = (await getOrCreateReseller(db, { walletAddress: "0x00000000000000000000000000000000000000a1" })).id;
    const other = await getOrCreateReseller(db, { walletAddress: "0x00000000000000000000000000000000000000a2" });
    const t0 = Date.UTC(2026, 10, 1);
    const row = (i: number, owner: string, revokedAt: Date | null) => ({
      id: `pk${owner.slice(0, 6)}${String(i).padStart(4, "0")}`,
      resellerId: owner,
      name: `key ${i}`,
      prefix: `rsk_live_${owner.slice(0, 4)}${String(i).padStart(4, "0")}`,
      hash: `${owner}-${i}`,
      createdAt: new Date(t0 + i * 1000),
      revokedAt,
    });
    const mine = Array.from({ length: 48 }, (_, i) =>
      row(i, resellerId, i < 45 ? new Date(t0 + 86_400_000 + Math.floor(i / 5) * 1000) : null),
    );
    await db.apiKey.createMany({ data: [...mine, ...Array.from({ length: 30 }, (_, i) => row(i, other.id, i % 2 ? new Date(t0) : null))] });
    revokedInOrder = mine
      .filter((k) => k.revokedAt)
      .sort(
        (a, b) =>
          b.revokedAt!.getTime() - a.revokedAt!.getTime() || b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1),
      )
      .map((k) => k.id);
  });

  it("the active keys come on one page, newest first", async () => {
    const page = await listApiKeys(db, { resellerId });
    expect(page.items.map((k) => k.name)).toEqual(["key 47", "key 46", "key 45"]);
    expect([page.older, page.active]).toEqual([null, 3]);
  });

  it("the revoked keys come a page at a time, the last revoked first, each once, to the last page", async () => {
    const seen: string[] = [];
    let older: string | null = null;
    const sizes: number[] = [];
    do {
      const page = await listApiKeys(db, { resellerId, revoked: true, older });
      sizes.push(page.items.length);
      seen.push(...page.items.map((k) => k.id));
      expect(page.items.every((k) => k.revokedAt)).toBe(true);
      older = page.older;
    } while (older);
    expect(sizes).toEqual([REVOKED_KEYS_PAGE, REVOKED_KEYS_PAGE, 5]);
    expect(seen).toEqual(revokedInOrder);
  });

  it("a cursor that is not one of the list's is INVALID_REQUEST", async () => {
    const activeCursor = `${Date.UTC(2026, 10, 1)}_pkabc`;
    for (const [revoked, older] of [
      [true, "nonsense"],
      [true, activeCursor],
      [false, `1_${activeCursor}`],
      [false, `${"9".repeat(15)}_x`],
    ] as const)
      expect(await code(listApiKeys(db, { resellerId, revoked, older }))).toBe("INVALID_REQUEST");
  });

  it("each page is a range of the (resellerId, revokedAt, createdAt, id) index: no scan, no sort", async () => {
    const first = await listApiKeys(db, { resellerId, revoked: true });
    const statements = await tracedStatements(url, async (traced) => {
      await listApiKeys(traced, { resellerId });
      await listApiKeys(traced, { resellerId, revoked: true, older: first.older });
    });
    const pages = statements.filter((q) => /^\s*SELECT "id" FROM "ApiKey"/.test(q));
    expect(pages).toHaveLength(2);
    for (const q of pages) {
      const plan = queryPlan(url, q);
      expect(plan, q).toMatch(/USING COVERING INDEX ApiKey_resellerId_revokedAt_createdAt_id_idx/);
      expect(plan, q).not.toMatch(/TEMP B-TREE|SCAN/);
    }
  });
});

describe("the cap on active keys", () => {
  it(`at most ${MAX_ACTIVE_KEYS} active keys: the next is API_KEY_LIMIT_REACHED; a rotation replaces, a revocation frees a place`, async () => {
    const r = await getOrCreateReseller(db, { walletAddress: "0x00000000000000000000000000000000000000a3" });
    const made = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS; i++) made.push(await createApiKey(db, { resellerId: r.id, name: `k${i}` }));
    await expect(createApiKey(db, { resellerId: r.id, name: "one more" })).rejects.toMatchObject({
      code: "API_KEY_LIMIT_REACHED",
      details: { maxActiveKeys: MAX_ACTIVE_KEYS },
    });
    // The active keys, 50 a page: two pages, each key once.
    const first = await listApiKeys(db, { resellerId: r.id });
    expect([first.items.length, first.active]).toEqual([ACTIVE_KEYS_PAGE, MAX_ACTIVE_KEYS]);
    const second = await listApiKeys(db, { resellerId: r.id, older: first.older });
    expect([second.items.length, second.older]).toEqual([MAX_ACTIVE_KEYS - ACTIVE_KEYS_PAGE, null]);
    expect([...first.items, ...second.items].map((k) => k.id).sort()).toEqual(made.map((k) => k.apiKey.id).sort());
    await rotateApiKey(db, { resellerId: r.id, keyId: made[0].apiKey.id });
    expect(await db.apiKey.count({ where: { resellerId: r.id, revokedAt: null } })).toBe(MAX_ACTIVE_KEYS);
    expect(await code(createApiKey(db, { resellerId: r.id, name: "one more" }))).toBe("API_KEY_LIMIT_REACHED");
    await revokeApiKey(db, { resellerId: r.id, keyId: made[1].apiKey.id });
    await createApiKey(db, { resellerId: r.id, name: "in its place" });
    expect(await db.apiKey.count({ where: { resellerId: r.id, revokedAt: null } })).toBe(MAX_ACTIVE_KEYS);
    // A reseller that does not exist has no place for a key.
    expect(await code(createApiKey(db, { resellerId: "nobody", name: "x" }))).toBe("NOT_FOUND");
  });
});

describe("resellers", () => {
  it("one reseller per wallet, whatever the address's case", async () => {
    const a = await getOrCreateReseller(db, { walletAddress: "0xABCDEF0000000000000000000000000000000001" });
    const b = await getOrCreateReseller(db, { walletAddress: "0xabcdef0000000000000000000000000000000001" });
    expect(b.id).toBe(a.id);
    expect(a.walletAddress).toBe("0xabcdef0000000000000000000000000000000001");
    expect(await code(getOrCreateReseller(db, { walletAddress: "0x123" }))).toBe("INVALID_REQUEST");
  });

  it("markup is a whole number of bps from 0 to the cap (INVALID_MARKUP otherwise)", async () => {
    const r = await getOrCreateReseller(db, { walletAddress: "0x0000000000000000000000000000000000000005" });
    expect((await setMarkup(db, { resellerId: r.id, markupBps: 1000 })).markupBps).toBe(1000);
    expect((await setMarkup(db, { resellerId: r.id, markupBps: 0 })).markupBps).toBe(0);
    for (const bad of [-1, 1001, 1.5, Number.NaN])
      expect(await code(setMarkup(db, { resellerId: r.id, markupBps: bad }))).toBe("INVALID_MARKUP");
  });
});
