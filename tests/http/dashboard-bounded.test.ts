import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { testDb } from "../support/api";
import { type ReadCall, readDashboard, signInOverHttp } from "../support/dashboard";

// Issue 48: no dashboard page's cost may grow with a tenant's data beyond one page. A reseller
// with the cap's 100 active keys, 600 revoked ones and the 50 widgets of the cap (written as rows):
// no page carries the revoked keys, the Keys page carries one page of the active ones, the
// revoked ones come 20 a page to the last, the Orders page's channel filter offers the active
// keys and widgets (and a revoked key only when it is the one asked for), and the Overview's
// Channels card lists 20 channels and sums the rest.

const origin = () => inject("baseUrl");
const ACTIVE = 100;
const REVOKED = 600;
const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const id = (prefix: string, n: number) => `${prefix}${B58[Math.floor(n / 58) % 58]}${B58[n % 58]}`;

describe("a tenant with many keys", () => {
  const wallet = privateKeyToAccount(generatePrivateKey());
  let cookie = "";
  let tag = "";
  const page = async (path: string) => {
    const r = await fetch(`${origin()}${path}`, { headers: { cookie }, redirect: "manual" });
    expect(r.status, path).toBe(200);
    return r.text();
  };

  beforeAll(async () => {
    const signedIn = await signInOverHttp(origin(), wallet);
    expect(signedIn.error).toBeNull();
    cookie = signedIn.cookie;
    const r = (await getResellerByWallet(testDb(), { walletAddress: wallet.address }))!;
    tag = r.id.slice(0, 6);
    const t0 = Date.UTC(2026, 10, 1);
    const key = (n: number, revoked: boolean) => ({
      id: id(`${tag}${revoked ? "R" : "A"}`, n),
      resellerId: r.id,
      name: `${revoked ? "revoked" : "active"} key ${n}`,
      prefix: `rsk_live_${tag}${revoked ? "R" : "A"}${String(n).padStart(4, "0")}`,
      hash: `${r.id}-${revoked ? "R" : "A"}-${n}`,
      createdAt: new Date(t0 + n * 60_000),
      revokedAt: revoked ? new Date(t0 + 86_400_000 + n * 60_000) : null,
    });
    await testDb().apiKey.createMany({
      data: [...Array.from({ length: ACTIVE }, (_, n) => key(n, false)), ...Array.from({ length: REVOKED }, (_, n) => key(n, true))],
    });
    await testDb().widget.createMany({
      data: Array.from({ length: 50 }, (_, n) => ({ id: id(`${tag}W`, n), resellerId: r.id, name: `widget ${n}` })),
    });
  });

  it("no page carries the revoked keys; the Keys page carries one page of the active ones", async () => {
    for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/orders", "/dashboard/widgets"]) {
      const html = await page(path);
      expect(html, path).not.toContain("revoked key ");
      expect(html.length, path).toBeLessThan(200 * 1024);
    }
    const keys = await page("/dashboard/keys");
    expect(keys.match(/data-testid="key-row"/g)).toHaveLength(50);
    expect(keys).toContain("Active keys: 100 of at most 100");
  });

  it("the active keys come 50 a page and the revoked ones 20 a page, each once, to the last page", async () => {
    const walk = async (revoked: boolean) => {
      const seen: string[] = [];
      const sizes: number[] = [];
      let older: string | null = null;
      do {
        const r: ReadCall = await readDashboard(origin(), cookie, "keys", { revoked, older: older ?? undefined });
        expect(r.status).toBe(200);
        sizes.push(r.body.items.length);
        seen.push(...r.body.items.map((k: { id: string }) => k.id));
        older = r.body.older;
      } while (older);
      expect(new Set(seen).size).toBe(seen.length);
      return { seen, sizes };
    };
    expect((await walk(false)).sizes).toEqual([50, 50]);
    const revoked = await walk(true);
    expect(revoked.sizes).toEqual([...Array(REVOKED / 20).fill(20)]);
    // The last revoked first.
    expect(revoked.seen[0]).toBe(id(`${tag}R`, REVOKED - 1));
    expect(revoked.seen.at(-1)).toBe(id(`${tag}R`, 0));
  });

  it("the Orders page's channel filter offers the active keys and the widgets, and a revoked key only when asked for", async () => {
    const html = await page("/dashboard/orders");
    expect(html.match(/<option value="key:/g)).toHaveLength(ACTIVE);
    expect(html.match(/<option value="widget:/g)).toHaveLength(50);
    const one = id(`${tag}R`, 7);
    const filtered = await page(`/dashboard/orders?channel=key:${one}`);
    expect(filtered).toContain(`<option value="key:${one}"`);
    expect(filtered).toContain("revoked key 7");
    expect(filtered).not.toContain("revoked key 8");
  });

  it("the Overview's Channels card lists 20 channels and sums the others into one row", async () => {
    const r = (await readDashboard(origin(), cookie, "channels", { days: 30 })).body;
    expect(r.channels).toHaveLength(20);
    expect(r.others).toMatchObject({ channels: ACTIVE + 50 - 20, orders: 0 });
  });
});
