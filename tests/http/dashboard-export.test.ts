import { parse } from "csv-parse/sync";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LEDGER_CSV_COLUMNS, ORDER_CSV_COLUMNS } from "@/lib/dashboard/export";
import { createDb, type Db } from "@/lib/db/client";
import { type Caller, createApiKey } from "@/lib/keys/api-keys";
import { getBalances } from "@/lib/ledger/ledger";
import { D, type Dec } from "@/lib/money/decimal";
import { createOrder } from "@/lib/orders/create-order";
import { getResellerByWallet, setMarkup } from "@/lib/resellers/resellers";
import { addressFor, sleep } from "../support/api";
import { signInOverHttp } from "../support/dashboard";
import { migratedDatabase, type RunningServer, startServer, type TestDatabase } from "../support/server";

// CSV downloads of orders and of the profit ledger, from a running server, parsed with a
// CSV library as a spreadsheet would read them. This suite has a server and database of its
// own: its 1,000 waiting orders would otherwise be in the way of other suites' worker passes
// over the shared database (a pass takes 100 due orders at a time).

const ORDERS = 1000;
let db: TestDatabase;
let server: RunningServer;
let conn: Db;
const origin = () => server.baseUrl;
const testDb = () => conn;

/** The v1 API of this suite's server. */
async function api(path: string, key: string, body?: unknown) {
  const res = await fetch(`${origin()}/api/v1${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function waitFor(id: string, key: string, status: string) {
  for (let i = 0; i < 300; i++) {
    if ((await api(`/exchange/${id}`, key)).body.status === status) return;
    await sleep(50);
  }
  throw new Error(`order ${id} never reached ${status}`);
}

beforeAll(async () => {
  db = await migratedDatabase(inject("dbKind"));
  server = await startServer({ databaseUrl: db.url });
  conn = createDb(db.url);
});
afterAll(async () => {
  await conn?.$disconnect();
  await server?.stop();
  await db?.drop();
});

async function download(path: string, cookie: string | null) {
  const res = await fetch(origin() + path, { headers: cookie ? { cookie } : {} });
  const text = await res.text();
  const rows = res.ok ? (parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[]) : [];
  const header = res.ok ? (parse(text, { to_line: 1 }) as string[][])[0] : [];
  return { res, text, rows, header };
}

describe("CSV export", () => {
  const walletA = privateKeyToAccount(generatePrivateKey());
  const walletB = privateKeyToAccount(generatePrivateKey());
  let cookieA = "";
  let cookieB = "";
  let finishedId = "";
  let failedId = "";
  let resellerA = "";
  const hostileName = '=HYPERLINK("https://evil.example","click")';

  beforeAll(async () => {
    const a = await signInOverHttp(origin(), walletA);
    const b = await signInOverHttp(origin(), walletB);
    cookieA = a.cookie;
    cookieB = b.cookie;
    resellerA = (await getResellerByWallet(testDb(), { walletAddress: walletA.address }))!.id;
    await setMarkup(testDb(), { resellerId: resellerA, markupBps: 120 });
    // A key whose name is a spreadsheet formula, as a careless (or hostile) user could type it.
    const k = await createApiKey(testDb(), { resellerId: resellerA, name: hostileName });
    const caller: Caller = { resellerId: resellerA, apiKeyId: k.apiKey.id, markupBps: 120 };
    // 1,000 orders through the service layer (the API's 300 requests/min per key would make
    // this a five-minute setup), then two through the API that reach finished and failed.
    const ctx = { scope: `reseller:${resellerA}` };
    for (let i = 0; i < ORDERS; i += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, ORDERS - i) }, () =>
          createOrder(testDb(), { input: { from: "btc", to: "eth", amount: "0.05", address: addressFor("eth") }, caller, ctx }),
        ),
      );
    const viaApi = async () => {
      const r = await api("/exchange", k.key, { from: "btc", to: "eth", amount: "0.1", address: addressFor("eth") });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id as string;
    };
    finishedId = await viaApi();
    failedId = await viaApi();
    expect((await api(`/sandbox/exchange/${finishedId}/deposit`, k.key, {})).status).toBe(200);
    expect((await api(`/sandbox/exchange/${failedId}/deposit`, k.key, { amount: "0.00000001" })).status).toBe(200);
    await waitFor(finishedId, k.key, "finished");
    await waitFor(failedId, k.key, "failed");
  });

  it("the orders CSV of 1,000+ orders downloads, streamed, with the right columns and every order exactly", async () => {
    const { res, rows, header } = await download("/dashboard/export/orders", cookieA);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("content-length")).toBeNull(); // streamed, not buffered
    expect(header).toEqual([...ORDER_CSV_COLUMNS]);
    expect(rows).toHaveLength(ORDERS + 2);

    const db = await testDb().order.findMany({ where: { resellerId: resellerA } });
    const byId = new Map(db.map((o) => [o.id, o]));
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(byId.keys()));
    for (const r of rows) {
      const o = byId.get(r.id)!;
      expect([r.status, r.from_amount, r.to_amount, r.expected_profit, r.markup_bps]).toEqual([
        o.status,
        o.fromAmount,
        o.toAmount,
        o.profit,
        "120",
      ]);
      expect(r.created_at).toBe(o.createdAt.toISOString());
    }
    // Newest first, like the page.
    const times = rows.map((r) => Date.parse(r.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const finished = rows.find((r) => r.id === finishedId)!;
    expect(finished.status).toBe("finished");
    expect(new D(finished.realised_profit).eq(byId.get(finishedId)!.profit)).toBe(true);
    expect(rows.find((r) => r.id === failedId)).toMatchObject({
      status: "failed",
      realised_profit: "",
      failure_reason: "deposit_below_minimum",
    });
  });

  it("cells that would run as spreadsheet formulas are written as text", async () => {
    const { text, rows } = await download("/dashboard/export/orders?status=finished", cookieA);
    expect(rows.map((r) => r.id)).toEqual([finishedId]);
    expect(rows[0].api_key_name).toBe(`'${hostileName}`);
    expect(text).not.toMatch(/(^|,)"?=HYPERLINK/m);
  });

  it("the export follows the page's filters: state and id prefix", async () => {
    expect((await download("/dashboard/export/orders?status=failed", cookieA)).rows.map((r) => r.id)).toEqual([failedId]);
    const prefix = finishedId.slice(0, 10);
    const byPrefix = (await download(`/dashboard/export/orders?q=${prefix}`, cookieA)).rows;
    expect(byPrefix.map((r) => r.id)).toContain(finishedId);
    expect(byPrefix.every((r) => r.id.startsWith(prefix))).toBe(true);
    expect((await download("/dashboard/export/orders?q=%3DCMD()", cookieA)).rows).toEqual([]);
  });

  it("the ledger CSV sums to the balances, negative amounts stay numbers", async () => {
    const { res, rows, header } = await download("/dashboard/export/ledger", cookieA);
    expect(res.headers.get("content-disposition")).toMatch(/filename="profit-ledger-/);
    expect(header).toEqual([...LEDGER_CSV_COLUMNS]);
    // 1,002 pending postings, a release and a settle for the finished order, a reversal for the failed one.
    expect(rows).toHaveLength(ORDERS + 2 + 3);
    const reversal = rows.find((r) => r.order_id === failedId && r.kind === "order_profit_reverse")!;
    expect(reversal.amount).toMatch(/^-\d+\.\d+$/);
    const sums = new Map<string, Dec>();
    for (const r of rows) sums.set(`${r.currency}:${r.bucket}`, (sums.get(`${r.currency}:${r.bucket}`) ?? new D(0)).plus(r.amount));
    for (const b of await getBalances(testDb(), resellerA)) {
      expect(sums.get(`${b.currency}:pending`)?.toFixed() ?? "0").toBe(b.pending);
      expect(sums.get(`${b.currency}:available`)?.toFixed() ?? "0").toBe(b.available);
    }
  });

  it("a second wallet's exports have none of the first's rows", async () => {
    const orders = await download("/dashboard/export/orders", cookieB);
    expect(orders.res.status).toBe(200);
    expect(orders.header).toEqual([...ORDER_CSV_COLUMNS]);
    expect(orders.rows).toEqual([]);
    expect((await download(`/dashboard/export/orders?q=${finishedId}`, cookieB)).rows).toEqual([]);
    const ledger = await download("/dashboard/export/ledger", cookieB);
    expect(ledger.rows).toEqual([]);
    expect(orders.text + ledger.text).not.toContain(finishedId);
  });

  it("without a session there is nothing to download", async () => {
    for (const path of ["/dashboard/export/orders", "/dashboard/export/ledger"]) {
      const r = await download(path, null);
      expect(r.res.status).toBe(401);
      expect(JSON.parse(r.text).error.code).toBe("UNAUTHORIZED");
    }
  });
});
