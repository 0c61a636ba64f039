import { describe, expect, inject, it } from "vitest";
import { newIp } from "../support/api";

// The dashboard's HTTP surface as a client without a session sees it (the signed-in
// flows are the Playwright tests in tests/e2e).
const origin = () => inject("baseUrl");

describe("dashboard HTTP surface", () => {
  it("sign-in nonces are single answers, not cached, and rate limited per client IP", async () => {
    const ip = newIp();
    const ask = () => fetch(`${origin()}/api/auth/nonce`, { method: "POST", headers: { "x-forwarded-for": ip } });
    const nonces = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const r = await ask();
      expect(r.status).toBe(200);
      expect(r.headers.get("cache-control")).toBe("no-store");
      nonces.add((await r.json()).nonce);
    }
    expect(nonces.size).toBe(30);
    const over = await ask();
    expect(over.status, await over.clone().text()).toBe(429);
    expect((await over.json()).error.code).toBe("RATE_LIMITED");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another client is unaffected.
    expect((await fetch(`${origin()}/api/auth/nonce`, { method: "POST", headers: { "x-forwarded-for": newIp() } })).status).toBe(200);
  });

  it("dashboard data needs a session; pages redirect to sign-in; pages cannot be framed", async () => {
    const data = await fetch(`${origin()}/dashboard/export/orders`);
    expect(data.status).toBe(401);
    expect((await data.json()).error.code).toBe("UNAUTHORIZED");
    // The reads (GET /dashboard/api/<read>) need one too: a 401, never a redirect to a page.
    const read = await fetch(`${origin()}/dashboard/api/overview?days=30`, { redirect: "manual" });
    expect([read.status, (await read.json()).error.code]).toEqual([401, "UNAUTHORIZED"]);
    const page = await fetch(`${origin()}/dashboard`, { redirect: "manual" });
    expect([302, 303, 307, 308]).toContain(page.status);
    expect(page.headers.get("location")).toMatch(/\/signin/);
    const signin = await fetch(`${origin()}/signin`);
    expect(signin.status).toBe(200);
    expect(signin.headers.get("x-frame-options")).toBe("DENY");
    expect(signin.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });

  it("the nonce answer says where contract wallets can sign in: nowhere without SIWE_RPC_URL", async () => {
    const r = await fetch(`${origin()}/api/auth/nonce`, { method: "POST", headers: { "x-forwarded-for": newIp() } });
    const body = await r.json();
    expect(body).toMatchObject({ chainIds: [1], contractWalletChainIds: [] });
    expect(body.nonce).toMatch(/^[0-9a-f]{32}$/);
  });

  it("the sign-in page ships neither ethers nor siwe to the browser (they verify on the server)", async () => {
    const html = await (await fetch(`${origin()}/signin`)).text();
    const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, "&"));
    expect(scripts.length).toBeGreaterThan(0);
    let js = "";
    for (const src of scripts) js += await (await fetch(new URL(src, origin()))).text();
    // The page does build its message with viem: the check looks at the right bundle.
    expect(js).toContain("wants you to sign in with your Ethereum account");
    // String literals that minification keeps: ethers' error helper and siwe's error texts.
    expect(js).not.toContain("value will overwrite populated values");
    expect(js).not.toContain("Signature does not match address of the message");
  });
});
