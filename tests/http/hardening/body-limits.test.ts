import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { isErrorShape, sleep } from "../../support/api";
import { type RunningServer, startServer } from "../../support/server";
import { chunkedPost, collect, connect, rssMb, statusOf } from "./raw";

// Issue 13, items 3 and 7: every route, next-auth's included, refuses a body over
// MAX_BODY_BYTES before buffering it (413), a malformed sign-in body is a 400, and neither a
// client's mistake nor a client that drops mid-body is logged as a server error.

let s: RunningServer;
beforeAll(async () => {
  s = await startServer({ databaseUrl: inject("databaseUrl"), env: { LOG_LEVEL: "info" } });
});
afterAll(async () => {
  await s?.stop();
});

const errorLines = () =>
  s
    .logs()
    .split("\n")
    .filter((l) => /"level":(50|60)/.test(l) || /^\s+at /.test(l) || /⨯/.test(l));

describe("request bodies", () => {
  it("a chunked 40 MB POST to the sign-in callback is refused with 413 after at most a few chunks", async () => {
    const total = 40 * 1024 * 1024;
    const results = await Promise.all(Array.from({ length: 5 }, () => chunkedPost(s.port, "/api/auth/callback/siwe", total)));
    for (const r of results) {
      expect(r.status, r.text.slice(0, 300)).toBe(413);
      // Answered before the client could send it all (not how soon: that depends on the machine).
      expect(r.sent).toBeLessThan(total);
      expect(isErrorShape(JSON.parse(r.text.slice(r.text.indexOf("\r\n\r\n") + 4)))).toBe(true);
    }
  });

  it("clients that ignore the 413 and keep sending 40 MB are cut off before they send it all; memory stays flat", async () => {
    // The first request to this route loads next-auth's code into the server: warm it up, so
    // that what is measured below is the bodies only.
    expect((await chunkedPost(s.port, "/api/auth/callback/siwe", 1024 * 1024)).status).toBe(413);
    const before = rssMb(s.pid);
    const total = 40 * 1024 * 1024;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => chunkedPost(s.port, "/api/auth/callback/siwe", total, undefined, { ignoreAnswer: true })),
    );
    for (const r of results) {
      expect(r.status).toBe(413);
      // The server closes the connection once its answer is out: the rest is never read.
      expect(r.sent).toBeLessThan(total);
    }
    // So memory cannot hold 200 MB of bodies. RSS also counts garbage not yet collected:
    // the bound is loose on purpose (an earlier version of this check, with up to 80 MB
    // read, measured 9-101 MB of growth, depending on the machine's load).
    expect(rssMb(s.pid) - before).toBeLessThan(100);
  });

  it("a chunked body over the limit on the v1 API is refused with 413 in the error shape, and the client reads it", async () => {
    for (const path of ["/api/v1/exchange", "/v1/exchange"]) {
      // 64 MB: more than the kernel's socket buffers hold, so a client that waits for them to
      // drain can only send it all to a server that reads it all. How soon the answer comes
      // depends on the machine; that it comes first does not.
      const total = 64 * 1024 * 1024;
      const r = await chunkedPost(s.port, path, total, "application/json");
      expect(r.status, `${path}: ${r.text.slice(0, 300)}`).toBe(413);
      expect(r.sent).toBeLessThan(total);
      const body = JSON.parse(r.text.slice(r.text.indexOf("\r\n\r\n") + 4));
      expect(body.error.code).toBe("PAYLOAD_TOO_LARGE");
    }
  });

  it("a declared Content-Length over the limit is refused at once on a dashboard route and a server action", async () => {
    for (const path of ["/api/auth/callback/siwe", "/api/auth/nonce", "/dashboard/settings", "/signin"]) {
      const c = await connect(s.port);
      c.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100000000\r\nNext-Action: 00\r\n\r\n`);
      const r = await collect(c, 5000);
      c.destroy();
      expect(statusOf(r.text), `${path}: ${r.text.slice(0, 200)}`).toBe(413);
    }
  });

  it("a malformed sign-in body is a 400 in the error shape, with no stack trace in the log", async () => {
    for (const [ct, body] of [
      ["application/json", '{"message":'],
      ["application/json", "[1,2"],
      ["application/json", "\u0000\u0001"],
    ]) {
      const res = await fetch(`${s.baseUrl}/api/auth/callback/siwe`, { method: "POST", headers: { "content-type": ct }, body });
      const text = await res.text();
      expect(res.status, text).toBe(400);
      expect(isErrorShape(JSON.parse(text)), text).toBe(true);
    }
    await sleep(200);
    expect(errorLines()).toEqual([]);
  });

  it("clients that drop mid-body are not logged as server errors (item 7)", async () => {
    for (const path of ["/api/v1/exchange", "/api/auth/callback/siwe", "/api/auth/nonce"]) {
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          const c = await connect(s.port);
          c.on("error", () => {});
          c.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"from":"btc"`);
          await sleep(100);
          c.destroy();
        }),
      );
    }
    await sleep(500);
    expect(errorLines()).toEqual([]);
    // And the server is still fine.
    expect((await fetch(`${s.baseUrl}/api/v1/currencies`, { headers: { "x-forwarded-for": "203.0.113.5" } })).status).toBe(200);
  });
});
