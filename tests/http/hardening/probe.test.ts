import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { addressFor, isErrorShape, makeReseller, newIp } from "../../support/api";
import { type RunningServer, startServer } from "../../support/server";
import { collect, connect, rssMb, statusOf } from "./raw";

// Issue 27: the cases a hostile black-box probe found, each answered with a 4xx in the
// spec's error shape, with the server's memory flat. (How fast they are answered is measured
// by bench/hardening-probe.mjs, not asserted here.)

let s: RunningServer;
let before = 0;

beforeAll(async () => {
  // Collections every second (a test-only preload), so that resident memory measures what the
  // server keeps, as in tests/http/dashboard-fuzz.test.ts.
  const probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "probe-gc-")), "gc.cjs");
  fs.writeFileSync(probe, "setInterval(() => globalThis.gc(), 1000).unref();\n");
  s = await startServer({ databaseUrl: inject("databaseUrl"), env: { NODE_OPTIONS: `--expose-gc --require ${probe}` } });
  // Warm up the paths below before the baseline.
  for (let i = 0; i < 20; i++) {
    await post("/api/v1/exchange", { from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") });
    await fetch(`${s.baseUrl}/signin`);
  }
  before = rssMb(s.pid);
});
afterAll(async () => {
  await s?.stop();
});

interface Answer {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

async function send(
  method: string,
  p: string,
  init: { body?: string | Uint8Array<ArrayBuffer>; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(s.baseUrl + p, { method, body: init.body, headers: { "x-forwarded-for": newIp(), ...init.headers } });
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, text, body, headers: res.headers };
}

const post = (p: string, json: unknown, headers: Record<string, string> = {}) =>
  send("POST", p, { body: JSON.stringify(json), headers: { "content-type": "application/json", ...headers } });

/** A JSON body with `amount` spliced in as a bare number token (JSON.stringify cannot write 1e30000000). */
const withNumber = (fields: Record<string, unknown>, name: string, token: string) =>
  `${JSON.stringify(fields).slice(0, -1)},"${name}":${token}}`;

function expectRefused(a: Answer, status: number, code: string) {
  expect(a.status, a.text.slice(0, 300)).toBe(status);
  expect(isErrorShape(a.body), a.text.slice(0, 300)).toBe(true);
  expect(a.body.error.code).toBe(code);
  // Nothing expanded: the answer stays small, and no stack reaches the client.
  expect(a.text.length).toBeLessThan(1000);
  expect(a.text).not.toMatch(/\bat \S+ \(|TypeError|digest/);
}

const EXPONENTS = ["1e10000000", "1e30000000", "1E+30000000", "5e-30000000", "1e999999999999999999999", "0.1e101", "1e31"];

describe("amounts with huge exponents are refused before anything expands them", () => {
  const order = { from: "btc", to: "eth", address: addressFor("eth") };

  it.each(EXPONENTS)("POST /exchange amount %s", async (token) => {
    const a = await send("POST", "/api/v1/exchange", {
      body: withNumber(order, "amount", token),
      headers: { "content-type": "application/json" },
    });
    expectRefused(a, 422, "INVALID_AMOUNT");
  });

  it.each(EXPONENTS)("POST /exchange toAmount %s (fixed rate)", async (token) => {
    const a = await send("POST", "/api/v1/exchange", {
      body: withNumber({ ...order, rateType: "fixed" }, "toAmount", token),
      headers: { "content-type": "application/json" },
    });
    expectRefused(a, 422, "INVALID_AMOUNT");
  });

  it.each(EXPONENTS)("sandbox deposit amount %s", async (token) => {
    const ip = newIp();
    const created = await send("POST", "/api/v1/exchange", {
      body: JSON.stringify({ ...order, amount: "0.01" }),
      headers: { "content-type": "application/json", "x-forwarded-for": ip },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id;
    const a = await send("POST", `/api/v1/sandbox/exchange/${id}/deposit`, {
      body: `{"amount":${token}}`,
      headers: { "content-type": "application/json", "x-forwarded-for": ip },
    });
    expectRefused(a, 422, "INVALID_AMOUNT");
    // The order is as it was: no deposit recorded, and its status answer is small.
    const status = await send("GET", `/api/v1/exchange/${id}`, { headers: { "x-forwarded-for": ip } });
    expect(status.body.status).toBe("waiting");
    expect(status.text.length).toBeLessThan(4000);
  });

  it.each(["fromAmount", "toAmount"])("GET /estimate %s=1e30000000", async (name) => {
    const a = await send(
      "GET",
      `/api/v1/estimate?fromCurrency=btc&toCurrency=eth&${name}=1e30000000${name === "toAmount" ? "&rateType=fixed" : ""}`,
    );
    expectRefused(a, 422, "INVALID_AMOUNT");
  });

  it("the sandbox market move 1e30000000", async () => {
    const { key } = await makeReseller();
    const a = await send("POST", "/api/v1/sandbox/engine", {
      body: '{"rateMoveBps":1e30000000}',
      headers: { "content-type": "application/json", "x-api-key": key },
    });
    expectRefused(a, 400, "INVALID_REQUEST");
  });
});

describe("POST /exchange with both amount and toAmount", () => {
  it("is refused, as /estimate refuses both", async () => {
    const a = await post("/api/v1/exchange", {
      from: "btc",
      to: "eth",
      amount: "0.01",
      toAmount: "0.2",
      rateType: "fixed",
      address: addressFor("eth"),
    });
    expectRefused(a, 400, "INVALID_REQUEST");
    expect(a.body.error.field).toBe("toAmount");
  });
});

describe("POST bodies must be JSON (415 otherwise)", () => {
  const body = JSON.stringify({ from: "btc", to: "eth", amount: "0.01", address: addressFor("eth") });

  it.each([
    "text/plain;charset=UTF-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/jsonx",
    "text/json",
  ])("Content-Type %s", async (contentType) => {
    const a = await send("POST", "/api/v1/exchange", { body, headers: { "content-type": contentType } });
    expectRefused(a, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("no Content-Type at all", async () => {
    // Bytes, not a string: fetch labels a string body text/plain.
    const a = await send("POST", "/api/v1/exchange", { body: new TextEncoder().encode(body) });
    expectRefused(a, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("the keyless daily quota is not spent by a refused body", async () => {
    const ip = newIp();
    const headers = { "content-type": "text/plain", "x-forwarded-for": ip };
    const refused = await send("POST", "/api/v1/exchange", { body, headers });
    expect(refused.status).toBe(415);
    const ok = await send("POST", "/api/v1/exchange", { body, headers: { ...headers, "content-type": "application/json" } });
    expect(ok.status, ok.text).toBe(201);
    // The daily quota's remaining count went down by the one order only.
    expect(ok.headers.get("ratelimit")).toMatch(/"day";r=99/);
  });

  it.each(["application/json", "application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"])(
    "accepts %s",
    async (contentType) => {
      const a = await send("POST", "/api/v1/exchange", { body, headers: { "content-type": contentType } });
      expect(a.status, a.text).toBe(201);
    },
  );

  it("the sandbox deposit and the engine switch take JSON too; an empty deposit needs no type", async () => {
    const ip = newIp();
    const created = await send("POST", "/api/v1/exchange", {
      body,
      headers: { "content-type": "application/json", "x-forwarded-for": ip },
    });
    const refused = await send("POST", `/api/v1/sandbox/exchange/${created.body.id}/deposit`, {
      body: '{"amount":"0.01"}',
      headers: { "content-type": "text/plain", "x-forwarded-for": ip },
    });
    expectRefused(refused, 415, "UNSUPPORTED_MEDIA_TYPE");
    const empty = await send("POST", `/api/v1/sandbox/exchange/${created.body.id}/deposit`, { headers: { "x-forwarded-for": ip } });
    expect(empty.status, empty.text).toBe(200);
    const { key } = await makeReseller();
    const engine = await send("POST", "/api/v1/sandbox/engine", {
      body: '{"fault":null}',
      headers: { "content-type": "text/plain", "x-api-key": key },
    });
    expectRefused(engine, 415, "UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("request targets, foreign-Origin actions and garbage multipart get a 4xx", () => {
  async function raw(request: string) {
    const sock = await connect(s.port);
    sock.write(request);
    const { text } = await collect(sock, 10_000);
    sock.destroy();
    return text;
  }

  it("GET * is a 400 in the error shape", async () => {
    const text = await raw("GET * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    expect(statusOf(text), text).toBe(400);
    expect(text).toContain('"code":"INVALID_REQUEST"');
  });

  it("OPTIONS * answers what the server supports", async () => {
    const text = await raw("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    expect(statusOf(text), text).toBe(204);
    expect(text).toMatch(/\r\nAllow: GET, HEAD, POST, OPTIONS\r\n/i);
  });

  it("an absolute-form target is a 400", async () => {
    const text = await raw(`GET http://127.0.0.1:${s.port}/signin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(statusOf(text), text).toBe(400);
  });

  it.each([
    ["https://evil.example", undefined],
    ["null", undefined],
    ["not a url", undefined],
    // The forwarded host wins over Host, as in Next's own check.
    [`http://127.0.0.1:PORT`, "evil.example"],
  ])("a server action with Origin %s (X-Forwarded-Host %s) is a 403", async (origin, forwardedHost) => {
    const headers: Record<string, string> = {
      "next-action": "00".repeat(20),
      origin: origin.replace("PORT", String(s.port)),
      "content-type": "text/plain;charset=UTF-8",
    };
    if (forwardedHost) headers["x-forwarded-host"] = forwardedHost;
    const a = await send("POST", "/dashboard", { body: "[]", headers });
    expectRefused(a, 403, "FORBIDDEN_ORIGIN");
  });

  it("an unknown action id is answered as Next answers it (404 and its header), with one log line, not a stack per request", async () => {
    const logBefore = s.logs().length;
    for (let i = 0; i < 25; i++) {
      const a = await send("POST", "/dashboard", {
        body: "[]",
        headers: {
          "next-action": (i % 2 ? "00" : "ab").repeat(20),
          origin: `http://127.0.0.1:${s.port}`,
          "content-type": "text/plain;charset=UTF-8",
        },
      });
      expect([a.status, a.headers.get("x-nextjs-action-not-found"), a.text]).toEqual([404, "1", "Server Action unavailable."]);
    }
    const log = s.logs().slice(logBefore);
    expect(log).not.toMatch(/Failed to find Server Action| {4}at /);
    expect(log.match(/unknown id/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it.each(["/signin", "/dashboard", "/dashboard/orders", "/"])("garbage multipart to POST %s is a 405", async (p) => {
    for (const body of ["garbage", "--xyz\r\nbroken", "--xyz--\r\n"]) {
      const a = await send("POST", p, { body, headers: { "content-type": "multipart/form-data; boundary=xyz" } });
      expectRefused(a, 405, "METHOD_NOT_ALLOWED");
      expect(a.headers.get("allow")).toBe("GET, HEAD");
    }
  });

  it("next-auth's POST routes are untouched by the page rule", async () => {
    const a = await send("POST", "/api/auth/nonce", {});
    expect(a.status).toBe(200);
  });
});

describe("memory", () => {
  it("stayed flat across the probe (less than 50 MB more)", async () => {
    await new Promise((r) => setTimeout(r, 2500)); // one more collection
    const after = rssMb(s.pid);
    console.info(`probe: server RSS ${before.toFixed(0)} MB -> ${after.toFixed(0)} MB`);
    expect(after - before, `RSS ${before.toFixed(0)} MB -> ${after.toFixed(0)} MB`).toBeLessThan(50);
  });
});
