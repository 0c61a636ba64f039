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
    const data = await fetch(`${origin()}/dashboard/api/overview`);
    expect(data.status).toBe(401);
    expect((await data.json()).error.code).toBe("UNAUTHORIZED");
    const page = await fetch(`${origin()}/dashboard`, { redirect: "manual" });
    expect([302, 303, 307, 308]).toContain(page.status);
    expect(page.headers.get("location")).toMatch(/\/signin/);
    const signin = await fetch(`${origin()}/signin`);
    expect(signin.status).toBe(200);
    expect(signin.headers.get("x-frame-options")).toBe("DENY");
    expect(signin.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});
