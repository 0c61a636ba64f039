import { describe, expect, inject, it } from "vitest";
import { startServer } from "../../support/server";

// Issue 13, item 9: the dashboard's pages carry a Content-Security-Policy with
// default-src 'self' and a fresh nonce for its scripts; with an https APP_URL, HSTS and
// Secure cookies.

const base = () => inject("baseUrl");

function cspOf(res: Response): Map<string, string[]> {
  const csp = res.headers.get("content-security-policy") ?? "";
  return new Map(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  );
}

describe("dashboard headers", () => {
  it("pages have a CSP with default-src 'self' and a per-response script nonce that every script tag carries", async () => {
    const nonces: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${base()}/signin`);
      const html = await res.text();
      expect(res.status).toBe(200);
      const csp = cspOf(res);
      expect(csp.get("default-src")).toEqual(["'self'"]);
      expect(csp.get("object-src")).toEqual(["'none'"]);
      expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
      const script = csp.get("script-src") ?? [];
      expect(script).not.toContain("'unsafe-inline'");
      const nonce = script.find((v) => v.startsWith("'nonce-"))?.slice(7, -1);
      expect(nonce, script.join(" ")).toMatch(/^[A-Za-z0-9+/=_-]{16,}$/);
      nonces.push(nonce ?? "");
      const tags = html.match(/<script\b[^>]*>/g) ?? [];
      expect(tags.length).toBeGreaterThan(0);
      for (const t of tags) expect(t).toContain(`nonce="${nonce}"`);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
    // Plain http: no HSTS.
    expect((await fetch(`${base()}/signin`)).headers.get("strict-transport-security")).toBeNull();
  });

  it("with an https APP_URL: HSTS on every answer and only Secure cookies", async () => {
    const s = await startServer({ databaseUrl: inject("databaseUrl"), env: { APP_URL: "https://reseller.example" } });
    try {
      for (const p of ["/signin", "/api/auth/csrf", "/api/v1/currencies", "/healthz"]) {
        const res = await fetch(`${s.baseUrl}${p}`, { headers: { "x-forwarded-for": "203.0.113.12" } });
        expect(res.headers.get("strict-transport-security"), p).toMatch(/^max-age=\d{7,}/);
      }
      const res = await fetch(`${s.baseUrl}/api/auth/csrf`);
      const cookies = res.headers.getSetCookie();
      expect(cookies.length).toBeGreaterThan(0);
      for (const c of cookies) expect(c).toMatch(/;\s*Secure/i);
    } finally {
      await s.stop();
    }
  });
});
