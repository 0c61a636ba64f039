import { describe, expect, it } from "vitest";
import { baseUrl, newIp } from "../support/api";

// How the v1 API's answers reach the socket (lib/http/app.ts writes them itself): lengths,
// empty answers, and the headers browsers need.
describe("v1 answers on the wire", () => {
  it("a JSON answer has an exact Content-Length and the CORS headers", async () => {
    const r = await fetch(`${baseUrl()}/estimate?from=btc&to=eth&amount=0.1`, { headers: { "x-forwarded-for": newIp() } });
    const bytes = Buffer.from(await r.arrayBuffer());
    expect(r.status).toBe(200);
    expect(Number(r.headers.get("content-length"))).toBe(bytes.length);
    expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(JSON.parse(bytes.toString("utf8")).fromCurrency).toBe("btc");
  });

  it("the currency list answers a conditional request with 304 and no body", async () => {
    const first = await fetch(`${baseUrl()}/currencies`, { headers: { "x-forwarded-for": newIp() } });
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^".+"$/);
    expect(Number(first.headers.get("content-length"))).toBe((await first.arrayBuffer()).byteLength);
    const again = await fetch(`${baseUrl()}/currencies`, { headers: { "x-forwarded-for": newIp(), "if-none-match": etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
  });

  it("routes: a trailing slash is the same route, a percent-encoded path is decoded, HEAD is GET without a body, other methods 405", async () => {
    const h = () => ({ "x-forwarded-for": newIp() });
    const slash = await fetch(`${baseUrl()}/currencies/`, { headers: h() });
    expect(slash.status).toBe(200);
    expect((await slash.json()).currencies.length).toBeGreaterThan(100);
    expect((await fetch(`${baseUrl()}/%63urrencies`, { headers: h() })).status).toBe(200);
    const order = await fetch(`${baseUrl()}/exchange/0123456789abcdef01234567/`, { headers: h() });
    expect([order.status, (await order.json()).error.code]).toEqual([404, "ORDER_NOT_FOUND"]);
    const head = await fetch(`${baseUrl()}/currencies`, { method: "HEAD", headers: h() });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(1000);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const put = await fetch(`${baseUrl()}/currencies`, { method: "PUT", headers: h() });
    expect([put.status, put.headers.get("allow"), (await put.json()).error.code]).toEqual([405, "GET, OPTIONS", "METHOD_NOT_ALLOWED"]);
    const healthz = await fetch(`${baseUrl("")}/healthz/`);
    expect([healthz.status, (await healthz.json()).status]).toEqual([200, "ok"]);
  });

  it("a CORS preflight grants reads to any site, and writes only to requests that will carry an X-API-Key", async () => {
    const preflight = (method: string, headers?: string) =>
      fetch(`${baseUrl()}/exchange`, {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example",
          "access-control-request-method": method,
          ...(headers ? { "access-control-request-headers": headers } : {}),
          "x-forwarded-for": newIp(),
        },
      });
    const read = await preflight("GET", "if-none-match");
    expect(read.status).toBe(204);
    expect(read.headers.get("access-control-allow-origin")).toBe("*");
    expect(read.headers.get("access-control-allow-methods")).toBe("GET, OPTIONS");
    expect((await read.arrayBuffer()).byteLength).toBe(0);

    const keyed = await preflight("POST", "content-type,x-api-key,idempotency-key");
    expect(keyed.status).toBe(204);
    expect(keyed.headers.get("access-control-allow-methods")).toBe("GET, POST, OPTIONS");
    expect(keyed.headers.get("access-control-allow-headers")).toContain("X-API-Key");

    // A keyless write from another site: no Access-Control-Allow-* header, so the browser never sends it.
    for (const headers of ["content-type", undefined, "content-type, idempotency-key"]) {
      const keyless = await preflight("POST", headers);
      expect(keyless.status).toBe(403);
      expect(keyless.headers.get("access-control-allow-origin")).toBeNull();
      expect(keyless.headers.get("access-control-allow-methods")).toBeNull();
      expect((await keyless.json()).error.code).toBe("FORBIDDEN_ORIGIN");
    }
  });
});
