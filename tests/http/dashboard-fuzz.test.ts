import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ROOT, type RunningServer, startServer } from "../support/server";
import { rssMb } from "./hardening/raw";

// The dashboard's side of the fuzz suite (tests/http/fuzz.test.ts covers the v1 API):
// garbage to next-auth's routes, the sign-in nonce and the server actions (real action ids
// from the build, and made-up ones), with random methods, content types and bodies. No
// answer is a 5xx, and the server's memory does not grow by more than 50 MB over the run.
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
// Once, on SQLite (issue 49: it was the suite's costliest file, 7 minutes per database): no
// fuzzed value reaches the database. Made-up action ids are refused before Next, real ones
// without a session before any read, and a random `message` never parses as a SIWE message, so
// the nonce it would name is never looked up; the v1 API's fuzz (fuzz.test.ts), whose values do
// reach the database, runs on both.
const once = inject("dbKind") === "sqlite";

let s: RunningServer;
let actionIds: string[] = [];
beforeAll(async () => {
  if (!once) return;
  // The server collects garbage every second (a test-only preload), so that its resident
  // memory measures what it keeps, not when V8 last got round to a full collection: without
  // it, RSS after 2,000 requests varied from +4 to +56 MB from one run to the next, while the
  // heap left after each collection grew by about 4 MB.
  const probe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "fuzz-gc-")), "gc.cjs");
  fs.writeFileSync(probe, "setInterval(() => globalThis.gc(), 1000).unref();\n");
  s = await startServer({ databaseUrl: inject("databaseUrl"), env: { NODE_OPTIONS: `--expose-gc --require ${probe}` } });
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, ".next/server/server-reference-manifest.json"), "utf8"));
  actionIds = Object.keys(manifest.node);
});
afterAll(async () => {
  await s?.stop();
});

const text = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.constantFrom("", "{", "[1,2", '{"json":"true"}', "null", '["$K1"]', '"$@0"', "[]", "{}", "\u0000", "%%%", "a=b&a=c"),
  fc
    .dictionary(
      fc.constantFrom("csrfToken", "message", "signature", "callbackUrl", "json", "redirect", "x"),
      fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom("true", "false", "")),
    )
    .map((o) => new URLSearchParams(o).toString()),
);
const contentType = fc.constantFrom(
  undefined,
  "application/json",
  "application/x-www-form-urlencoded",
  "text/plain;charset=UTF-8",
  "multipart/form-data; boundary=----x",
  "multipart/form-data",
  "application/octet-stream",
);

async function send(method: string, p: string, opts: { body?: string; contentType?: string; headers?: Record<string, string> }) {
  const headers: Record<string, string> = {
    "x-forwarded-for": `203.0.113.${Math.floor(Math.random() * 250) + 1}`,
    ...(opts.headers ?? {}),
  };
  if (opts.contentType) headers["content-type"] = opts.contentType;
  const res = await fetch(s.baseUrl + p, {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? undefined : opts.body,
    redirect: "manual",
  });
  const body = await res.text();
  return { status: res.status, body };
}

async function fuzzAuth(numRuns: number) {
  const route = fc.oneof(
    fc.constantFrom(
      "/api/auth/csrf",
      "/api/auth/session",
      "/api/auth/providers",
      "/api/auth/signin",
      "/api/auth/signin/siwe",
      "/api/auth/callback/siwe",
      "/api/auth/callback/other",
      "/api/auth/signout",
      "/api/auth/_log",
      "/api/auth/error",
      "/api/auth/nonce",
      "/api/auth/verify-request",
    ),
    fc.string({ unit: fc.constantFrom(..."abcxyz/._-%?=&"), maxLength: 20 }).map((x) => `/api/auth/${x}`),
  );
  await fc.assert(
    fc.asyncProperty(fc.constantFrom("GET", "POST", "POST", "POST", "PUT", "DELETE"), route, text, contentType, async (m, r, body, ct) => {
      const res = await send(m, r, { body, contentType: ct });
      expect(res.status, `${m} ${r} ${ct} ${JSON.stringify(body)}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
    }),
    { numRuns },
  );
}

async function fuzzActions(numRuns: number) {
  const id = fc.oneof(
    fc.constantFrom(...actionIds),
    fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 40, maxLength: 42 }),
    fc.string({ maxLength: 20 }),
  );
  const page = fc.constantFrom("/dashboard", "/dashboard/keys", "/dashboard/settings", "/dashboard/orders", "/signin", "/");
  await fc.assert(
    fc.asyncProperty(
      id,
      page,
      text,
      contentType,
      fc.option(fc.string({ maxLength: 60 }), { nil: undefined }),
      async (action, p, body, ct, tree) => {
        const headers: Record<string, string> = { "next-action": action.replace(/[^\x20-\x7e]/g, "") };
        if (tree !== undefined) headers["next-router-state-tree"] = encodeURIComponent(tree);
        const res = await send("POST", p, { body, contentType: ct, headers });
        expect(res.status, `${p} ${action} ${ct} ${JSON.stringify(body)}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
      },
    ),
    { numRuns },
  );
}

describe.runIf(once)("dashboard fuzz: no 5xx, bounded memory", () => {
  let before = 0;
  beforeAll(async () => {
    // Warm up (first renders, lazy modules, the code paths the fuzz takes) before the baseline.
    const id = actionIds[0] ?? "00";
    for (let i = 0; i < 40; i++) {
      await send("GET", "/signin", {});
      await send("POST", "/api/auth/callback/siwe", {
        body: `message=${i}&signature=x&csrfToken=y`,
        contentType: "application/x-www-form-urlencoded",
      });
      await send("POST", "/api/auth/nonce", {});
      await send("GET", "/api/auth/session", {});
      await send("POST", "/dashboard", { body: `["${i}"]`, contentType: "text/plain;charset=UTF-8", headers: { "next-action": id } });
      await send("POST", "/dashboard", { body: "{", contentType: "text/plain;charset=UTF-8", headers: { "next-action": id } });
    }
    // A short run of each, so that the baseline has the heap and code caches the run needs.
    await fuzzAuth(150);
    await fuzzActions(150);
    before = rssMb(s.pid);
  });

  it("next-auth's routes and the sign-in nonce with random methods, types and bodies", () => fuzzAuth(RUNS));

  it("server actions with real and made-up ids and garbage bodies", () => fuzzActions(RUNS));

  it("memory grew by less than 50 MB across the run", async () => {
    await new Promise((r) => setTimeout(r, 2500)); // one more collection
    const after = rssMb(s.pid);
    console.info(`dashboard fuzz: server RSS ${before.toFixed(0)} MB -> ${after.toFixed(0)} MB`);
    expect(after - before, `RSS ${before.toFixed(0)} MB -> ${after.toFixed(0)} MB`).toBeLessThan(50);
  });
});
