import { describe, expect, inject, it } from "vitest";
import { addressFor, api, makeReseller, newIp } from "../../support/api";

// The v1 API's browser policy (docs/api.md, Browsers; issue 48): any site may read, and may
// write with an API key; a keyless write sent by a browser from another site is refused, so a
// foreign page cannot create orders from its visitors' browsers on their IP's quota. The
// preflight half is in tests/http/wire.test.ts, the browser itself in tests/e2e/browser-policy.spec.ts.

const order = () => ({ from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") });
const appOrigin = () => new URL(inject("baseUrl")).origin.replace("127.0.0.1", "localhost");

describe("keyless POSTs from other sites", () => {
  it("are refused with FORBIDDEN_ORIGIN, the sandbox deposit too", async () => {
    const ip = newIp();
    for (const headers of <Record<string, string>[]>[
      { origin: "https://shop.example" },
      { origin: "null" }, // a sandboxed frame, a data: page
      { origin: "http://localhost:1" }, // this host, another port: another origin
      { "sec-fetch-site": "cross-site" },
      { origin: "https://shop.example", "content-type": "application/json; charset=utf-8" },
    ]) {
      const r = await api("/exchange", { ip, body: order(), headers });
      expect([r.status, r.body.error.code]).toEqual([403, "FORBIDDEN_ORIGIN"]);
      expect(r.headers.get("ratelimit")).not.toBeNull(); // counted like any request
    }
    const ok = await api("/exchange", { ip, body: order() });
    expect(ok.status).toBe(201);
    const id = ok.body.id as string;
    // The sandbox's deposit is a write too.
    const deposit = await api(`/sandbox/exchange/${id}/deposit`, { ip, method: "POST", headers: { origin: "https://shop.example" } });
    expect([deposit.status, deposit.body.error.code]).toEqual([403, "FORBIDDEN_ORIGIN"]);
  });

  it("pass with an API key, from the app's own origin, or with no Origin at all (a server)", async () => {
    const { key } = await makeReseller();
    const keyed = await api("/exchange", {
      key,
      body: order(),
      headers: { origin: "https://shop.example", "sec-fetch-site": "cross-site" },
    });
    expect(keyed.status).toBe(201);
    expect(keyed.headers.get("access-control-allow-origin")).toBe("*");
    expect((await api("/exchange", { body: order(), headers: { origin: appOrigin() } })).status).toBe(201);
    expect((await api("/exchange", { body: order() })).status).toBe(201);
  });

  it("reads stay open to every site", async () => {
    const r = await api("/estimate?from=btc&to=eth&amount=0.1", {
      headers: { origin: "https://shop.example", "sec-fetch-site": "cross-site" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
  });
});
