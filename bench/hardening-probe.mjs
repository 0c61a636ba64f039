#!/usr/bin/env node
// Issue 27's probe cases against the production build (SQLite): each one's status and time to
// answer (median and max over ROUNDS), and the server's resident memory before and after them
// all. The HTTP test tests/http/hardening/probe.test.ts asserts the answers; how fast they come
// is measured here. Run after `npm run build`: node bench/hardening-probe.mjs
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { createDatabase, freePort, productionEnv, ROOT, requireBuild, waitFor } from "./support.mjs";

requireBuild();
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const ETH = "0x52908400098527886E0F7030069857D2E4169EE7";

const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
};

/** One raw HTTP/1.1 request (for request-targets fetch cannot send); resolves to the status. */
const raw = (port, request) =>
  new Promise((resolve, reject) => {
    const sock = net.connect(port, "127.0.0.1", () => sock.end(request));
    let text = "";
    sock.on("data", (d) => (text += d));
    sock.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0)));
    sock.on("error", reject);
  });

const db = await createDatabase("sqlite");
const port = await freePort();
const env = {
  ...productionEnv(port, db.url),
  TRUST_PROXY: "1",
  RATE_LIMIT_PUBLIC_PER_MINUTE: "100000",
  RATE_LIMIT_PUBLIC_CREATES_PER_DAY: "100000",
};
const child = spawn(process.execPath, ["dist/server.mjs"], { cwd: ROOT, env, stdio: "ignore" });
const base = `http://127.0.0.1:${port}`;
let ip = 0;
const nextIp = () => `10.9.${(++ip >> 8) & 255}.${ip & 255}`;
try {
  await waitFor(`${base}/healthz`, child, "server");
  const post = (p, body, headers = {}) =>
    fetch(base + p, { method: "POST", body, headers: { "content-type": "application/json", "x-forwarded-for": nextIp(), ...headers } });
  const order = (extra) => `{"from":"btc","to":"eth","address":"${ETH}",${extra}}`;
  const created = await (await post("/api/v1/exchange", order('"amount":"0.01"'))).json();
  for (let i = 0; i < 20; i++) await post("/api/v1/exchange", order('"amount":"0.01"')); // warm up
  const before = rssMb(child.pid);

  const cases = [
    ["POST /exchange amount 1e30000000", () => post("/api/v1/exchange", order('"amount":1e30000000'))],
    ["POST /exchange toAmount 1e30000000 (fixed)", () => post("/api/v1/exchange", order('"rateType":"fixed","toAmount":1e30000000'))],
    ["sandbox deposit amount 1e30000000", () => post(`/api/v1/sandbox/exchange/${created.id}/deposit`, '{"amount":1e30000000}')],
    ["GET /estimate fromAmount=1e30000000", () => fetch(`${base}/api/v1/estimate?fromCurrency=btc&toCurrency=eth&fromAmount=1e30000000`)],
    ["POST /exchange with amount and toAmount", () => post("/api/v1/exchange", order('"amount":"0.01","toAmount":"0.2"'))],
    ["POST /exchange text/plain", () => post("/api/v1/exchange", order('"amount":"0.01"'), { "content-type": "text/plain" })],
    ["GET * (request-target)", () => raw(port, "GET * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")],
    ["OPTIONS * (request-target)", () => raw(port, "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")],
    [
      "server action with a foreign Origin",
      () =>
        post("/dashboard", "[]", {
          "next-action": "00".repeat(20),
          origin: "https://evil.example",
          "content-type": "text/plain;charset=UTF-8",
        }),
    ],
    [
      "garbage multipart to POST /signin",
      () => post("/signin", "--xyz\r\ngarbage", { "content-type": "multipart/form-data; boundary=xyz" }),
    ],
    [
      "garbage multipart to POST /dashboard",
      () => post("/dashboard", "--xyz\r\ngarbage", { "content-type": "multipart/form-data; boundary=xyz" }),
    ],
  ];
  console.log(`${ROUNDS} rounds per case, production build on SQLite, one request at a time`);
  console.log("case                                          status   median ms   max ms");
  for (const [name, send] of cases) {
    const times = [];
    let status = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const t = process.hrtime.bigint();
      const r = await send();
      if (typeof r === "number") status = r;
      else {
        status = r.status;
        await r.arrayBuffer();
      }
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    times.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(46)}${String(status).padEnd(9)}${times[times.length >> 1].toFixed(1).padStart(9)}${times.at(-1).toFixed(1).padStart(9)}`,
    );
  }
  console.log(`server RSS: ${before.toFixed(0)} MB before the cases, ${rssMb(child.pid).toFixed(0)} MB after`);
} finally {
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  await db.drop();
}
