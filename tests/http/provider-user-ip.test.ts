import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { addressFor } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type Fakes, startFakes } from "../support/fake-providers";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Issue 31, the end user's IP: SideShift wants it in x-user-ip (its limits are per IP). Behind a
// reverse proxy that appends X-Forwarded-For as nginx does, with TRUST_PROXY naming the proxy,
// the fake SideShift receives the end user's address on the quote and on the shift; without
// TRUST_PROXY it receives the proxy's, for every user (the trap the docs warn of, and the
// server logs a warning about). Each side binds its own loopback address: the user's socket
// comes from 127.0.0.5, the proxy's from 127.0.0.3.

const USER = "127.0.0.5";
const PROXY = "127.0.0.3";

/** A reverse proxy: forwards to `target`, appending the peer's address to X-Forwarded-For. */
async function startProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const t = new URL(target);
  const server = http.createServer((req, res) => {
    const prior = req.headers["x-forwarded-for"];
    const xff = prior ? `${prior}, ${req.socket.remoteAddress}` : String(req.socket.remoteAddress);
    const up = http.request(
      {
        host: t.hostname,
        port: t.port,
        method: req.method,
        path: req.url,
        localAddress: PROXY,
        headers: { ...req.headers, host: t.host, "x-forwarded-for": xff },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A request from the end user's own address (no header of its own: the proxy writes X-Forwarded-For). */
function fromUser(url: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      { method: data ? "POST" : "GET", localAddress: USER, headers: data ? { "content-type": "application/json" } : {} },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

let fakes: Fakes;
let db: TestDatabase;

beforeAll(async () => {
  fakes = await startFakes();
  fakes.setPair("btc", "eth", { sideshift: "20" }, { min: "0.001", max: "2" });
  db = await migratedDatabase(inject("dbKind"));
});

afterAll(async () => {
  await fakes.stop();
  await db.drop();
});

const env = (trustProxy: string) => ({
  ...fakes.env(),
  CHANGENOW_ENABLED: "false",
  FIXEDFLOAT_ENABLED: "false",
  PROVIDERS_QUOTE_CACHE_SECONDS: "0",
  TRUST_PROXY: trustProxy,
});

async function run(trustProxy: string) {
  const server: RunningApp = await startApp({ databaseUrl: db.url, env: env(trustProxy) });
  const proxy = await startProxy(server.baseUrl);
  try {
    const seen = fakes.sideshift.requests.length;
    const est = await fromUser(`${proxy.url}/api/v1/estimate?from=btc&to=eth&amount=0.1`);
    expect(est.status).toBe(200);
    const payout = addressFor("eth");
    const order = await fromUser(`${proxy.url}/api/v1/exchange`, { from: "btc", to: "eth", amount: "0.1", address: payout });
    expect(order.status).toBe(201);
    const sent = fakes.sideshift.requests.slice(seen).filter((r) => r.path === "/api/v2/quotes" || r.path === "/api/v2/shifts/fixed");
    expect(new Set(sent.map((r) => r.path))).toEqual(new Set(["/api/v2/quotes", "/api/v2/shifts/fixed"]));
    return { ips: [...new Set(sent.map((r) => r.headers["x-user-ip"]))], logs: server.logs() };
  } finally {
    await proxy.close();
    await server.stop();
  }
}

describe("the end user's IP reaches SideShift through a reverse proxy", () => {
  it("TRUST_PROXY names the proxy: x-user-ip is the end user's address on the quotes and the shift", async () => {
    const { ips } = await run(PROXY);
    expect(ips).toEqual([USER]);
  });

  it("TRUST_PROXY=1 (one proxy in front) gives the same", async () => {
    const { ips } = await run("1");
    expect(ips).toEqual([USER]);
  });

  it("without TRUST_PROXY every user would share the proxy's address: the server says so in its log", async () => {
    const { ips, logs } = await run("false");
    expect(ips).toEqual([PROXY]);
    expect(logs).toMatch(/X-Forwarded-For.*TRUST_PROXY/);
  });
});
