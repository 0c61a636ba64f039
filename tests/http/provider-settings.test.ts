import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { createApiKey } from "@/lib/keys/api-keys";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { newIp } from "../support/api";
import { startApp } from "../support/app";
import { callServerAction, readDashboard, signInOverHttp } from "../support/dashboard";
import { type Fakes, startFakes } from "../support/fake-providers";
import { migratedDatabase, type RunningServer, startServer, type TestDatabase } from "../support/server";

// Issue 31, settings that cannot trap an operator: the built server refuses to start with an
// enabled provider that could take no order, naming the setting; with SideShift (200 bps cap)
// and FixedFloat (FIXEDFLOAT_MAX_AFFTAX_BPS=100) the dashboard shows the markup range (0 to
// 175) and refuses a markup above it with a message naming each provider's cap; a markup set
// before the caps changed gets a 503 that says what is wrong.

let fakes: Fakes;
let db: TestDatabase;

beforeAll(async () => {
  fakes = await startFakes();
  fakes.setPair("btc", "eth", { sideshift: "20", fixedfloat: "20" }, { min: "0.001", max: "2" });
  db = await migratedDatabase(inject("dbKind"));
});

afterAll(async () => {
  await fakes.stop();
  await db.drop();
});

describe("a provider that could take no order: the server refuses to start and names the setting", () => {
  const TRAPS: [string, Record<string, string>, RegExp][] = [
    [
      "CHANGENOW_ENABLED with CHANGENOW_ACCOUNT_COMMISSION_BPS left at 0",
      { CHANGENOW_ACCOUNT_COMMISSION_BPS: "0" },
      /CHANGENOW_ENABLED=true with CHANGENOW_ACCOUNT_COMMISSION_BPS=0, below PLATFORM_FEE_BPS=25/,
    ],
    [
      "FIXEDFLOAT_MAX_AFFTAX_BPS below the fee",
      { FIXEDFLOAT_MAX_AFFTAX_BPS: "20" },
      /FIXEDFLOAT_MAX_AFFTAX_BPS=20, below PLATFORM_FEE_BPS=25/,
    ],
    [
      "a platform fee above SideShift's cap",
      { PLATFORM_FEE_BPS: "201", CHANGENOW_ACCOUNT_COMMISSION_BPS: "300" },
      /SIDESHIFT_ENABLED=true with PLATFORM_FEE_BPS=201/,
    ],
  ];
  // The refusal is the app's (its settings are checked as it is made): apps in this process show
  // it; the first trap also starts the built server, to show that the process exits on it.
  for (const [i, [name, env, message]] of TRAPS.entries())
    it(name, async () => {
      const err = await startApp({ databaseUrl: db.url, env: { ...fakes.env(), ...env } }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toMatch(message);
      if (i > 0) return;
      const exited = await startServer({ databaseUrl: db.url, env: { ...fakes.env(), ...env } }).catch((e: Error) => e);
      expect(exited).toBeInstanceOf(Error);
      expect((exited as Error).message).toMatch(/server exited \(1\)/);
      expect((exited as Error).message).toMatch(message);
    });
});

describe("the markup range with SideShift (200 bps) and FixedFloat (100 bps)", () => {
  let server: RunningServer;
  let conn: Db;
  const wallet = privateKeyToAccount(`0x${"4d".repeat(32)}`);
  let cookie = "";

  beforeAll(async () => {
    server = await startServer({
      databaseUrl: db.url,
      env: { ...fakes.env(), CHANGENOW_ENABLED: "false", FIXEDFLOAT_MAX_AFFTAX_BPS: "100", SERVE_DASHBOARD: "true" },
    });
    conn = createDb(db.url);
    const s = await signInOverHttp(server.baseUrl, wallet);
    expect(s.error).toBeNull();
    cookie = s.cookie;
  });

  afterAll(async () => {
    await conn?.$disconnect();
    await server?.stop();
  });

  it("the Settings page's data says 0 to 175 bps, set by the providers, with each one's part", async () => {
    const r = await readDashboard(server.baseUrl, cookie, "settings", {});
    expect(r.body).toMatchObject({
      capBps: 175,
      capLimitedBy: "providers",
      providerCaps: [
        { label: "SideShift", maxMarkupBps: 175 },
        { label: "FixedFloat", maxMarkupBps: 75 },
      ],
    });
  });

  it("a markup above the range is refused before it is saved, and the message says why", async () => {
    const r = await callServerAction(server.baseUrl, cookie, "setMarkupAction", [300]);
    expect(r.result.error.code).toBe("INVALID_MARKUP");
    expect(r.result.error.message).toMatch(/from 0 to 175\b/);
    expect(r.result.error.message).toMatch(/SideShift up to 175 bps, FixedFloat up to 75 bps/);
    const me = await getResellerByWallet(conn, { walletAddress: wallet.address });
    expect(me!.markupBps).toBe(0);
    const ok = await callServerAction(server.baseUrl, cookie, "setMarkupAction", [175]);
    expect(ok.result.data.markupBps).toBe(175);
  });

  it("a markup set before the caps changed: the 503 names the markup and the highest one the providers take", async () => {
    const me = (await getResellerByWallet(conn, { walletAddress: wallet.address }))!;
    await conn.reseller.update({ where: { id: me.id }, data: { markupBps: 300 } });
    const { key } = await createApiKey(conn, { resellerId: me.id, name: "t" });
    const res = await fetch(`${server.baseUrl}/api/v1/estimate?from=btc&to=eth&amount=0.1`, {
      headers: { "x-api-key": key, "x-forwarded-for": newIp() },
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(503);
    expect(body.error.code).toBe("ENGINE_UNAVAILABLE");
    expect(body.error.message).toMatch(/markup of 300 bps is above what the providers of btc -> eth accept/);
    expect(body.error.message).toMatch(/lower the markup to 175 bps or less/);
    expect(body.error.message).not.toMatch(/right now/);
    // Keyless, the same pair is quoted: nothing about a markup the caller does not have.
    const keyless = await fetch(`${server.baseUrl}/api/v1/estimate?from=btc&to=eth&amount=0.1`, {
      headers: { "x-forwarded-for": newIp() },
    });
    expect(keyless.status).toBe(200);
  });

  it("a pair no enabled provider offers is CURRENCY_UNAVAILABLE, not a markup problem", async () => {
    // dcr is mapped only for ChangeNOW, which is disabled here.
    const res = await fetch(`${server.baseUrl}/api/v1/estimate?from=dcr&to=btc&amount=10`, { headers: { "x-forwarded-for": newIp() } });
    const body = (await res.json()) as any;
    expect([res.status, body.error.code]).toEqual([422, "CURRENCY_UNAVAILABLE"]);
    expect(body.error.message).not.toMatch(/markup/);
  });
});
