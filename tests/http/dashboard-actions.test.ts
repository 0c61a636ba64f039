import http from "node:http";
import fc from "fast-check";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { DASHBOARD_READS } from "@/lib/dashboard/reads";
import type { DashboardReadName, DashboardReads } from "@/lib/dashboard/types";
import { createApiKey } from "@/lib/keys/api-keys";
import { getResellerByWallet, setMarkup } from "@/lib/resellers/resellers";
import { addressFor, api, pollUntil, testDb } from "../support/api";
import { callServerAction, readDashboard, signInOverHttp } from "../support/dashboard";

// The dashboard's reads are GET route handlers (GET /dashboard/api/<read>, lib/dashboard/reads.ts)
// and its writes server actions (app/dashboard/actions.ts). Each is a public endpoint, so each
// must check the session and scope by it: called here against the real server exactly as the
// page calls them (its own readUrl for the reads; Next-Action header and Flight answer for the writes).

const origin = () => inject("baseUrl");
const READS: [name: DashboardReadName, query: string][] = [
  ["overview", "days=30"],
  ["earnings", "days=30"],
  ["channels", "days=30"],
  ["widgets", ""],
  ["brand", ""],
  ["orders", ""],
  ["order", "id=0123456789abcdef01234567"],
  ["keys", "revoked=1"],
  ["webhook-endpoints", ""],
  ["webhook-deliveries", "endpoint=x"],
  ["settings", ""],
  ["withdrawals", ""],
  ["payouts", ""],
  ["statements", ""],
  ["requests", "status=4xx"],
  ["team", ""],
];
const unauthorized = { error: { code: "UNAUTHORIZED", message: expect.any(String) } };
const notFound = { error: { code: "NOT_FOUND", message: "Not found." } };
const notFoundResult = { ok: false, error: { code: "NOT_FOUND", message: expect.any(String) } };

describe("dashboard reads and writes", () => {
  const walletA = privateKeyToAccount(generatePrivateKey());
  const walletB = privateKeyToAccount(generatePrivateKey());
  let cookieA = "";
  let cookieB = "";
  let key = "";
  let keyPrefix = "";
  let finishedId = "";
  let waitingId = "";

  beforeAll(async () => {
    const a = await signInOverHttp(origin(), walletA);
    const b = await signInOverHttp(origin(), walletB);
    expect([a.error, b.error]).toEqual([null, null]);
    cookieA = a.cookie;
    cookieB = b.cookie;
    // A: a markup, a key, a finished order (available profit) and a waiting one (pending).
    const resellerA = (await getResellerByWallet(testDb(), { walletAddress: walletA.address }))!;
    await setMarkup(testDb(), { resellerId: resellerA.id, markupBps: 150 });
    const k = await createApiKey(testDb(), { resellerId: resellerA.id, name: "A's app" });
    key = k.key;
    keyPrefix = k.apiKey.prefix;
    const order = async () => {
      const r = await api("/exchange", { key, body: { from: "btc", to: "eth", amount: "0.1", address: addressFor("eth") } });
      expect(r.status, r.text).toBe(201);
      return r.body.id as string;
    };
    finishedId = await order();
    waitingId = await order();
    expect((await api(`/sandbox/exchange/${finishedId}/deposit`, { key, method: "POST" })).status).toBe(200);
    await pollUntil(finishedId, ["finished"], { key });
  });

  it("without a session, every read answers 401 in the error shape, private and uncached", async () => {
    // Every read of the table is in READS.
    expect(READS.map(([name]) => name).sort()).toEqual(Object.keys(DASHBOARD_READS).sort());
    for (const [name, query] of READS) {
      for (const cookie of [null, "next-auth.session-token=not-a-session"]) {
        const r = await readDashboard(origin(), cookie, name, query);
        expect([r.status, r.body], name).toEqual([401, unauthorized]);
        expect(r.headers.get("cache-control"), name).toBe("private, no-store");
      }
    }
  });

  it("the first wallet reads its own data", async () => {
    const read = async <K extends DashboardReadName>(name: K, query: DashboardReads[K]["query"]) => {
      const r = await readDashboard(origin(), cookieA, name, query);
      expect(r.status, `${name} ${r.text.slice(0, 300)}`).toBe(200);
      expect(r.headers.get("cache-control")).toBe("private, no-store");
      expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
      return r.body;
    };
    const overview = await read("overview", { days: 30 });
    expect(overview.balances.map((b: { currency: string }) => b.currency)).toEqual(["eth"]);
    expect(overview.orderCounts).toMatchObject({ finished: 1, waiting: 1 });
    const earnings = await read("earnings", { days: 7 });
    expect(earnings.days).toHaveLength(7);
    expect(earnings.earned.map((e: { currency: string }) => e.currency)).toEqual(["eth"]);
    const list = await read("orders", {});
    expect(list.items.map((o: { id: string }) => o.id).sort()).toEqual([finishedId, waitingId].sort());
    expect((await read("orders", { status: "finished" })).items.map((o: { id: string }) => o.id)).toEqual([finishedId]);
    const detail = await read("order", { id: finishedId });
    expect(detail).toMatchObject({ id: finishedId, status: "finished", profitState: "available", markupBps: 150 });
    const keys = await read("keys", {});
    expect(keys.items.map((k: { prefix: string }) => k.prefix)).toEqual([keyPrefix]);
    expect([keys.older, keys.active]).toEqual([null, 1]);
    expect(await read("keys", { revoked: true })).toEqual({ items: [], older: null, active: null });
    expect((await read("settings", {})).markupBps).toBe(150);
    // The request log: A's keyed requests of beforeAll (written within seconds; polled, not timed).
    let requests = await read("requests", {});
    for (const end = Date.now() + 120_000; requests.items.length < 4 && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 100));
      requests = await read("requests", {});
    }
    expect(requests.items.length).toBeGreaterThanOrEqual(4);
    expect(requests.items.every((r: { key: { prefix: string } | null }) => r.key?.prefix === keyPrefix)).toBe(true);
  });

  it("with another wallet's session, every read answers nothing of the first wallet's", async () => {
    const seen: string[] = [];
    const read = async <K extends DashboardReadName>(name: K, query: DashboardReads[K]["query"], status = 200) => {
      const r = await readDashboard(origin(), cookieB, name, query);
      expect(r.status, name).toBe(status);
      seen.push(r.text);
      return r.body;
    };
    const overview = await read("overview", { days: 90 });
    expect(overview).toMatchObject({ balances: [], currencies: [], ordersInPeriod: 0, markupBps: 0 });
    expect(Object.values(overview.orderCounts)).toEqual([0, 0, 0, 0, 0, 0]);
    const earnings = await read("earnings", { days: 90 });
    expect(earnings).toMatchObject({ earned: [], currencies: [], totalUsd: "0" });
    expect(earnings.days.every((d: { amounts: object }) => Object.keys(d.amounts).length === 0)).toBe(true);
    expect(await read("orders", {})).toMatchObject({ items: [], total: 0 });
    expect(await read("orders", { q: finishedId })).toMatchObject({ items: [], total: 0 });
    // Another reseller's order is NOT_FOUND, exactly like one that does not exist.
    for (const id of [finishedId, waitingId, finishedId.toUpperCase(), "0123456789abcdef01234567"])
      expect(await read("order", { id }, 404)).toEqual(notFound);
    expect(await read("keys", {})).toEqual({ items: [], older: null, active: 0 });
    expect(await read("keys", { revoked: true })).toEqual({ items: [], older: null, active: null });
    expect((await read("settings", {})).markupBps).toBe(0);
    expect(await read("requests", {})).toMatchObject({ items: [], older: null, filters: { keys: [] } });
    // A reseller id in the query is no parameter of any read: refused, never used.
    const other = await readDashboard(origin(), cookieB, "orders", `resellerId=${encodeURIComponent(finishedId)}`);
    expect(other.status).toBe(400);
    seen.push(other.text);
    // Not even in passing: no answer to B mentions A's orders or key.
    for (const text of seen) for (const secret of [finishedId, waitingId, keyPrefix]) expect(text).not.toContain(secret);
  });

  it("queries are validated: a wrong one is 400 INVALID_REQUEST in the error shape, never a crash", async () => {
    const bad: [DashboardReadName, string][] = [
      ["overview", ""],
      ["overview", "days=30&days=7"],
      ["overview", "days=thirty"],
      ["overview", "days=0"],
      ["earnings", "days=10000"],
      ["earnings", "days=7.5"],
      ["channels", "days=-1"],
      ["orders", `before=${"1".repeat(200)}`],
      ["orders", "resellerId=someone-else"],
      ["orders", "oldest=yes"],
      ["orders", "q=ab%00cd"],
      ["order", ""],
      ["order", `id=${"a".repeat(101)}`],
      ["keys", "revoked=yes"],
      ["keys", "includeRevoked=1"],
      ["keys", "revoked=1&older=not%20a%20cursor"],
      ["keys", `older=${"x".repeat(101)}`],
      ["webhook-deliveries", ""],
      ["webhook-deliveries", `endpoint=x&older=${"1".repeat(41)}`],
      ["settings", "x=1"],
      ["statements", "month=2026-01"],
      ["requests", "status=6xx"],
      ["requests", "from=yesterday"],
      ["requests", "older=not-a-cursor"],
      ["requests", "resellerId=someone-else"],
    ];
    for (const [name, query] of bad) {
      const r = await readDashboard(origin(), cookieA, name, query);
      expect([r.status, r.body], `${name}?${query}`).toEqual([400, { error: { code: "INVALID_REQUEST", message: expect.any(String) } }]);
      expect(r.headers.get("cache-control")).toBe("private, no-store");
    }
    // A read that does not exist.
    const r = await fetch(`${origin()}/dashboard/api/nope`, { headers: { cookie: cookieA } });
    expect([r.status, await r.json()]).toEqual([404, { error: { code: "NOT_FOUND", message: expect.any(String) } }]);
    // Random query strings: never a 5xx, always the error shape.
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...READS.map(([name]) => name)),
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom("days", "id", "q", "status", "older", "after", "before", "oldest", "revoked", "endpoint"),
              fc.string(),
            ),
            fc.oneof(fc.string(), fc.constantFrom("1", "30", "0", "-1", "1e3", "$@0", "\u0000", "%")),
          ),
          { maxLength: 4 },
        ),
        async (name, pairs) => {
          const r = await readDashboard(origin(), cookieA, name, new URLSearchParams(pairs).toString());
          expect(r.status, `${name} ${JSON.stringify(pairs)}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
          if (r.status !== 200) expect(r.body).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
        },
      ),
      { numRuns: 60 },
    );
  });

  it("reads pass server.ts's guards for Next as GETs: HEAD answers, a body is bounded, a POST is refused", async () => {
    const r = await fetch(`${origin()}/dashboard/api/settings`, { method: "POST", headers: { cookie: cookieA }, body: "" });
    expect(r.status).toBe(405);
    const head = await fetch(`${origin()}/dashboard/api/settings`, { method: "HEAD", headers: { cookie: cookieA } });
    expect([head.status, head.headers.get("cache-control")]).toEqual([200, "private, no-store"]);
    // A GET with a body (fetch sends none): a small one is read and ignored, one declared over MAX_BODY_BYTES is a 413.
    const raw = (length: number, body: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(`${origin()}/dashboard/api/settings`, {
          method: "GET",
          headers: { cookie: cookieA, "content-length": String(length) },
        });
        req.on("response", (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on("error", reject);
        req.end(body);
      });
    const small = await raw(2, "{}");
    expect([small.status, JSON.parse(small.text).markupBps]).toEqual([200, 150]);
    const big = await raw(100_000_000, "");
    expect([big.status, JSON.parse(big.text).error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
  });

  it("writes check the session before their arguments, and a wrong shape gets the service's own refusal", async () => {
    const writes: [string, unknown[]][] = [
      ["createKeyAction", [{ name: "x" }]],
      ["rotateKeyAction", [42]],
      ["revokeKeyAction", []],
      ["setWebhookEnabledAction", [null, "yes"]],
      ["setMarkupAction", ["150"]],
      ["quoteWithdrawalAction", ["eth"]],
      ["signOutEverywhereAction", [1, 2, 3]],
      ["redeliverWebhookAction", [1]],
      ["redeliverFailedWebhooksAction", ["ep", { from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z" }]],
    ];
    for (const [name, args] of writes) {
      const r = await callServerAction(origin(), null, name, args);
      expect(r.result, name).toEqual({ ok: false, error: { code: "UNAUTHORIZED", message: expect.any(String) } });
    }
    const call = (name: string, args: unknown[]) => callServerAction(origin(), cookieB, name, args).then((r) => r.result);
    // An id that is not a string is no id: NOT_FOUND, as for an id that does not exist.
    for (const [name, args] of [
      ["rotateKeyAction", [42]],
      ["revokeKeyAction", [{ id: "x" }]],
      ["rotateWebhookSecretAction", [null]],
      ["setWebhookEnabledAction", [["ep"], true]],
      ["sendWebhookTestAction", []],
    ] as [string, unknown[]][])
      expect(await call(name, args), `${name} ${JSON.stringify(args)}`).toEqual({
        ok: false,
        error: { code: "NOT_FOUND", message: expect.any(String) },
      });
    expect((await call("setMarkupAction", ["150"])).error.code).toBe("INVALID_MARKUP");
    expect((await call("createWebhookEndpointAction", ["https://example.com/hook"])).error.code).toBe("INVALID_REQUEST");
    expect((await call("quoteWithdrawalAction", [{ asset: "ETH", currencies: "all" }])).error).toEqual({
      code: "INVALID_REQUEST",
      message: "The request is not valid.",
    });
    expect((await call("confirmWithdrawalAction", [{ nonce: "0".repeat(32), signature: "0x", extra: 1 }])).error.code).toBe(
      "INVALID_REQUEST",
    );
    // A name of the wrong type, or too long to be one, is no name.
    for (const name of [{ name: "x" }, "x".repeat(201)])
      expect(await call("createKeyAction", [name])).toEqual({
        ok: false,
        error: { code: "INVALID_REQUEST", message: "A key name is 1 to 64 characters." },
      });
    // Arguments past the ones an action takes are ignored.
    expect((await call("setMarkupAction", [0, "extra", 1])).ok).toBe(true);
  });

  it("webhook resends are the session reseller's own: another's delivery or endpoint is NOT_FOUND and stays as it was", async () => {
    const a = (await getResellerByWallet(testDb(), { walletAddress: walletA.address }))!;
    const db = testDb();
    // An endpoint of A's that nothing answers (.invalid never resolves) with two deliveries the sender gave up on.
    const endpointId = `ep_resend_${Date.now().toString(36)}`;
    await db.webhookEndpoint.create({
      data: { id: endpointId, resellerId: a.id, url: "https://hooks.invalid/x", events: '["*"]', secret: "whsec_x" },
    });
    const failed = async (n: number) => {
      const messageId = `${endpointId}_m${n}`;
      const createdAt = new Date(Date.UTC(2026, 0, 1, 10, n));
      await db.webhookMessage.create({
        data: { id: messageId, resellerId: a.id, type: "webhook.test", subject: null, payload: "{}", createdAt },
      });
      return (
        await db.webhookDelivery.create({
          // Last tried a moment ago: the suite server's worker deletes finished messages older than
          // the retention (WEBHOOK_RETENTION_DAYS) once a minute, and these are dated in January.
          data: {
            endpointId,
            messageId,
            orderingKey: messageId,
            status: "failed",
            attempts: 8,
            lastStatusCode: 500,
            createdAt,
            lastAttemptAt: new Date(),
          },
        })
      ).id;
    };
    const one = await failed(1);
    await failed(2);
    const range = { from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00+00:00" };
    const as = (cookie: string, name: string, args: unknown[]) => callServerAction(origin(), cookie, name, args).then((r) => r.result);
    const status = async (id: number) => (await db.webhookDelivery.findUniqueOrThrow({ where: { id } })).status;

    // B names A's delivery and A's endpoint: refused as ids that do not exist, nothing queued.
    expect(await as(cookieB, "redeliverWebhookAction", [one])).toEqual(notFoundResult);
    expect(await as(cookieB, "redeliverFailedWebhooksAction", [endpointId, range])).toEqual(notFoundResult);
    expect(await status(one)).toBe("failed");
    // Wrong shapes: an id that is no whole number is none; a range that is not two instants is refused.
    for (const bad of ["1", 1.5, null]) expect(await as(cookieA, "redeliverWebhookAction", [bad])).toEqual(notFoundResult);
    for (const bad of [{ from: "yesterday", to: range.to }, { ...range, extra: 1 }, "2026-01-01"])
      expect((await as(cookieA, "redeliverFailedWebhooksAction", [endpointId, bad])).error.code).toBe("INVALID_REQUEST");
    expect((await as(cookieA, "redeliverFailedWebhooksAction", [endpointId, { from: range.to, to: range.from }])).error.code).toBe(
      "INVALID_REQUEST",
    );

    // A's own: queued once, a second click queues nothing more.
    expect(await as(cookieA, "redeliverWebhookAction", [one])).toEqual({ ok: true, data: { deliveryId: one, queued: true } });
    expect(await as(cookieA, "redeliverWebhookAction", [one])).toEqual({ ok: true, data: { deliveryId: one, queued: false } });
    expect(await as(cookieA, "redeliverFailedWebhooksAction", [endpointId, range])).toEqual({ ok: true, data: { queued: 1, more: false } });
    expect(await db.webhookDelivery.count({ where: { endpointId } })).toBe(2);

    // A disabled endpoint: its own code.
    await db.webhookEndpoint.update({ where: { id: endpointId }, data: { enabled: false } });
    expect((await as(cookieA, "redeliverFailedWebhooksAction", [endpointId, range])).error.code).toBe("WEBHOOK_ENDPOINT_DISABLED");
  });
});
