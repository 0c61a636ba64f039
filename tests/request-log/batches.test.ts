import { describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { createApiKey } from "@/lib/keys/api-keys";
import type { RequestLogRow } from "@/lib/request-log/buffer";
import { decodeEntries, encodeEntries } from "@/lib/request-log/entries";
import { cursorText, listRequestLog, parseCursor, type RequestLogCursor, type RequestLogQuery } from "@/lib/request-log/list";
import { MAX_SPAN_MS, toBatches, writeRequestLogRows } from "@/lib/request-log/write";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { tempDatabase } from "../support/sqlite-db";

// The request log's storage in batches (lib/request-log/write.ts, list.ts): rows grouped by
// reseller, newest first, a batch spanning at most a minute; the list reads them back in order
// across many batches, every entry once whatever the page size, with each filter, and a filter
// that matches little pages on with short pages (the scan's bound) without losing or repeating
// an entry. Written through the real writer on both databases.

const T0 = Date.parse("2026-11-29T12:00:00.000Z");

function row(resellerId: string, keyId: string, atMs: number, i: number, status = 200): RequestLogRow {
  return {
    resellerId,
    keyId,
    at: atMs,
    method: i % 5 === 0 ? "POST" : "GET",
    route: i % 3 === 0 ? "/api/v1/exchange/:id" : "/api/v1/currencies",
    path: i % 3 === 0 ? "/api/v1/exchange/012345…4567" : "/api/v1/currencies",
    status,
    errorCode: status >= 400 ? "SOME_CODE" : null,
    latencyMs: i % 17,
    requestId: `req-${resellerId}-${i}`,
  };
}

describe("batches (pure)", () => {
  it("groups by reseller, newest first, and splits where a batch would span more than a minute", () => {
    const rows = [
      row("a", "k", T0, 0),
      row("b", "k", T0 + 5, 1),
      row("a", "k", T0 + 10, 2),
      row("a", "k", T0 + 10 + MAX_SPAN_MS, 3), // a minute after req-a-2, exactly
      row("a", "k", T0 + 11 + MAX_SPAN_MS, 4), // a minute and 1 ms after req-a-2: req-a-2 starts another batch
    ];
    const batches = toBatches(rows);
    // Exactly a minute is within the bound.
    expect(toBatches([row("a", "k", T0, 0), row("a", "k", T0 + MAX_SPAN_MS, 1)]).map((b) => b.rows.length)).toEqual([2]);
    const view = batches.map((b) => [b.resellerId, b.firstAt.getTime() - T0, b.lastAt.getTime() - T0, b.rows.map((r) => r.requestId)]);
    expect(view).toEqual([
      ["a", 10 + MAX_SPAN_MS, 11 + MAX_SPAN_MS, ["req-a-4", "req-a-3"]],
      ["a", 0, 10, ["req-a-2", "req-a-0"]],
      ["b", 5, 5, ["req-b-1"]],
    ]);
    // Every batch within the bound, every row once.
    for (const b of batches) expect(b.lastAt.getTime() - b.firstAt.getTime()).toBeLessThanOrEqual(MAX_SPAN_MS);
    expect(batches.flatMap((b) => b.rows).length).toBe(rows.length);
  });

  it("orders each reseller's rows newest first whatever order they came in", () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    // Mostly in order (as requests end), some long ones late, some exact ties.
    const rows = Array.from({ length: 300 }, (_, i) =>
      row(i % 7 ? "a" : "b", "k", T0 + i * 500 - (rnd() < 0.2 ? Math.floor(rnd() * 20_000) : 0) - (i % 11 ? 0 : 500), i),
    );
    const batches = toBatches(rows);
    for (const r of ["a", "b"]) {
      const got = batches.filter((b) => b.resellerId === r).flatMap((b) => b.rows.map((x) => x.at));
      const want = rows
        .filter((x) => x.resellerId === r)
        .map((x) => x.at)
        .sort((x, y) => y - x);
      expect(got).toEqual(want);
    }
    for (const b of batches) expect(b.lastAt.getTime() - b.firstAt.getTime()).toBeLessThanOrEqual(MAX_SPAN_MS);
    // The last to end is not the newest: it started before the one that ended just before it.
    expect(
      toBatches([row("a", "k", T0, 0), row("a", "k", T0 + 1000, 1), row("a", "k", T0 + 500, 2)])[0].rows.map((r) => r.requestId),
    ).toEqual(["req-a-1", "req-a-2", "req-a-0"]);
  });

  it("entries round-trip through their JSON, and a malformed entry is null at its place", () => {
    const rows = [row("a", "k1", T0, 0, 422), row("a", "k2", T0 + 1, 1)];
    const back = decodeEntries(encodeEntries(rows));
    expect(back).toEqual(
      rows.map((r) => ({
        at: r.at,
        keyId: r.keyId,
        method: r.method,
        route: r.route,
        path: r.path,
        status: r.status,
        errorCode: r.errorCode,
        latencyMs: r.latencyMs,
        requestId: r.requestId,
      })),
    );
    expect(
      decodeEntries(`[[1,"k","GET","/r","/p",200,null,1,"id"],["bad"],[1,"k","GET","/r","/p","200",null,1,"id"]]`).map(
        (e) => e?.requestId ?? null,
      ),
    ).toEqual(["id", null, null]);
    expect(decodeEntries("not json")).toEqual([]);
    expect(decodeEntries('{"a":1}')).toEqual([]);
  });

  it("cursors round-trip, and anything else is no cursor", () => {
    const c: RequestLogCursor = { lastAt: new Date(T0), batchId: 42, index: 7 };
    expect(parseCursor(cursorText(c))).toEqual(c);
    expect(parseCursor(`${T0}_2147483647_0`)?.batchId).toBe(2 ** 31 - 1);
    for (const bad of ["", "1_2", "a_1_2", "1_2_3_4", `${T0}_1_1234567`, "-1_2_3", `${T0}_2147483648_0`])
      expect(parseCursor(bad), bad).toBeNull();
  });
});

async function walk(db: Db, q: RequestLogQuery) {
  const all: string[] = [];
  let older: RequestLogCursor | null = null;
  let pages = 0;
  do {
    const page = await listRequestLog(db, { ...q, older });
    expect(page.items.length).toBeLessThanOrEqual(q.pageSize ?? 50);
    all.push(...page.items.map((r) => r.requestId));
    older = page.older;
    pages++;
  } while (older && pages < 10_000);
  return { all, pages };
}

describe.each(["sqlite", "postgres"] as const)("the request log in batches on %s", (kind) => {
  it("one write of many resellers' rows stores a batch for each (more than one statement's worth on PostgreSQL)", async () => {
    const t = await tempDatabase(kind);
    try {
      const rows = Array.from({ length: 200 }, (_, i) => row(`r${i % 20}`, "k", T0 + i, i, i % 9 ? 200 : 404));
      await writeRequestLogRows(t.db, rows);
      const batches = await t.db.apiRequestBatch.findMany({ orderBy: { resellerId: "asc" } });
      expect(batches.map((b) => b.resellerId).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`).sort());
      for (const b of batches) {
        const want = rows.filter((r) => r.resellerId === b.resellerId).reverse();
        expect(decodeEntries(b.entries).map((e) => e?.requestId)).toEqual(want.map((r) => r.requestId));
        expect([b.count, b.firstAt.getTime(), b.lastAt.getTime()]).toEqual([want.length, want.at(-1)!.at, want[0].at]);
      }
    } finally {
      await t.cleanup();
    }
  });

  it("reads back every entry once, newest first, across many batches, with each filter and page size", async () => {
    const t = await tempDatabase(kind);
    try {
      const a = await getOrCreateReseller(t.db, { walletAddress: `0x${"a".repeat(40)}` });
      const b = await getOrCreateReseller(t.db, { walletAddress: `0x${"b".repeat(40)}` });
      const k1 = (await createApiKey(t.db, { resellerId: a.id, name: "one" })).apiKey.id;
      const k2 = (await createApiKey(t.db, { resellerId: a.id, name: "two" })).apiKey.id;
      const kb = (await createApiKey(t.db, { resellerId: b.id, name: "b" })).apiKey.id;
      // 600 requests of A over 20 minutes, 2 s apart, written as the buffer would: 7 writes, each
      // a mix of A's and B's rows; some 4xx, a few 5xx (rare: 1 in 50).
      const rows: RequestLogRow[] = [];
      for (let i = 0; i < 600; i++) {
        const status = i % 50 === 7 ? 503 : i % 4 === 1 ? 422 : 200;
        rows.push(row(a.id, i % 3 === 2 ? k2 : k1, T0 + i * 2000, i, status));
        if (i % 10 === 0) rows.push(row(b.id, kb, T0 + i * 2000 + 1, i));
      }
      for (let w = 0; w < rows.length; w += 100) await writeRequestLogRows(t.db, rows.slice(w, w + 100));
      expect(await t.db.apiRequestBatch.count()).toBeGreaterThan(20);

      const mine = rows.filter((r) => r.resellerId === a.id).sort((x, y) => y.at - x.at);
      const ids = (pred: (r: RequestLogRow) => boolean) => mine.filter(pred).map((r) => r.requestId);
      const cases: [Omit<RequestLogQuery, "resellerId">, (r: RequestLogRow) => boolean][] = [
        [{}, () => true],
        [{ statusClass: 4 }, (r) => r.status === 422],
        [{ statusClass: 5 }, (r) => r.status === 503],
        [{ route: "/api/v1/exchange/:id" }, (r) => r.route === "/api/v1/exchange/:id"],
        [{ keyId: k2 }, (r) => r.keyId === k2],
        [{ keyId: k2, statusClass: 4 }, (r) => r.keyId === k2 && r.status === 422],
        [{ from: new Date(T0 + 300_000), to: new Date(T0 + 900_000) }, (r) => r.at >= T0 + 300_000 && r.at < T0 + 900_000],
        [{ to: new Date(T0 + 61_000) }, (r) => r.at < T0 + 61_000],
        [{ from: new Date(T0 + 1_190_000) }, (r) => r.at >= T0 + 1_190_000],
      ];
      for (const [q, pred] of cases) {
        const want = ids(pred);
        expect(want.length, JSON.stringify(q)).toBeGreaterThan(0);
        for (const pageSize of [7, 50, 100]) {
          const got = await walk(t.db, { resellerId: a.id, pageSize, ...q });
          expect(got.all, `${JSON.stringify(q)} pages of ${pageSize}`).toEqual(want);
        }
        // A scan bound far below what the filter needs: short pages, and still every entry once, in order.
        const short = await walk(t.db, { resellerId: a.id, pageSize: 10, scanLimit: 37, ...q });
        expect(short.all, `${JSON.stringify(q)} with a scan bound`).toEqual(want);
        if (!q.from && !q.to) expect(short.pages).toBeGreaterThanOrEqual(Math.ceil(mine.length / 37));
        // And a bound on the batches a page reads.
        const few = await walk(t.db, { resellerId: a.id, pageSize: 50, scanBatches: 2, ...q });
        expect(few.all, `${JSON.stringify(q)} two batches a page`).toEqual(want);
      }
      // B's list: its own only; A's key id asked by B: nothing.
      expect((await walk(t.db, { resellerId: b.id, pageSize: 100 })).all).toEqual(
        rows
          .filter((r) => r.resellerId === b.id)
          .sort((x, y) => y.at - x.at)
          .map((r) => r.requestId),
      );
      expect((await walk(t.db, { resellerId: b.id, keyId: k1 })).all).toEqual([]);
      // A's cursor given to B's list reads nothing of A's batch.
      const aPage = await listRequestLog(t.db, { resellerId: a.id, pageSize: 3 });
      const bAfterA = await listRequestLog(t.db, { resellerId: b.id, pageSize: 100, older: aPage.older });
      expect(bAfterA.items.every((r) => r.requestId.startsWith(`req-${b.id}`))).toBe(true);
    } finally {
      await t.cleanup();
    }
  }, 120_000);
});
