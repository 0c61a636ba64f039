import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { addressFor, newIp } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type Fakes, startFakes } from "../support/fake-providers";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Issue 31: the built server with all five providers enabled against their fakes. The keyless
// estimate is the best of the five, and the order goes to the provider that gave it.

let fakes: Fakes;
let db: TestDatabase;
let server: RunningApp;

beforeAll(async () => {
  fakes = await startFakes();
  fakes.sideshift.quotesPerMinute = 10_000;
  // Per account (ChangeNOW, Exolix, SimpleSwap): the quote is the user's amount. Exolix pays most.
  fakes.setPair(
    "btc",
    "eth",
    { changenow: "20", sideshift: "20.3", fixedfloat: "20.1", exolix: "20.6", simpleswap: "20.4" },
    { min: "0.001", max: "2" },
  );
  db = await migratedDatabase(inject("dbKind"));
  server = await startApp({ databaseUrl: db.url, env: fakes.env({ all: true }) });
});

afterAll(async () => {
  await server.stop();
  await fakes.stop();
  await db.drop();
});

const call = async (path: string, body?: unknown) => {
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
    method: body ? "POST" : "GET",
    headers: { "x-forwarded-for": newIp(), ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe("five providers over HTTP", () => {
  it("the estimate is the best of the five, and the order goes to it", async () => {
    const est = await call("/estimate?from=btc&to=eth&amount=0.1");
    expect(est.status).toBe(200);
    // Exolix: 0.1 x 20.6 = 2.06 (SimpleSwap 2.04, SideShift 2.030 less 0.25%, FixedFloat 2.01 less 0.25%, ChangeNOW 2).
    expect(est.body.toAmount).toBe(2.06);
    const order = await call("/exchange", { from: "btc", to: "eth", amount: "0.1", address: addressFor("eth") });
    expect(order.status).toBe(201);
    const tx = [...fakes.exolix.transactions.values()].find((t) => t.depositAddress === order.body.payinAddress);
    expect(tx).toBeTruthy();
    expect(order.body.toAmount).toBe(2.06);
    expect(fakes.simpleswap.exchanges.size + fakes.sideshift.shifts.size + fakes.fixedfloat.requestsTo("/api/v2/create").length).toBe(0);
  });
});
