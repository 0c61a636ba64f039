import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { flushProviderCalls } from "@/lib/engine/call-stats-flush";
import { CLI_ACTOR } from "@/lib/operators/audit";
import { addOperator } from "@/lib/operators/operators";
import { newIp, sleep } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type ConsoleClient, consoleClient } from "../support/console";
import { type Fakes, startFakes } from "../support/fake-providers";
import { orderRow } from "../support/orders";
import { migratedDatabase, type TestDatabase } from "../support/server";

// Issue 52, point 7: the console's Providers page. Each provider's calls are counted (success
// rate, p95, last errors) from the real calls the engine makes to the fakes; holds and refunds
// over 30 days; and an operator's run-time switch: applied by every instance sharing the
// database within PROVIDER_SWITCH_SECONDS, kept across a restart, in the audit log.

const admin = privateKeyToAccount(`0x${"c1".repeat(32)}`);
let fakes: Fakes;
let database: TestDatabase;
let a: RunningApp;
let b: RunningApp;
let db: Db;
let console_: ConsoleClient;

// No quote cache and no cool-down: each estimate asks the fake, and a failure does not hide a provider.
const env = () => ({ ...fakes.env(), PROVIDER_SWITCH_SECONDS: "1", PROVIDERS_QUOTE_CACHE_SECONDS: "0", PROVIDERS_COOLDOWN_SECONDS: "0" });

async function estimate(app: RunningApp) {
  const res = await fetch(`${app.baseUrl}/api/v1/estimate?from=btc&to=eth&amount=0.1`, { headers: { "x-forwarded-for": newIp() } });
  return { status: res.status, body: (await res.json()) as any };
}

/** Polls `read` until `ok`, at most 60 times a quarter second apart: a bound waited for, not timed. */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await read();
  for (let i = 0; i < 60 && !ok(v); i++) {
    await sleep(250);
    v = await read();
  }
  return v;
}

beforeAll(async () => {
  fakes = await startFakes();
  // btc -> eth on SideShift only: switching SideShift off leaves the pair without a provider.
  fakes.setPair("btc", "eth", { sideshift: "20" }, { min: "0.001", max: "2" });
  fakes.sideshift.quotesPerMinute = 1000;
  database = await migratedDatabase(inject("dbKind"));
  a = await startApp({ databaseUrl: database.url, env: env(), name: "providers-a" });
  b = await startApp({ databaseUrl: database.url, env: env(), name: "providers-b" });
  db = createDb(database.url);
  await addOperator(db, { walletAddress: admin.address, role: "admin", by: CLI_ACTOR });
  console_ = await consoleClient(a.baseUrl, admin);
});

afterAll(async () => {
  await db?.$disconnect();
  await a?.stop();
  await b?.stop();
  await fakes?.stop();
  await database?.drop();
});

const sideshiftOf = async () => {
  const r = await console_.call("/providers");
  expect(r.status).toBe(200);
  return r.body.providers.find((p: { name: string }) => p.name === "sideshift");
};

describe("the console's Providers page", () => {
  it("counts the engine's real calls: success rate, p95 and the last errors", async () => {
    expect((await estimate(a)).status).toBe(200);
    fakes.sideshift.failNext({ status: 503 });
    expect((await estimate(a)).status).toBe(503);
    await a.app.run(() => flushProviderCalls());
    const s = await sideshiftOf();
    expect(s.calls.total).toBeGreaterThanOrEqual(2);
    expect(s.calls.failures).toBeGreaterThanOrEqual(1);
    expect(s.calls.successRate).toMatch(/^0\.\d{4}$/);
    expect(s.calls.p95Ms).not.toBeNull();
    expect(s.lastErrors[0].message).toMatch(/HTTP 503/);
    expect(s.lastErrors[0].call).toMatch(/^(GET|POST) \//);
    // Two instances flushing the same hour add up, never overwrite.
    const before = s.calls.total;
    await estimate(a);
    await estimate(b);
    await Promise.all([a.app.run(() => flushProviderCalls()), b.app.run(() => flushProviderCalls())]);
    expect((await sideshiftOf()).calls.total).toBeGreaterThanOrEqual(before + 2);
  });

  it("shows each provider's share of holds and refunds over 30 days", async () => {
    const now = new Date();
    const ids = ["f0f0f0f0f0f0f0f0f0f0f001", "f0f0f0f0f0f0f0f0f0f0f002", "f0f0f0f0f0f0f0f0f0f0f003", "f0f0f0f0f0f0f0f0f0f0f004"];
    for (const [i, id] of ids.entries())
      await db.order.create({
        data: orderRow(id, {
          provider: "fixedfloat",
          upstreamId: `ff-${i}`,
          createdAt: now,
          ...(i === 0 ? { status: "failed", refundState: "sent", failureReason: "refunded" } : {}),
        }) as never,
      });
    // Two holds of one order count once; a hold of another provider's order is not FixedFloat's.
    await db.upstreamStatusEvent.createMany({
      data: [
        { orderId: ids[1], provider: "fixedfloat", status: "EMERGENCY", reason: "hold", at: now },
        { orderId: ids[1], provider: "fixedfloat", status: "EMERGENCY", reason: "hold", at: now },
        { orderId: "other", provider: "sideshift", status: "review", reason: "hold", at: now },
      ],
    });
    const r = await console_.call("/providers");
    const ff = r.body.providers.find((p: { name: string }) => p.name === "fixedfloat");
    expect(ff.orders).toEqual({ total: 4, held: 1, refunded: 1, heldShare: "0.2500", refundedShare: "0.2500" });
  });

  it("switches a provider off on every instance within the bound, keeps it across a restart, and back on", async () => {
    expect((await estimate(b)).status).toBe(200);
    const off = await console_.call("/providers/sideshift/disable", { body: { reason: "holding too many orders" } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ provider: "sideshift", enabled: false, changed: true });
    // The instance that switched applies it at once; the other within PROVIDER_SWITCH_SECONDS.
    expect((await estimate(a)).status).not.toBe(200);
    const onB = await until(
      () => estimate(b),
      (r) => r.status !== 200,
    );
    expect(onB.status).toBe(422);
    expect(onB.body.error.code).toBe("CURRENCY_UNAVAILABLE");
    expect((await sideshiftOf()).enabled).toBe(false);

    // A restart reads the switch from the database.
    await b.stop();
    b = await startApp({ databaseUrl: database.url, env: env(), name: "providers-b2" });
    expect((await estimate(b)).status).not.toBe(200);

    const again = await console_.call("/providers/sideshift/disable", { body: { reason: "twice" } });
    expect(again.body.changed).toBe(false);
    expect((await console_.call("/providers/sideshift/enable", { body: { reason: "reviewed" } })).status).toBe(200);
    expect(
      (
        await until(
          () => estimate(b),
          (r) => r.status === 200,
        )
      ).status,
    ).toBe(200);

    const log = await console_.call("/audit?targetType=provider");
    expect(log.body.events.map((e: { action: string; reason: string }) => [e.action, e.reason])).toEqual([
      ["provider.enable", "reviewed"],
      ["provider.disable", "holding too many orders"],
    ]);
  });

  it("refuses an unknown provider and a switch without a reason", async () => {
    expect((await console_.call("/providers/nosuch/disable", { body: { reason: "x" } })).status).toBe(404);
    expect((await console_.call("/providers/sideshift/disable", { body: {} })).status).toBe(400);
    expect((await console_.call("/providers/sideshift/disable", { body: { reason: "   " } })).status).toBe(400);
  });
});
