import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { AppError } from "@/lib/errors";
import { errorAnswer } from "@/lib/http/errors";
import { createApiKey } from "@/lib/keys/api-keys";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { isErrorShape, testDb } from "../support/api";
import { runCli } from "../support/cli";
import { callServerAction, signInOverHttp } from "../support/dashboard";
import { recordSecret } from "../support/secrets";

// Issue 48, defect 2: any wallet is a reseller at its first sign-in, and one session made 2,000
// keys in 30 s. A reseller has at most 100 active API keys: the 101st is refused with
// API_KEY_LIMIT_REACHED (409 in the one code -> status table), from the dashboard and from the
// operator CLI alike (one function, lib/keys), also when the creations come at once from two
// processes; a rotation replaces its key (it never counts twice) and a revoked key frees its place.

const CAP = 100;
const origin = () => inject("baseUrl");

describe("at most 100 active API keys per reseller", () => {
  const wallet = privateKeyToAccount(generatePrivateKey());
  let cookie = "";
  let resellerId = "";

  const active = () => testDb().apiKey.count({ where: { resellerId, revokedAt: null } });
  const action = async (name: string, args: unknown[]) => {
    const r = (await callServerAction(origin(), cookie, name, args)).result;
    if (r.ok && r.data?.key) recordSecret(r.data.key);
    return r;
  };
  const refusal = { ok: false, error: { code: "API_KEY_LIMIT_REACHED", message: expect.stringMatching(/at most 100 active API keys/) } };

  beforeAll(async () => {
    const signedIn = await signInOverHttp(origin(), wallet);
    expect(signedIn.error).toBeNull();
    cookie = signedIn.cookie;
    resellerId = (await getResellerByWallet(testDb(), { walletAddress: wallet.address }))!.id;
  });

  it("creations past the cap are refused with API_KEY_LIMIT_REACHED, 409, also when they come at once", async () => {
    for (let i = 0; i < CAP - 10; i++) recordSecret((await createApiKey(testDb(), { resellerId, name: `key ${i}` })).key);
    // 30 at once for the last 10 places: 20 from the dashboard (the server's process) and 10
    // through lib in this process (another process, as the operator's CLI is).
    const fromDashboard = Array.from({ length: 20 }, (_, i) => action("createKeyAction", [`dashboard ${i}`]));
    const fromHere = Array.from({ length: 10 }, (_, i) =>
      createApiKey(testDb(), { resellerId, name: `here ${i}` }).then(
        (k) => {
          recordSecret(k.key);
          return { ok: true };
        },
        (e: unknown) => ({ ok: false, error: { code: e instanceof AppError ? e.code : String(e), message: (e as Error).message } }),
      ),
    );
    const results = await Promise.all([...fromDashboard, ...fromHere]);
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    for (const r of results.filter((x) => !x.ok)) expect(r).toEqual(refusal);
    expect(await active()).toBe(CAP);

    expect(await action("createKeyAction", ["one too many"])).toEqual(refusal);
    expect(await active()).toBe(CAP);
    // Its status and body come from the one table and the one builder every error goes through.
    const answer = errorAnswer(new AppError("API_KEY_LIMIT_REACHED", "at most 100 active API keys"), "test");
    expect(answer.status).toBe(409);
    expect(isErrorShape(answer.body)).toBe(true);
  });

  it("at the cap, a rotation replaces its key: allowed, and it does not count twice", async () => {
    const old = (await testDb().apiKey.findFirst({ where: { resellerId, revokedAt: null }, orderBy: { createdAt: "asc" } }))!;
    const rotated = await action("rotateKeyAction", [old.id]);
    expect(rotated.ok).toBe(true);
    expect(await active()).toBe(CAP);
    expect(await action("createKeyAction", ["still too many"])).toEqual(refusal);
    // Two rotations of one key at once: one wins, nothing is added.
    const again = await Promise.all([
      action("rotateKeyAction", [rotated.data.apiKey.id]),
      action("rotateKeyAction", [rotated.data.apiKey.id]),
    ]);
    expect(again.filter((r) => r.ok)).toHaveLength(1);
    expect(await active()).toBe(CAP);
  });

  it("a revoked key frees its place", async () => {
    const one = (await testDb().apiKey.findFirst({ where: { resellerId, revokedAt: null } }))!;
    expect(await action("revokeKeyAction", [one.id])).toEqual({ ok: true, data: null });
    expect((await action("createKeyAction", ["in its place"])).ok).toBe(true);
    expect(await active()).toBe(CAP);
    expect(await action("createKeyAction", ["and no more"])).toEqual(refusal);
  });

  it("the operator CLI's key:create is held to the same cap", async () => {
    const r = await runCli(inject("databaseUrl"), ["key:create", resellerId, "--name", "from the CLI"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/at most 100 active API keys/);
    expect(await active()).toBe(CAP);
  });
});
