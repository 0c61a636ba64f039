import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { addressFor, newIp, sleep } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { type Fakes, startFakes } from "../support/fake-providers";
import { assertLedgerConsistent } from "../support/ledger";
import { migratedDatabase, type TestDatabase } from "../support/server";

// A provider goes away mid-run (its fake is killed, later it hangs without answering):
// estimates are answered by the others within the deadline, the open order it holds keeps its
// state however many reads fail, and everything resumes when the provider is back.
//
// The app's quote deadline is a hang guard: a provider that is down refuses at once, and one
// that answers must be waited for, however loaded the machine. The deadline itself is shown
// by a second app on the same database with a short one (its cool-downs its own): the hung
// provider is left out at it, and the others' quotes come back.

const DEADLINE_MS = 1500;
const HANG_GUARD_MS = 120_000;
let fakes: Fakes;
let db: TestDatabase;
let server: RunningApp;
let conn: Db;

beforeAll(async () => {
  fakes = await startFakes();
  // Keyless (commission 25 bps): FixedFloat 0.1 x 21 x 0.9975 = 2.09475, SideShift 0.1 x 20.5 x 0.9975 = 2.044875, ChangeNOW 2.
  fakes.setPair("btc", "eth", { changenow: "20", sideshift: "20.5", fixedfloat: "21" }, { min: "0.001", max: "2" });
  db = await migratedDatabase(inject("dbKind"));
  server = await startApp({
    databaseUrl: db.url,
    env: {
      ...fakes.env(),
      PROVIDERS_QUOTE_DEADLINE_MS: String(HANG_GUARD_MS),
      PROVIDERS_HTTP_TIMEOUT_MS: "8000",
      PROVIDERS_QUOTE_CACHE_SECONDS: "0",
      PROVIDERS_COOLDOWN_SECONDS: "1",
    },
  });
  conn = createDb(db.url);
});

afterAll(async () => {
  await assertLedgerConsistent(conn);
  await conn.$disconnect();
  await server.stop();
  await fakes.stop();
  await db.drop();
});

async function estimate(app: RunningApp = server) {
  const t0 = Date.now();
  const res = await fetch(`${app.baseUrl}/api/v1/estimate?from=btc&to=eth&amount=0.1`, { headers: { "x-forwarded-for": newIp() } });
  return { status: res.status, body: (await res.json()) as any, ms: Date.now() - t0 };
}

async function orderRow(id: string) {
  return conn.order.findUniqueOrThrow({ where: { id } });
}

describe("a provider's outage", () => {
  it("estimates go to the others within the deadline; its open order keeps its state and resumes when it is back", async () => {
    expect((await estimate()).body.toAmount).toBe(2.09475);
    const payout = addressFor("eth");
    // It holds at PENDING (confirming) until the provider is really back: a script that moved on by
    // itself could reach EXCHANGE between the test seeing confirming and the kill on a loaded machine.
    fakes.fixedfloat.script(payout, ["NEW", "PENDING"]);
    const res = await fetch(`${server.baseUrl}/api/v1/exchange`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": newIp() },
      body: JSON.stringify({ from: "btc", to: "eth", amount: "0.1", address: payout }),
    });
    const order = (await res.json()) as any;
    expect([res.status, order.toAmount]).toEqual([201, 2.09475]);
    expect((await orderRow(order.id)).provider).toBe("fixedfloat");
    const deadline = Date.now() + 120_000; // a hang guard
    for (let row = await orderRow(order.id); row.status !== "confirming"; row = await orderRow(order.id)) {
      if (Date.now() > deadline)
        throw new Error(
          `order did not reach confirming: ${row.status}, ${row.attempts} failed reads, ${row.lastError}\n${server.logs().slice(-3000)}`,
        );
      await sleep(20);
    }

    // Killed: connections refused. The estimate is SideShift's, well within the deadline.
    await fakes.fixedfloat.kill();
    const down = await estimate();
    expect([down.status, down.body.toAmount]).toEqual([200, 2.044875]);
    // The open order: more failed reads than WORKER_MAX_ATTEMPTS (3), and still confirming.
    while ((await orderRow(order.id)).attempts < 6) {
      if (Date.now() > deadline + 30_000) throw new Error("the worker did not keep reading");
      await sleep(50);
    }
    const waitingOut = await orderRow(order.id);
    expect([waitingOut.status, waitingOut.failureReason]).toEqual(["confirming", null]);
    expect(waitingOut.lastError).toMatch(/fixedfloat/);

    // Back, but hanging: the estimate stops waiting for it at the deadline and answers with the
    // others. Asked of an app with the short deadline and no cool-down of its own (no worker: the
    // order stays the first app's).
    await fakes.fixedfloat.start();
    const quick = await startApp({
      databaseUrl: db.url,
      env: {
        ...fakes.env(),
        PROVIDERS_QUOTE_DEADLINE_MS: String(DEADLINE_MS),
        PROVIDERS_QUOTE_CACHE_SECONDS: "0",
        WORKER_IN_PROCESS: "false",
      },
    });
    try {
      // It answers only when the test lets it: the estimate can only come back through the deadline.
      let answerLate!: () => void;
      fakes.fixedfloat.failNext({ heldUntil: new Promise<void>((r) => (answerLate = r)) }, 1, (r) => r.path === "/api/v2/price");
      const hung = await estimate(quick);
      answerLate();
      expect([hung.status, hung.body.toAmount]).toEqual([200, 2.044875]);
      expect(hung.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50); // it did wait for the deadline
    } finally {
      await quick.stop();
    }

    // Really back: the order resumes from where it was to finished, and FixedFloat quotes again after its cool-down.
    const ffOrder = [...fakes.fixedfloat.orders.values()].find((o) => o.params.toAddress === payout);
    if (!ffOrder) throw new Error("FixedFloat holds no order for the payout address");
    ffOrder.script.continueWith(["EXCHANGE", "WITHDRAW", "DONE"]);
    const end = Date.now() + 120_000; // a hang guard
    let row = await orderRow(order.id);
    while (row.status !== "finished") {
      if (Date.now() > end) throw new Error(`order did not resume: ${row.status}`);
      await sleep(50);
      row = await orderRow(order.id);
    }
    const events = await conn.orderEvent.findMany({ where: { orderId: order.id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.status)).toEqual(["waiting", "confirming", "exchanging", "sending", "finished"]);
    // After its cool-down, FixedFloat's quote is the best again.
    let best = await estimate();
    for (const until = Date.now() + HANG_GUARD_MS; best.body.toAmount !== 2.09475 && Date.now() < until; ) {
      await sleep(100);
      best = await estimate();
    }
    expect(best.body.toAmount).toBe(2.09475);
  });

  it("with every provider down, estimates answer 503 ENGINE_UNAVAILABLE", async () => {
    await Promise.all([fakes.changenow.kill(), fakes.sideshift.kill(), fakes.fixedfloat.kill()]);
    const r = await estimate();
    expect([r.status, r.body.error.code]).toEqual([503, "ENGINE_UNAVAILABLE"]);
    await Promise.all([fakes.changenow.start(), fakes.sideshift.start(), fakes.fixedfloat.start()]);
  });
});
