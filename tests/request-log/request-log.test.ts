import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveDashboardRead } from "@/lib/dashboard/reads";
import { createDb, type Db } from "@/lib/db/client";
import { createApiKey } from "@/lib/keys/api-keys";
import type { RequestLogRow } from "@/lib/request-log/buffer";
import { decodeEntries } from "@/lib/request-log/entries";
import { listRequestLog, type RequestLogCursor } from "@/lib/request-log/list";
import { pruneRequestLog } from "@/lib/request-log/retention";
import type { RequestLogPage, RequestLogView } from "@/lib/request-log/types";
import { writeRequestLogRows } from "@/lib/request-log/write";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { type RunningApp, startApp } from "../support/app";
import { migratedDatabase, type TestDatabase } from "../support/server";
import { tempDatabase } from "../support/sqlite-db";

// The request log end to end, on each database: an app in this process (tests/support/app.ts)
// answers real requests made with two resellers' keys; each reseller's list (the function and
// the dashboard's read) holds its own requests, with their status, error code, route template
// and masked path, and nothing of the other's; the filters and the keyset pages; the rows
// waiting in memory written by the graceful shutdown; the retention deleting old rows only.
// No wall clock: the test polls until the rows are there (the bound is 5 s; it waits up to 30).

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ORDER_ID = "0123456789abcdef01234567";
const ADDRESS = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";

async function newReseller(db: Db, keys: string[]) {
  const r = await getOrCreateReseller(db, { walletAddress: `0x${crypto.randomBytes(20).toString("hex")}` });
  const made = [];
  for (const name of keys) made.push(await createApiKey(db, { resellerId: r.id, name }));
  return { id: r.id, keys: made.map((k) => ({ key: k.key, id: k.apiKey.id, prefix: k.apiKey.prefix, name: k.apiKey.name })) };
}

/** The dashboard's read as its route handler serves it, for a signed-in reseller (null: no session). */
async function readRequests(db: Db, resellerId: string | null, query: string): Promise<{ status: number; body: RequestLogPage }> {
  const r = await serveDashboardRead(db, {
    name: "requests",
    params: new URLSearchParams(query),
    session: async () => (resellerId ? { resellerId, role: "developer" } : null),
  });
  return { status: r.status, body: (await r.json()) as RequestLogPage };
}

/** Every entry stored, of every reseller (the batches decoded), with its reseller. */
async function storedEntries(db: Db) {
  const batches = await db.apiRequestBatch.findMany({ orderBy: { id: "asc" } });
  return batches.flatMap((b) => decodeEntries(b.entries).map((e) => ({ ...e!, resellerId: b.resellerId })));
}

/** Every row of the reseller's list, walking the keyset pages `pageSize` at a time. */
async function walk(db: Db, q: Parameters<typeof listRequestLog>[1]) {
  const all: RequestLogView[] = [];
  let older: RequestLogCursor | null = null;
  let pages = 0;
  do {
    const page = await listRequestLog(db, { ...q, older });
    all.push(...page.items);
    older = page.older;
    pages++;
  } while (older && pages < 1000);
  return { all, pages };
}

describe.each(["sqlite", "postgres"] as const)("the request log on %s", (kind) => {
  let database: TestDatabase;
  let server: RunningApp;
  let db: Db;
  let a: Awaited<ReturnType<typeof newReseller>>;
  let b: Awaited<ReturnType<typeof newReseller>>;
  const sent = new Map<string, { reseller: string; key: string; status: number; code: string | null; route: string; path: string }>();

  beforeAll(async () => {
    database = await migratedDatabase(kind);
    server = await startApp({ databaseUrl: database.url, env: { REQUEST_LOG_FLUSH_MS: "200", REQUEST_LOG_BATCH: "50" } });
    db = createDb(database.url);
    a = await newReseller(db, ["A main", "A second"]);
    b = await newReseller(db, ["B only"]);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.$disconnect();
    await database?.drop();
  });

  async function call(
    path: string,
    key: string | null,
    expected: { status: number; code: string | null; route: string; masked: string },
    baseUrl = server.baseUrl,
  ) {
    const requestId = `test-${crypto.randomUUID()}`;
    const r = await fetch(`${baseUrl}${path}`, {
      headers: { ...(key ? { "x-api-key": key } : {}), "x-request-id": requestId },
    });
    const body = (await r.json()) as { error?: { code: string } };
    expect([r.status, body.error?.code ?? null], path).toEqual([expected.status, expected.code]);
    return requestId;
  }

  /** The three requests of the brief (a 200, a 422, a 404), an unmatched path, and a keyless one, with `key`. */
  async function traffic(reseller: string, key: { key: string; id: string }) {
    const cases = [
      { path: `/api/v1/currencies?address=${ADDRESS}`, status: 200, code: null, route: "/api/v1/currencies", masked: "/api/v1/currencies" },
      {
        path: `/api/v1/estimate?from=btc&to=btc&amount=1&address=${ADDRESS}`,
        status: 422,
        code: "SAME_CURRENCY",
        route: "/api/v1/estimate",
        masked: "/api/v1/estimate",
      },
      {
        path: `/v1/exchange/${ORDER_ID}`,
        status: 404,
        code: "ORDER_NOT_FOUND",
        route: "/api/v1/exchange/:id",
        masked: "/v1/exchange/012345…4567",
      },
      { path: `/api/v1/no-such/${ADDRESS}`, status: 404, code: "NOT_FOUND", route: "unmatched", masked: "/api/v1/no-such/bc1qar…5mdq" },
    ];
    for (const c of cases) {
      const id = await call(c.path, key.key, c);
      sent.set(id, { reseller, key: key.id, status: c.status, code: c.code, route: c.route, path: c.masked });
    }
    // Keyless: not the reseller's, not logged.
    await call("/api/v1/currencies", null, { status: 200, code: null, route: "", masked: "" });
  }

  const expectedOf = (reseller: string) => [...sent].filter(([, s]) => s.reseller === reseller);

  async function untilLogged(reseller: string) {
    const want = expectedOf(reseller).length;
    for (let i = 0; i < 300; i++) {
      const { all } = await walk(db, { resellerId: reseller, pageSize: 100 });
      if (all.length >= want) return all;
      await sleep(100);
    }
    throw new Error(`the request log did not show ${want} rows for ${reseller} within 30 s`);
  }

  it("each reseller's list holds its own keyed requests, with status, code, route and masked path, and nothing of the other's", async () => {
    await traffic(a.id, a.keys[0]);
    await traffic(a.id, a.keys[1]);
    await traffic(b.id, b.keys[0]);
    for (const [reseller, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const rows = await untilLogged(reseller.id);
      const want = expectedOf(reseller.id);
      expect(rows).toHaveLength(want.length);
      const byRequest = new Map(rows.map((r) => [r.requestId, r]));
      for (const [requestId, s] of want) {
        const row = byRequest.get(requestId);
        expect(row, requestId).toBeDefined();
        expect(row).toMatchObject({ method: "GET", status: s.status, errorCode: s.code, route: s.route, path: s.path });
        expect(row?.key?.id).toBe(s.key);
        expect(row?.latencyMs).toBeGreaterThanOrEqual(0);
      }
      // Newest first (the requests were made one after another, so no two batches overlap in time).
      const times = rows.map((r) => Date.parse(r.at));
      expect(times).toEqual([...times].sort((x, y) => y - x));
      // Nothing of the other reseller's: no request id, no key.
      const otherIds = new Set(expectedOf(other.id).map(([id]) => id));
      expect(rows.filter((r) => otherIds.has(r.requestId))).toEqual([]);
      expect(rows.every((r) => reseller.keys.some((k) => k.id === r.key?.id))).toBe(true);
      // Never an address, a query string or a key in what is stored.
      for (const r of rows) {
        expect(r.path).not.toContain("?");
        expect(r.path).not.toContain(ADDRESS);
        expect(r.path).not.toContain(ORDER_ID);
      }
    }
    // The table as a whole: only keyed requests (the keyless ones left no row).
    expect((await storedEntries(db)).length).toBe(sent.size);
    const stored = JSON.stringify(await db.apiRequestBatch.findMany());
    for (const k of [...a.keys, ...b.keys]) expect(stored).not.toContain(k.key);
    expect(stored).not.toContain(ADDRESS);
  });

  it("filters by status class, route, key and time range, always within the reseller", async () => {
    const mine = expectedOf(a.id);
    const list = async (q: Omit<Parameters<typeof listRequestLog>[1], "resellerId">) =>
      (await walk(db, { resellerId: a.id, pageSize: 100, ...q })).all;
    const ids = (rows: RequestLogView[]) => rows.map((r) => r.requestId).sort();
    const expectIds = (pred: (s: (typeof mine)[number][1]) => boolean) =>
      mine
        .filter(([, s]) => pred(s))
        .map(([id]) => id)
        .sort();

    expect(ids(await list({ statusClass: 4 }))).toEqual(expectIds((s) => s.status >= 400 && s.status < 500));
    expect(ids(await list({ statusClass: 2 }))).toEqual(expectIds((s) => s.status === 200));
    expect(await list({ statusClass: 5 })).toEqual([]);
    expect(ids(await list({ route: "/api/v1/exchange/:id" }))).toEqual(expectIds((s) => s.route === "/api/v1/exchange/:id"));
    expect(ids(await list({ route: "unmatched" }))).toEqual(expectIds((s) => s.route === "unmatched"));
    expect(ids(await list({ keyId: a.keys[1].id }))).toEqual(expectIds((s) => s.key === a.keys[1].id));
    expect(ids(await list({ keyId: a.keys[1].id, statusClass: 4 }))).toEqual(
      expectIds((s) => s.key === a.keys[1].id && s.status >= 400 && s.status < 500),
    );
    // Another reseller's key id: nothing, not its requests.
    expect(await list({ keyId: b.keys[0].id })).toEqual([]);
    expect(await list({ keyId: "no-such-key" })).toEqual([]);
    // Time range: from (inclusive) .. to (exclusive).
    const all = await list({});
    const times = all.map((r) => Date.parse(r.at)).sort((x, y) => x - y);
    const first = new Date(times[0]);
    const last = new Date(times[times.length - 1]);
    expect(await list({ from: first, to: new Date(last.getTime() + 1) })).toHaveLength(all.length);
    expect(await list({ to: first })).toEqual([]);
    expect(await list({ from: new Date(last.getTime() + 1) })).toEqual([]);
    const mid = new Date(times[Math.floor(times.length / 2)]);
    const before = await list({ to: mid });
    const after = await list({ from: mid });
    expect(before.length + after.length).toBe(all.length);
    expect(before.every((r) => Date.parse(r.at) < mid.getTime())).toBe(true);
    expect(after.every((r) => Date.parse(r.at) >= mid.getTime())).toBe(true);
  });

  it("keyset pages newest first: every row once, in order, whatever the page size", async () => {
    const whole = (await walk(db, { resellerId: a.id, pageSize: 100 })).all;
    expect(whole.length).toBeGreaterThan(5);
    for (const size of [1, 2, 3]) {
      const { all, pages } = await walk(db, { resellerId: a.id, pageSize: size });
      expect(all.map((r) => r.id)).toEqual(whole.map((r) => r.id));
      expect(pages).toBe(Math.ceil(whole.length / size));
    }
    // Pages with a filter too.
    const fours = (await walk(db, { resellerId: a.id, statusClass: 4, pageSize: 100 })).all;
    expect((await walk(db, { resellerId: a.id, statusClass: 4, pageSize: 2 })).all.map((r) => r.id)).toEqual(fours.map((r) => r.id));
    // Pages of a time range: the cursor and the range's end bound the same column, and only the
    // tighter of the two is sent (lib/request-log/list.ts); either way every row of the range comes once.
    const from = new Date(whole[whole.length - 2].at);
    const to = new Date(whole[1].at);
    const inRange = whole.filter((r) => new Date(r.at) >= from && new Date(r.at) < to).map((r) => r.id);
    expect(inRange.length).toBeGreaterThan(1);
    for (const size of [1, 2])
      expect((await walk(db, { resellerId: a.id, from, to, pageSize: size })).all.map((r) => r.id)).toEqual(inRange);
    const later = { lastAt: new Date(to.getTime() + 86_400_000), batchId: 2 ** 31 - 1, index: 0 };
    expect((await listRequestLog(db, { resellerId: a.id, from, to, older: later, pageSize: 100 })).items.map((r) => r.id)).toEqual(inRange);
    const earlier = { lastAt: new Date(from.getTime() - 1), batchId: 2 ** 31 - 1, index: 0 };
    expect((await listRequestLog(db, { resellerId: a.id, from, to, older: earlier, pageSize: 100 })).items).toEqual([]);
    // The page size is bounded.
    const big = await listRequestLog(db, { resellerId: a.id, pageSize: 10_000 });
    expect(big.items.length).toBeLessThanOrEqual(100);
  });

  it("the dashboard's read: the session's reseller only, its filters, its pages, and its bad queries refused", async () => {
    const first = await readRequests(db, a.id, "");
    expect(first.status).toBe(200);
    const mine = new Set(expectedOf(a.id).map(([id]) => id));
    expect(first.body.items.length).toBe(mine.size);
    expect(first.body.items.every((r) => mine.has(r.requestId))).toBe(true);
    expect(first.body.items[0].key).toMatchObject({ name: expect.stringMatching(/^A /), prefix: expect.any(String) });
    expect(first.body.filters.routes).toContain("/api/v1/exchange/:id");
    expect(first.body.filters.keys.map((k) => k.id).sort()).toEqual(a.keys.map((k) => k.id).sort());
    // Its filters, as the page sends them.
    const from = new Date(Date.parse(first.body.items.at(-1)!.at)).toISOString();
    const fours = await readRequests(db, a.id, `status=4xx&from=${encodeURIComponent(from)}`);
    expect(fours.body.items.length).toBeGreaterThan(0);
    expect(fours.body.items.every((r) => r.status >= 400 && r.status < 500)).toBe(true);
    const byKey = await readRequests(db, a.id, `key=${a.keys[0].id}&route=${encodeURIComponent("/api/v1/currencies")}`);
    expect(byKey.body.items.map((r) => [r.key?.id, r.route])).toEqual([[a.keys[0].id, "/api/v1/currencies"]]);
    // B asking with A's key id, or any filter, sees nothing of A's.
    const b1 = await readRequests(db, b.id, `key=${a.keys[0].id}`);
    expect([b1.status, b1.body.items]).toEqual([200, []]);
    const bAll = await readRequests(db, b.id, "");
    expect(bAll.body.items.some((r) => mine.has(r.requestId))).toBe(false);
    expect(bAll.body.filters.keys.map((k) => k.id)).toEqual([b.keys[0].id]);
    // Without a session: 401.
    expect((await readRequests(db, null, "")).status).toBe(401);
    // Bad queries: 400 INVALID_REQUEST, never a 500.
    for (const q of [
      "status=6xx",
      "status=4",
      "from=yesterday",
      "to=2026-13-01T00:00:00Z",
      "older=not-a-cursor",
      "older=1_2147483648_0",
      `route=${"x".repeat(101)}`,
      `resellerId=${a.id}`,
      "status=2xx&status=4xx",
    ]) {
      const r = await readRequests(db, a.id, q);
      expect([r.status, (r.body as unknown as { error: { code: string } }).error?.code], q).toEqual([400, "INVALID_REQUEST"]);
    }
  });

  it("the dashboard's read pages with `older` until the last page", async () => {
    const seen: string[] = [];
    let older: string | null = "";
    let pages = 0;
    // One row a page is enough to walk: the read's page is 50, so make the list longer than that.
    for (let i = 0; i < 60; i++) await call("/api/v1/currencies", b.keys[0].key, { status: 200, code: null, route: "", masked: "" });
    const want = 61 + expectedOf(b.id).length - 1; // 60 more 200s
    for (let i = 0; i < 300; i++) {
      if ((await walk(db, { resellerId: b.id, pageSize: 100 })).all.length >= want) break;
      await sleep(100);
    }
    while (older !== null && pages < 10) {
      const r = await readRequests(db, b.id, older ? `older=${older}` : "");
      expect(r.status).toBe(200);
      seen.push(...r.body.items.map((x) => x.id));
      older = r.body.older;
      pages++;
    }
    expect(pages).toBe(2);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(want);
  });

  it("rows still waiting in memory are written by the graceful shutdown", async () => {
    // An hour between flushes, and batches larger than what is sent: only the shutdown writes them.
    const other = await startApp({
      databaseUrl: database.url,
      env: { REQUEST_LOG_FLUSH_MS: "3600000", REQUEST_LOG_BATCH: "1000" },
    });
    const ids: string[] = [];
    try {
      for (let i = 0; i < 3; i++)
        ids.push(await call("/api/v1/currencies", a.keys[1].key, { status: 200, code: null, route: "", masked: "" }, other.baseUrl));
      expect((await storedEntries(db)).filter((e) => ids.includes(e.requestId))).toEqual([]);
    } finally {
      await other.stop();
    }
    expect((await storedEntries(db)).filter((e) => ids.includes(e.requestId) && e.keyId === a.keys[1].id)).toHaveLength(3);
  });

  it("REQUEST_LOG_ENABLED=false records nothing, not even at shutdown", async () => {
    const off = await startApp({ databaseUrl: database.url, env: { REQUEST_LOG_ENABLED: "false", REQUEST_LOG_FLUSH_MS: "10" } });
    const ids: string[] = [];
    try {
      for (let i = 0; i < 3; i++)
        ids.push(await call("/api/v1/currencies", a.keys[1].key, { status: 200, code: null, route: "", masked: "" }, off.baseUrl));
    } finally {
      await off.stop();
    }
    expect((await storedEntries(db)).filter((e) => ids.includes(e.requestId))).toEqual([]);
  });
});

describe.each(["sqlite", "postgres"] as const)("the request log's retention on %s", (kind) => {
  it("deletes the batches older than REQUEST_LOG_DAYS, a few at a time, and only those", async () => {
    const t = await tempDatabase(kind);
    try {
      const now = new Date("2026-11-29T12:00:00Z");
      const day = 86_400_000;
      const row = (ageDays: number, i: number): RequestLogRow => ({
        resellerId: "r1",
        keyId: "k1",
        at: now.getTime() - ageDays * day,
        method: "GET",
        route: "/api/v1/currencies",
        path: "/api/v1/currencies",
        status: 200,
        errorCode: null,
        latencyMs: 1,
        requestId: `age-${ageDays}-${i}`,
      });
      const old = Array.from({ length: 7 }, (_, i) => row(30 + 1 / 24 + i, i));
      const kept = [row(29.9, 0), row(1, 1), row(0, 2)];
      // Days apart: each its own batch.
      await writeRequestLogRows(t.db, [...old, ...kept]);
      expect(await t.db.apiRequestBatch.count()).toBe(10);
      expect((await storedEntries(t.db)).length).toBe(10);
      // Bounded: two batches of three per pass.
      const first = await pruneRequestLog(t.db, { now, retentionDays: 30, batchSize: 3, batches: 2 });
      expect(first).toEqual({ deleted: 6, more: true });
      const second = await pruneRequestLog(t.db, { now, retentionDays: 30, batchSize: 3, batches: 2 });
      expect(second).toEqual({ deleted: 1, more: false });
      const left = await storedEntries(t.db);
      expect(left.map((r) => r.requestId).sort()).toEqual(kept.map((r) => r.requestId).sort());
      // 0 keeps everything.
      expect(await pruneRequestLog(t.db, { now: new Date(now.getTime() + 365 * day), retentionDays: 0 })).toEqual({
        deleted: 0,
        more: false,
      });
      expect((await storedEntries(t.db)).length).toBe(3);
      // Written as the app writes them: the times read back exactly, and the batch's bounds are its entries'.
      expect(left.find((r) => r.requestId === "age-1-1")?.at).toBe(now.getTime() - day);
      const batch = (await t.db.apiRequestBatch.findMany()).find((b) => b.entries.includes("age-1-1"));
      expect([batch?.firstAt.toISOString(), batch?.lastAt.toISOString()]).toEqual([
        new Date(now.getTime() - day).toISOString(),
        new Date(now.getTime() - day).toISOString(),
      ]);
    } finally {
      await t.cleanup();
    }
  });
});
