import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, inject, it } from "vitest";
import { createApiKey, revokeApiKey } from "@/lib/keys/api-keys";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { newIp, testDb } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { callServerAction, signInOverHttp } from "../support/dashboard";
import { recordSecret } from "../support/secrets";
import { type RunningServer, startServer } from "../support/server";

// Two app instances on one database, each caching API keys (lib/keys/key-cache.ts). B reads a
// key (and caches it); the key's reseller changes its markup and revokes the key on A's
// dashboard (the server actions, as a browser calls them); B must apply both within the
// stated bound. A is a spawned built server (its dashboard is Next's); B, API-only, is an app
// in this process: another process than A all the same, with its own cache and feed. The instances' TTL is 10 minutes, far past the deadline: only the
// invalidation (NOTIFY, Redis pub/sub, or SQLite's version row) can make B apply them in time,
// never the expiry.

/** The stated bound: the default KEY_CACHE_TTL_MS. Every change must apply within it. */
const BOUND_MS = 5000;
const CACHE_ENV = { KEY_CACHE_TTL_MS: "600000" };

type Instance = RunningServer | RunningApp;

async function estimate(server: Instance, key: string) {
  recordSecret(key);
  const r = await fetch(`${server.baseUrl}/api/v1/estimate?from=btc&to=eth&amount=0.1`, {
    headers: { "x-api-key": key, "x-forwarded-for": newIp() },
  });
  return { status: r.status, body: (await r.json()) as { fee?: string; error?: { code: string } } };
}

async function within(what: string, ok: () => Promise<boolean>) {
  const deadline = Date.now() + BOUND_MS;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${BOUND_MS} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function twoInstances(env: Record<string, string>, body: (a: RunningServer, b: RunningApp) => Promise<void>) {
  const databaseUrl = inject("databaseUrl");
  const [a, b] = await Promise.all([startServer({ databaseUrl, env }), startApp({ databaseUrl, env })]);
  try {
    await body(a, b);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}

/** A reseller signed in on A's dashboard, with a key made for it. */
async function resellerOn(a: RunningServer) {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const { error, cookie } = await signInOverHttp(a.baseUrl, wallet);
  expect(error).toBeNull();
  const reseller = (await getResellerByWallet(testDb(), { walletAddress: wallet.address }))!;
  const { key, apiKey } = await createApiKey(testDb(), { resellerId: reseller.id, name: "cached" });
  return { cookie, reseller, key, apiKey };
}

async function markupAndRevocationReachB(a: RunningServer, b: RunningApp) {
  const { cookie, key, apiKey } = await resellerOn(a);
  // B reads the key twice: the second answer comes from its cache.
  for (let i = 0; i < 2; i++) expect(await estimate(b, key)).toMatchObject({ status: 200, body: { fee: "0.25%" } });

  const markup = await callServerAction(a.baseUrl, cookie, "setMarkupAction", [150]);
  expect(markup.result).toEqual({ ok: true, data: { markupBps: 150 } });
  await within("B's estimate has the new markup", async () => (await estimate(b, key)).body.fee === "1.75%");

  const revoked = await callServerAction(a.baseUrl, cookie, "revokeKeyAction", [apiKey.id]);
  expect(revoked.result).toEqual({ ok: true, data: null });
  await within("B refuses the revoked key", async () => {
    const r = await estimate(b, key);
    return r.status === 401 && r.body.error?.code === "INVALID_API_KEY";
  });
  // A, the process that made the change, refuses it at once.
  expect((await estimate(a, key)).status).toBe(401);
}

describe("the key cache across two instances", () => {
  it(`a markup change and a revocation made on A apply on B within ${BOUND_MS} ms (${inject("dbKind") === "postgres" ? "LISTEN/NOTIFY" : "SQLite's version row"})`, async () => {
    await twoInstances(CACHE_ENV, markupAndRevocationReachB);
  });

  it.runIf(inject("dbKind") === "postgres")(
    `PostgreSQL with KEY_CACHE_INVALIDATION=redis: A publishes the changes, B applies them within ${BOUND_MS} ms`,
    async () => {
      await twoInstances({ ...CACHE_ENV, REDIS_URL: "redis://127.0.0.1:6379", KEY_CACHE_INVALIDATION: "redis" }, markupAndRevocationReachB);
    },
  );

  it.runIf(inject("dbKind") === "postgres")(
    "a revocation by a third app (the trigger's NOTIFY: no publisher needed) reaches both",
    async () => {
      await twoInstances(CACHE_ENV, async (a, b) => {
        const { reseller, key, apiKey } = await resellerOn(a);
        for (const s of [a, b, a, b]) expect((await estimate(s, key)).status).toBe(200);
        await revokeApiKey(testDb(), { resellerId: reseller.id, keyId: apiKey.id });
        for (const s of [a, b]) await within("the key is refused", async () => (await estimate(s, key)).status === 401);
      });
    },
  );
});
