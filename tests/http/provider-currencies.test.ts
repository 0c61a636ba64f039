import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getMapping } from "@/lib/providers/mapping";
import { newIp, sleep } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type Fakes, startFakes } from "../support/fake-providers";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Issue 31, /currencies with ENGINE=providers: a currency is available only while an enabled
// provider offers it now (its live list), and its limits are the range the providers stated
// for pairs from it. SideShift alone is enabled; its fake lists only the coins of its pairs.

let fakes: Fakes;
let db: TestDatabase;
let server: RunningApp;

beforeAll(async () => {
  fakes = await startFakes();
  fakes.setPair("btc", "eth", { sideshift: "20" }, { min: "0.0042", max: "3.5" });
  db = await migratedDatabase(inject("dbKind"));
  server = await startApp({
    databaseUrl: db.url,
    env: { ...fakes.env(), CHANGENOW_ENABLED: "false", FIXEDFLOAT_ENABLED: "false" },
  });
});

afterAll(async () => {
  await server.stop();
  await fakes.stop();
  await db.drop();
});

async function currencies(): Promise<Map<string, any>> {
  const r = await fetch(`${server.baseUrl}/api/v1/currencies`, { headers: { "x-forwarded-for": newIp() } });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { currencies: any[] };
  return new Map(body.currencies.map((c) => [c.ticker, c]));
}

describe("/currencies follows what the enabled providers offer now", () => {
  it("isAvailable is false for a currency no enabled provider offers, true for those it does", async () => {
    // ltc is mapped for SideShift, which does not list it: unavailable once SideShift's list is in.
    expect(getMapping("sideshift").assets.has("ltc")).toBe(true);
    let list = await currencies();
    for (let i = 0; list.get("ltc").isAvailable; i++) {
      if (i > 4000) throw new Error("SideShift's currency list never loaded");
      await sleep(50);
      list = await currencies();
    }
    expect([list.get("btc").isAvailable, list.get("eth").isAvailable]).toEqual([true, true]);
    // dcr is mapped only for ChangeNOW, which is disabled.
    expect(getMapping("sideshift").assets.has("dcr")).toBe(false);
    expect(list.get("dcr").isAvailable).toBe(false);
    // And an estimate agrees with the list.
    const est = await fetch(`${server.baseUrl}/api/v1/estimate?from=ltc&to=btc&amount=1`, { headers: { "x-forwarded-for": newIp() } });
    const body = (await est.json()) as any;
    expect([est.status, body.error.code]).toEqual([422, "CURRENCY_UNAVAILABLE"]);
  });

  it("the limits become the range the provider stated, once it was asked", async () => {
    const before = (await currencies()).get("btc");
    expect(before.minAmount).not.toBe(0.0042);
    const est = await fetch(`${server.baseUrl}/api/v1/estimate?from=btc&to=eth&amount=0.1`, { headers: { "x-forwarded-for": newIp() } });
    expect(est.status).toBe(200);
    const after = (await currencies()).get("btc");
    expect([after.minAmount, after.maxAmount]).toEqual([0.0042, 3.5]);
  });
});
