import { describe, expect, inject, it } from "vitest";
import { newIp } from "../support/api";

// The process loads lib/ once (docs/architecture.md, One copy of the service layer): server.ts and the dashboard both load
// lib/dist/index.mjs through Node. lib/instance.ts draws a random id when it is loaded, so
// a second copy of lib/ (say, bundled into one of Next's server layers) would answer with
// another id than the API's.
const origin = () => inject("baseUrl");

describe("one copy of the service layer in the process", () => {
  it("the v1 API side reports its instance id", async () => {
    const health = await (await fetch(`${origin()}/healthz`)).json();
    expect(health).toEqual({ status: "ok", instance: expect.stringMatching(/^[0-9a-f]{16}$/) });
    // Stable across requests: a module-level value, not one per request.
    expect((await (await fetch(`${origin()}/healthz`)).json()).instance).toBe(health.instance);
  });

  it.skipIf(process.env.TEST_API_ONLY === "1")("a dashboard route handler and a dashboard page use the API's instance", async () => {
    const { instance } = await (await fetch(`${origin()}/healthz`)).json();
    // A route handler (Next's route layer).
    const nonce = await fetch(`${origin()}/api/auth/nonce`, { method: "POST", headers: { "x-forwarded-for": newIp() } });
    expect(nonce.status).toBe(200);
    expect(nonce.headers.get("service-instance")).toBe(instance);
    // A server-rendered page (Next's React Server Components layer).
    const page = await (await fetch(`${origin()}/signin`)).text();
    expect(page.match(/<meta name="service-instance" content="([0-9a-f]+)"/)?.[1]).toBe(instance);
  });
});
