import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { createApiKey } from "@/lib/keys/api-keys";
import { getBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { getOrCreateReseller, setMarkup } from "@/lib/resellers/resellers";
import { addressFor, newIp, sleep } from "../support/api";
import { type RunningApp, startApp } from "../support/app";
import { runCli } from "../support/cli";
import { type Fakes, startFakes } from "../support/fake-providers";
import { assertLedgerConsistent } from "../support/ledger";
import { migratedDatabase, type TestDatabase } from "../support/server";

// ENGINE=providers end to end: the built server, its worker and its database, against the
// three fake providers. The order goes to the best quote, follows the provider's scripted
// status to `finished` and credits the reseller's profit; a provider refund ends `failed`
// with the refund's hash; the sandbox is off; no secret reaches the log.

let fakes: Fakes;
let db: TestDatabase;
let server: RunningApp;
let conn: Db;
let key: string;
let resellerId: string;

beforeAll(async () => {
  fakes = await startFakes();
  // btc -> eth: SideShift pays most for a 150 bps markup (commission 175 bps taken off its 20.6).
  fakes.setPair("btc", "eth", { changenow: "20", sideshift: "20.6", fixedfloat: "20.1" }, { min: "0.001", max: "2" });
  fakes.setPair("xrp", "btc", { changenow: "0.00002" }, { min: "10", max: "100000" });
  db = await migratedDatabase(inject("dbKind"));
  // The worker reads a provider every 250 ms, each read the script's next status; `follow` reads
  // the order before each of those reads is answered, so it sees every status however busy the machine.
  server = await startApp({ databaseUrl: db.url, env: { ...fakes.env(), LOG_LEVEL: "debug", WORKER_POLL_MS: "250" } });
  conn = createDb(db.url);
  const reseller = await getOrCreateReseller(conn, { walletAddress: `0x${"ab".repeat(20)}` });
  await setMarkup(conn, { resellerId: reseller.id, markupBps: 150 });
  resellerId = reseller.id;
  key = (await createApiKey(conn, { resellerId: reseller.id, name: "t" })).key;
});

afterAll(async () => {
  await assertLedgerConsistent(conn);
  await conn.$disconnect();
  await server.stop();
  await fakes.stop();
  await db.drop();
});

async function call(path: string, opts: { body?: unknown; key?: string; ip?: string; method?: string } = {}) {
  const headers: Record<string, string> = { "x-forwarded-for": opts.ip ?? newIp() };
  if (opts.key) headers["x-api-key"] = opts.key;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
    method: opts.method ?? (opts.body !== undefined ? "POST" : "GET"),
    headers,
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * Polls until a final state, keeping every (status, stateReason) seen. The order is also read
 * before each of SideShift's status reads is answered (the fake's beforeRead), so every status
 * a read made is seen before the next read moves the order on, however slow the machine; the
 * reads are one at a time, so `seen` is in the order's order.
 */
async function follow(id: string, opts: { key?: string; timeoutMs?: number } = {}) {
  const seen: string[] = [];
  let reading: Promise<any> = Promise.resolve();
  const read = () => {
    reading = reading.then(async () => {
      const r = await call(`/exchange/${id}`, { key: opts.key });
      const label = r.body.stateReason ? `${r.body.status}/${r.body.stateReason}` : r.body.status;
      if (seen.at(-1) !== label) seen.push(label);
      return r;
    });
    return reading;
  };
  fakes.sideshift.beforeRead = read;
  try {
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000); // a hang guard: how fast is not the point
    for (;;) {
      const r = await read();
      if (r.body.status === "finished" || r.body.status === "failed") return { order: r.body, seen };
      if (Date.now() > deadline) throw new Error(`order ${id} stuck; saw ${seen.join(" -> ")}`);
      await sleep(20);
    }
  } finally {
    fakes.sideshift.beforeRead = null;
  }
}

describe("ENGINE=providers order flow", () => {
  it("the order goes to the best quote, follows the provider's statuses to finished, and the reseller's profit is credited", async () => {
    const ip = newIp().replace(/.*::/, "203.0.113.");
    const est = await call("/estimate?from=btc&to=eth&amount=0.1", { key, ip });
    expect(est.status).toBe(200);
    // SideShift: 0.1 x 20.6 x (1 - 0.0175) = 2.02395; FixedFloat 1.974825; ChangeNOW 2 (per account, 200 bps >= 175).
    expect(est.body).toMatchObject({
      fromCurrency: "btc",
      toCurrency: "eth",
      toAmount: 2.02395,
      fee: "1.75%",
      minAmount: 0.001,
      maxAmount: 2,
    });

    const payout = addressFor("eth");
    const refund = addressFor("btc");
    const created = await call("/exchange", {
      key,
      ip,
      body: { from: "btc", to: "eth", amount: "0.1", address: payout, refundAddress: refund },
    });
    expect(created.status).toBe(201);
    const shift = [...fakes.sideshift.shifts.values()].find((s) => s.body.settleAddress === payout)!;
    expect(created.body).toMatchObject({ payinAddress: shift.depositAddress, payinExtraId: null, toAmount: 2.02395, status: "waiting" });

    // Exactly what SideShift was sent: the firm quote with fee + markup as commission, and the shift from it.
    const quoteReq = fakes.sideshift.requestsTo("/api/v2/quotes").find((r) => r.body.depositAmount === "0.1" && shift.quote.id)!;
    expect(quoteReq.body.commissionRate).toBe("0.0175");
    const shiftReq = fakes.sideshift.requestsTo("/api/v2/shifts/fixed").at(-1)!;
    expect(shiftReq.body).toEqual({
      settleAddress: payout,
      affiliateId: fakes.sideshift.affiliateId,
      quoteId: shift.quote.id,
      externalId: created.body.id,
      refundAddress: refund,
    });
    expect([shiftReq.headers["x-sideshift-secret"], shiftReq.headers["x-user-ip"]]).toEqual([fakes.sideshift.secret, ip]);
    expect(fakes.changenow.requestsTo("/v2/exchange", (r) => r.method === "POST")).toHaveLength(0);
    expect(fakes.fixedfloat.requestsTo("/api/v2/create")).toHaveLength(0);

    const { order, seen } = await follow(created.body.id, { key });
    expect(seen).toEqual(["waiting", "confirming", "exchanging", "sending", "finished"]);
    expect(order).toMatchObject({
      payinHash: `ss-in-${shift.id}`,
      payoutHash: `ss-out-${shift.id}`,
      amountReceived: 0.1,
      toAmount: 2.02395,
    });
    expect(order.history.map((h: any) => h.status)).toEqual(["waiting", "confirming", "exchanging", "sending", "finished"]);

    // profit = ceil(2.02395 / 0.985, 8) - 2.02395 = 2.05477158 - 2.02395
    const row = await conn.order.findUniqueOrThrow({ where: { id: created.body.id } });
    expect([row.provider, row.upstreamId, row.upstreamStatus, row.profit]).toEqual(["sideshift", shift.id, "settled", "0.03082158"]);
    const bal = (await getBalances(conn, resellerId)).find((b) => b.currency === "eth")!;
    expect(new D(bal.available).gte("0.03082158")).toBe(true);
  });

  it("a provider refund keeps the order open (stateReason refunding) until it is done, then ends failed with the refund's hash", async () => {
    const payout = addressFor("eth");
    fakes.sideshift.script(payout, ["waiting", "pending", "processing", "refund", "refund", "refunding", "refunding", "refunded"]);
    const before = (await getBalances(conn, resellerId)).find((b) => b.currency === "eth");
    const created = await call("/exchange", {
      key,
      body: { from: "btc", to: "eth", amount: "0.1", address: payout, refundAddress: addressFor("btc") },
    });
    expect(created.status).toBe(201);
    const { order, seen } = await follow(created.body.id, { key });
    expect(seen).toEqual(["waiting", "confirming", "exchanging", "exchanging/refunding", "failed"]);
    const shift = [...fakes.sideshift.shifts.values()].find((s) => s.body.settleAddress === payout)!;
    expect(order).toMatchObject({
      status: "failed",
      failureReason: "refunded",
      refund: { state: "sent", amount: 0.1, hash: `ss-refund-${shift.id}` },
    });
    expect(order.stateReason).toBeNull();
    // The pending profit was reversed: the eth pending balance is back where it was.
    const after = (await getBalances(conn, resellerId)).find((b) => b.currency === "eth")!;
    expect(after.pending).toBe(before?.pending ?? "0");
  });

  it("keeps reading through the provider's errors: an order is never failed because its provider did not answer", async () => {
    const payout = addressFor("eth");
    // More failed reads in a row than WORKER_MAX_ATTEMPTS (3): 429s, 500s and a read that times out.
    fakes.sideshift.script(payout, [
      "waiting",
      { fault: { status: 429 } },
      { fault: { status: 500 } },
      { fault: { status: 429 } },
      { fault: { status: 503 } },
      "pending",
      "settled",
    ]);
    const created = await call("/exchange", { body: { from: "btc", to: "eth", amount: "0.1", address: payout } });
    const { order, seen } = await follow(created.body.id);
    expect(order.status).toBe("finished");
    expect(seen).toEqual(["waiting", "confirming", "exchanging", "sending", "finished"]);
  });

  it("memos: the refund address and refund memo reach the provider, and its deposit memo comes back as payinExtraId", async () => {
    // Only ChangeNOW offers xrp -> btc (set before the server loaded the currency lists), so the order goes there.
    const refund = addressFor("xrp");
    const created = await call("/exchange", {
      body: { from: "xrp", to: "btc", amount: "100", address: addressFor("btc"), refundAddress: refund, refundExtraId: "4242" },
    });
    expect(created.status).toBe(201);
    const sent = fakes.changenow.requestsTo("/v2/exchange", (r) => r.method === "POST").at(-1)!;
    expect(sent.body).toMatchObject({
      fromCurrency: "xrp",
      fromNetwork: "xrp",
      refundAddress: refund,
      refundExtraId: "4242",
      flow: "fixed-rate",
    });
    const upstream = [...fakes.changenow.orders.values()].at(-1)!;
    expect(created.body).toMatchObject({ payinAddress: upstream.payinAddress, payinExtraId: upstream.payinExtraId, toAmount: 0.002 });
    expect(created.body.payinExtraId).toMatch(/^\d+$/);
  });

  it("the sandbox endpoints are off with this engine", async () => {
    const created = await call("/exchange", { body: { from: "btc", to: "eth", amount: "0.1", address: addressFor("eth") } });
    const dep = await call(`/sandbox/exchange/${created.body.id}/deposit`, { body: {} });
    expect([dep.status, dep.body.error.code]).toEqual([404, "NOT_FOUND"]);
    expect((await call("/sandbox/engine", { body: { fault: "error" } })).status).toBe(404);
  });

  it("no provider secret appears in the server's log", async () => {
    const logs = server.logs();
    expect(logs).toContain("order opened upstream"); // the log is on and says things
    for (const secret of [fakes.changenow.apiKey, fakes.sideshift.secret, fakes.fixedfloat.apiKey, fakes.fixedfloat.apiSecret])
      expect(logs).not.toContain(secret);
  });

  it("orders:stuck flags and lists open upstream orders past the limit", async () => {
    const payout = addressFor("eth");
    fakes.sideshift.script(payout, ["waiting"]);
    const created = await call("/exchange", { body: { from: "btc", to: "eth", amount: "0.1", address: payout } });
    const out = await runCli(db.url, ["orders:stuck"], { PROVIDERS_STUCK_AFTER_MINUTES: "0" });
    expect(out.code).toBe(0);
    expect(out.out).toContain(created.body.id);
    expect(out.out).toMatch(new RegExp(`${created.body.id}\\s+sideshift:ss\\S+\\s+waiting`));
    const row = await conn.order.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.stuckAt).not.toBeNull();
  });
});
