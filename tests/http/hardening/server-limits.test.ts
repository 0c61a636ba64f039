import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sleep } from "../../support/api";
import { type RunningApp, startApp } from "../../support/app";
import { collect, connect } from "./raw";

// Issue 13, item 8: slow clients cannot hold a connection for minutes, and the number of
// open connections has a cap (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_MAX_CONNECTIONS).

let s: RunningApp;
beforeAll(async () => {
  s = await startApp({
    databaseUrl: inject("databaseUrl"),
    env: { HTTP_HEADERS_TIMEOUT_MS: "1000", HTTP_REQUEST_TIMEOUT_MS: "2000", HTTP_MAX_CONNECTIONS: "6", SERVE_DASHBOARD: "false" },
  });
});
afterAll(async () => {
  await s?.stop();
});

describe("server limits", () => {
  it("a client that never finishes its headers is cut off after HTTP_HEADERS_TIMEOUT_MS", async () => {
    const c = await connect(s.port);
    c.write("GET /api/v1/currencies HTTP/1.1\r\nHost: x\r\n");
    // The wait is only a bound on the test: the server's timeout answers 408 and closes.
    const r = await collect(c, 60_000);
    c.destroy();
    expect(r.closed).toBe(true);
    expect(r.text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("a client that sends its body one byte at a time is cut off after HTTP_REQUEST_TIMEOUT_MS", async () => {
    const c = await connect(s.port);
    c.on("error", () => {});
    c.write("POST /api/v1/exchange HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{");
    const drip = setInterval(() => c.writable && c.write(" "), 200);
    const r = await collect(c, 60_000);
    clearInterval(drip);
    c.destroy();
    expect(r.closed).toBe(true);
    expect(r.text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("connections over HTTP_MAX_CONNECTIONS are closed at once; the server serves again when they go", async () => {
    const idle = [];
    for (let i = 0; i < 6; i++) idle.push(await connect(s.port));
    await sleep(100);
    const extra = await connect(s.port);
    const r = await collect(extra, 3000);
    expect(r.closed).toBe(true);
    expect(r.text).toBe("");
    for (const c of idle) c.destroy();
    extra.destroy();
    await sleep(200);
    expect((await fetch(`${s.baseUrl}/api/v1/currencies`, { headers: { "x-forwarded-for": "203.0.113.9" } })).status).toBe(200);
  });
});
