import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createWidget } from "@/lib/channels/channels";
import { createDb, type Db } from "@/lib/db/client";
import { getOrCreateReseller, setMarkup } from "@/lib/resellers/resellers";
import { addressFor, newIp, sleep } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type Fakes, startFakes } from "../support/fake-providers";
import { assertLedgerConsistent } from "../support/ledger";
import { recordSecret } from "../support/secrets";
import { migratedDatabase, type TestDatabase } from "../support/server";

// The hosted page and the widget with ENGINE=providers, against the fake providers: the
// estimate is the best provider's with the widget's markup, the order opens upstream, and its
// status (with the link's secret) follows the provider to finished. No sandbox button here.

let fakes: Fakes;
let db: TestDatabase;
let server: RunningApp;
let conn: Db;
let widgetId: string;
let resellerId: string;

beforeAll(async () => {
  fakes = await startFakes();
  fakes.setPair("btc", "eth", { changenow: "20", sideshift: "20.6", fixedfloat: "20.1" }, { min: "0.001", max: "2" });
  db = await migratedDatabase(inject("dbKind"));
  server = await startApp({ databaseUrl: db.url, env: fakes.env() });
  conn = createDb(db.url);
  const reseller = await getOrCreateReseller(conn, { walletAddress: `0x${"cd".repeat(20)}` });
  resellerId = reseller.id;
  await setMarkup(conn, { resellerId, markupBps: 50 });
  widgetId = (await createWidget(conn, { resellerId, input: { name: "Providers widget", markupBps: 150 } })).id;
});

afterAll(async () => {
  await assertLedgerConsistent(conn);
  await conn.$disconnect();
  await server.stop();
  await fakes.stop();
  await db.drop();
});

async function call(path: string, opts: { body?: unknown; ip?: string; headers?: Record<string, string>; method?: string } = {}) {
  const headers: Record<string, string> = {
    "x-forwarded-for": opts.ip ?? newIp(),
    "sec-fetch-site": "same-origin",
    ...(opts.headers ?? {}),
  };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.baseUrl}/api/hosted${path}`, {
    method: opts.method ?? (opts.body !== undefined ? "POST" : "GET"),
    headers,
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe("hosted page and widget with ENGINE=providers", () => {
  it("estimate with the widget's markup from the best provider, an order opened upstream, its status to finished", async () => {
    const ip = newIp().replace(/.*::/, "203.0.113.");
    const est = await call(`/estimate?w=${widgetId}&from=btc&to=eth&amount=0.1`, { ip });
    expect(est.status).toBe(200);
    // SideShift: 0.1 x 20.6 x (1 - 0.0175) = 2.02395 (platform 25 + widget 150 bps as commission).
    expect(est.body).toMatchObject({ fromCurrency: "btc", toCurrency: "eth", toAmount: "2.02395", fee: "1.75%" });
    const page = await call(`/estimate?r=${resellerId}&from=btc&to=eth&amount=0.1`, { ip });
    expect(page.body.fee).toBe("0.75%");

    const payout = addressFor("eth");
    const made = await call("/orders", {
      ip,
      body: { w: widgetId, from: "btc", to: "eth", amount: "0.1", address: payout, refundAddress: addressFor("btc") },
    });
    expect(made.status).toBe(201);
    recordSecret(made.body.token);
    const shift = [...fakes.sideshift.shifts.values()].find((s) => s.body.settleAddress === payout)!;
    expect(made.body.order).toMatchObject({ payinAddress: shift.depositAddress, toAmount: 2.02395, status: "waiting" });
    const row = await conn.order.findUniqueOrThrow({ where: { id: made.body.order.id } });
    expect(row).toMatchObject({ provider: "sideshift", channel: `widget:${widgetId}`, markupBps: 150 });
    // No sandbox with real liquidity.
    const dep = await call(`/orders/${row.id}/deposit`, { method: "POST", headers: { "x-order-token": made.body.token } });
    expect(dep.status).toBe(404);

    let last: any;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(50)) {
      last = (await call(`/orders/${row.id}`, { headers: { "x-order-token": made.body.token } })).body;
      if (last.status === "finished" || last.status === "failed") break;
    }
    expect(last.status).toBe("finished");
    expect((await call(`/orders/${row.id}`)).status).toBe(404);
  });
});
