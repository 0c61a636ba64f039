import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, makeReseller } from "../../support/api";
import { type RunningApp, startApp } from "../../support/app";

// Issue 13, item 4: the sandbox is the simulated engine's (off with any other engine) and is
// announced loudly at start; the engine fault switch is for keyed callers only, scoped to
// their reseller (a keyless switch was shared by everyone behind one proxy IP).

let s: RunningApp;
beforeAll(async () => {
  s = await startApp({ databaseUrl: inject("databaseUrl") });
});
afterAll(async () => {
  await s?.stop();
});

describe("sandbox in production", () => {
  it("is announced with a warning at start", () => {
    const warn = s
      .logs()
      .split("\n")
      .filter((l) => /"level":40/.test(l) && /sandbox/i.test(l));
    expect(warn.length, s.logs()).toBe(1);
  });

  it("the engine fault switch needs an API key", async () => {
    const ip = "203.0.113.44";
    const r = await api("/sandbox/engine", { body: { fault: "unavailable" }, ip });
    expect(r.status, r.text).toBe(401);
    expect(r.body.error.code).toBe("API_KEY_REQUIRED");
    // Nothing was switched for the callers behind that IP.
    expect((await api("/estimate?from=btc&to=eth&amount=0.1", { ip })).status).toBe(200);
  });

  it("a keyed switch affects only that reseller", async () => {
    const a = await makeReseller();
    const b = await makeReseller();
    try {
      expect((await api("/sandbox/engine", { key: a.key, body: { fault: "unavailable" } })).body).toMatchObject({ fault: "unavailable" });
      expect((await api("/estimate?from=btc&to=eth&amount=0.1", { key: a.key })).status).toBe(503);
      expect((await api("/estimate?from=btc&to=eth&amount=0.1", { key: b.key })).status).toBe(200);
      expect((await api("/estimate?from=btc&to=eth&amount=0.1")).status).toBe(200);
    } finally {
      await api("/sandbox/engine", { key: a.key, body: { fault: null } });
    }
  });
});
