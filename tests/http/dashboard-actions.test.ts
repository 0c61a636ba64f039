import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createApiKey } from "@/lib/keys/api-keys";
import { getResellerByWallet, setMarkup } from "@/lib/resellers/resellers";
import { addressFor, api, pollUntil, testDb } from "../support/api";
import { callServerAction, signInOverHttp } from "../support/dashboard";

// The dashboard's reads are server actions (app/dashboard/queries.ts). Each is a public POST
// endpoint, so each must check the session and scope by it: called here against the real
// server exactly as Next's client calls them (Next-Action header, Flight answer).

const origin = () => inject("baseUrl");
const READS: [name: string, args: unknown[]][] = [
  ["getOverviewAction", [30]],
  ["getEarningsAction", [30]],
  ["listOrdersAction", [{}]],
  ["getOrderAction", ["0123456789abcdef01234567"]],
  ["listKeysAction", [{ revoked: true }]],
  ["getSettingsAction", []],
  ["listWebhookEndpointsAction", []],
];

describe("dashboard read actions", () => {
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

  it("without a session, every read answers the unauthorised result and nothing else", async () => {
    for (const [name, args] of READS) {
      for (const cookie of [null, "next-auth.session-token=not-a-session"]) {
        const r = await callServerAction(origin(), cookie, name, args);
        expect(r.result, name).toEqual({ ok: false, error: { code: "UNAUTHORIZED", message: expect.any(String) } });
      }
    }
  });

  it("the first wallet reads its own data", async () => {
    const call = (name: string, args: unknown[]) => callServerAction(origin(), cookieA, name, args).then((r) => r.result);
    const overview = await call("getOverviewAction", [30]);
    expect(overview.ok).toBe(true);
    expect(overview.data.balances.map((b: { currency: string }) => b.currency)).toEqual(["eth"]);
    expect(overview.data.orderCounts).toMatchObject({ finished: 1, waiting: 1 });
    const earnings = await call("getEarningsAction", [7]);
    expect(earnings.data.days).toHaveLength(7);
    expect(earnings.data.earned.map((e: { currency: string }) => e.currency)).toEqual(["eth"]);
    const list = await call("listOrdersAction", [{}]);
    expect(list.data.items.map((o: { id: string }) => o.id).sort()).toEqual([finishedId, waitingId].sort());
    expect((await call("listOrdersAction", [{ status: "finished" }])).data.items.map((o: { id: string }) => o.id)).toEqual([finishedId]);
    const detail = await call("getOrderAction", [finishedId]);
    expect(detail.data).toMatchObject({ id: finishedId, status: "finished", profitState: "available", markupBps: 150 });
    const keys = await call("listKeysAction", [{}]);
    expect(keys.data.items.map((k: { prefix: string }) => k.prefix)).toEqual([keyPrefix]);
    expect([keys.data.older, keys.data.active]).toEqual([null, 1]);
    expect(await call("listKeysAction", [{ revoked: true }])).toEqual({ ok: true, data: { items: [], older: null, active: null } });
    expect((await call("getSettingsAction", [])).data.markupBps).toBe(150);
  });

  it("with another wallet's session, every read answers nothing of the first wallet's", async () => {
    const seen: string[] = [];
    const call = async (name: string, args: unknown[]) => {
      const r = await callServerAction(origin(), cookieB, name, args);
      seen.push(r.text);
      return r.result;
    };
    const overview = await call("getOverviewAction", [90]);
    expect(overview.data).toMatchObject({ balances: [], currencies: [], ordersInPeriod: 0, markupBps: 0 });
    expect(Object.values(overview.data.orderCounts)).toEqual([0, 0, 0, 0, 0, 0]);
    const earnings = await call("getEarningsAction", [90]);
    expect(earnings.data).toMatchObject({ earned: [], currencies: [], totalUsd: "0" });
    expect(earnings.data.days.every((d: { amounts: object }) => Object.keys(d.amounts).length === 0)).toBe(true);
    expect((await call("listOrdersAction", [{}])).data).toMatchObject({ items: [], total: 0 });
    expect((await call("listOrdersAction", [{ q: finishedId }])).data).toMatchObject({ items: [], total: 0 });
    for (const id of [finishedId, waitingId, finishedId.toUpperCase()])
      expect(await call("getOrderAction", [id])).toEqual({ ok: false, error: { code: "NOT_FOUND", message: "Not found." } });
    expect(await call("listKeysAction", [{}])).toEqual({ ok: true, data: { items: [], older: null, active: 0 } });
    expect(await call("listKeysAction", [{ revoked: true }])).toEqual({ ok: true, data: { items: [], older: null, active: null } });
    expect((await call("getSettingsAction", [])).data.markupBps).toBe(0);
    // Not even in passing: no answer to B mentions A's orders or key.
    for (const text of seen) for (const secret of [finishedId, waitingId, keyPrefix]) expect(text).not.toContain(secret);
  });

  it("inputs are validated: a wrong shape is INVALID_REQUEST, never a crash", async () => {
    const bad: [string, unknown[]][] = [
      ["getOverviewAction", ["30"]],
      ["getEarningsAction", [10_000]],
      ["listOrdersAction", [{ after: 5 }]],
      ["listOrdersAction", [{ before: "1".repeat(200) }]],
      ["listOrdersAction", [{ resellerId: "someone-else" }]],
      ["getOrderAction", [{ id: finishedId }]],
      ["listKeysAction", [{ revoked: "yes" }]],
      ["listKeysAction", [{ includeRevoked: true }]],
      ["listKeysAction", [{ revoked: true, older: "not a cursor" }]],
      ["listKeysAction", [{ older: "x".repeat(101) }]],
    ];
    for (const [name, args] of bad) {
      const r = await callServerAction(origin(), cookieA, name, args);
      expect(r.result, `${name} ${JSON.stringify(args)}`).toEqual({
        ok: false,
        error: { code: "INVALID_REQUEST", message: expect.any(String) },
      });
    }
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
    expect((await call("getSettingsAction", ["extra", 1])).ok).toBe(true);
    expect((await call("getOverviewAction", [30, "extra"])).ok).toBe(true);
  });
});
