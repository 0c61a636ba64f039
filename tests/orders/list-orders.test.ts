import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerCsv, ordersCsv } from "@/lib/dashboard/export";
import { listResellerOrders } from "@/lib/dashboard/orders";
import type { Order } from "@/lib/db/client";
import { countTurns } from "../support/event-loop";
import { orderRow } from "../support/orders";
import { queryPlan, type TempDb, tempDatabase, tracedStatements } from "../support/sqlite-db";

// The Orders list's id search (lib/orders/get-order.ts): a prefix of 4+ characters is looked
// up by the primary key's range, a shorter one is refused. It gives the reseller's own matching
// orders, newest first, filtered by state, counted and capped, in keyset pages.

const id = (head: string) => head.padEnd(24, "0");
const T0 = Date.UTC(2026, 10, 1);
const ALL_F = "abcd".padEnd(24, "f");

describe.each(["sqlite", "postgres"] as const)("the Orders list's id search on %s", (kind) => {
  let t: TempDb;
  beforeAll(async () => {
    t = await tempDatabase(kind);
    for (const [rid, wallet] of [
      ["me", "a1"],
      ["other", "b2"],
    ])
      await t.db.reseller.create({ data: { id: rid, walletAddress: `0x${wallet.repeat(20)}` } });
    const row = (head: string, minutes: number, over: Partial<Order> = {}) =>
      orderRow(head.length === 24 ? head : id(head), { resellerId: "me", createdAt: new Date(T0 + minutes * 60_000), ...over });
    await t.db.order.createMany({
      data: [
        row("abcd1", 1),
        row("abcdff", 2, { status: "finished" }),
        row("abcd2", 3, { status: "finished" }),
        row(ALL_F, 4),
        row("abcc", 5), // just below the range
        row("abce", 6), // just above it
        row("abcd3", 7, { resellerId: "other" }),
        row("abcd4", 8, { payinAddress: null }), // a reservation, never listed
      ],
    });
  });
  afterAll(async () => t?.cleanup());

  const list = (q: { search: string; status?: string; countCap?: number; after?: string | null; pageSize?: number }) =>
    listResellerOrders(t.db, { resellerId: "me", ...q });
  const newestFirst = [ALL_F, id("abcd2"), id("abcdff"), id("abcd1")];

  it("a prefix of 4+ characters: the reseller's own matches, newest first, filtered, paged and counted", async () => {
    expect((await list({ search: "ABCD" })).items.map((o) => o.id)).toEqual(newestFirst);
    expect(await list({ search: "abcd" })).toMatchObject({ total: 4, totalCapped: false, older: null });
    expect((await list({ search: "abcdf" })).items.map((o) => o.id)).toEqual([ALL_F, id("abcdff")]);
    expect((await list({ search: "abcd", status: "finished" })).items.map((o) => o.id)).toEqual([id("abcd2"), id("abcdff")]);
    const first = await list({ search: "abcd", pageSize: 3 });
    const paged = await list({ search: "abcd", pageSize: 3, after: first.older });
    expect(paged.items.map((o) => o.id)).toEqual(newestFirst.slice(3));
    expect(paged).toMatchObject({ total: 4, older: null });
    const capped = await list({ search: "abcd", countCap: 3 });
    expect(capped).toMatchObject({ total: 3, totalCapped: true });
    expect(capped.items).toHaveLength(4); // the count stops at the cap, the pages do not
    expect(await list({ search: "abcz" })).toMatchObject({ items: [], total: 0 });
  });

  it("a 4-character prefix is a range of the key, with the ids just below and above it left out; a shorter one is refused", async () => {
    expect((await list({ search: "abcd" })).items.map((o) => o.id)).toEqual(newestFirst); // not abcc..., abce...
    expect((await list({ search: "abcd", status: "finished" })).total).toBe(2);
    for (const search of ["abc", "a"]) expect(await list({ search })).toMatchObject({ items: [], total: 0, searchTooShort: true });
  });

  it.runIf(kind === "sqlite")("SQLite reads a 4+ character prefix by the key, not through the reseller's index", async () => {
    const statements = await tracedStatements(t.url, (traced) => listResellerOrders(traced, { resellerId: "me", search: "abcd" }));
    const reads = statements.filter((q) => /FROM\s+[`"]?(main[`"]?\.[`"]?)?Order[`"]?\s/i.test(q));
    expect(reads).toHaveLength(3); // the count, the page's ids, the page's rows
    for (const q of reads) {
      const steps = queryPlan(t.url, q);
      expect(steps, q).toMatch(/SEARCH (main\.)?"?Order"? USING INDEX sqlite_autoindex_Order_1 \(id[<>=?]/);
      expect(steps, q).not.toMatch(/resellerId/);
    }
  });

  it.runIf(kind === "sqlite")("SQLite counts and pages a state through the (status, resellerId, createdAt, id) index", async () => {
    for (const status of ["waiting", "finished"]) {
      const statements = await tracedStatements(t.url, (traced) => listResellerOrders(traced, { resellerId: "me", status }));
      const reads = statements.filter((q) => /SELECT (COUNT\(\*\)|"id") .*FROM "Order"/is.test(q));
      expect(reads, status).toHaveLength(2);
      for (const q of reads)
        expect(queryPlan(t.url, q), status).toMatch(/USING INDEX Order_status_resellerId_createdAt_id_idx \(status=\? AND resellerId=\?/);
    }
  });
});

// Keyset pages (lib/orders/get-order.ts): Next is the page older than the last row shown,
// Previous the page newer than the first, Oldest the list's last page; no OFFSET anywhere.
describe.each(["sqlite", "postgres"] as const)("the Orders list's keyset pages on %s", (kind) => {
  let t: TempDb;
  const hex = (n: number) => n.toString(16).padStart(24, "0");
  // 45 orders of "me", three to a timestamp (ties are broken by id), in two states and two channels.
  const mine = Array.from({ length: 45 }, (_, i) => ({
    id: hex(0x1000 + ((i * 7919) % 4096)),
    createdAt: new Date(T0 + Math.floor(i / 3) * 60_000),
    status: i % 4 === 0 ? "finished" : "waiting",
    channel: i % 3 === 0 ? "key:k1" : "page",
  }));
  const newestFirst = (rows: typeof mine) =>
    [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((r) => r.id);

  beforeAll(async () => {
    t = await tempDatabase(kind);
    for (const [rid, wallet] of [
      ["me", "a1"],
      ["other", "b2"],
    ])
      await t.db.reseller.create({ data: { id: rid, walletAddress: `0x${wallet.repeat(20)}` } });
    await t.db.order.createMany({
      data: [
        ...mine.map((o) => orderRow(o.id, { resellerId: "me", ...o })),
        orderRow(hex(1), { resellerId: "other", createdAt: new Date(T0 + 60_000) }),
        orderRow(hex(2), { resellerId: "me", createdAt: new Date(T0 + 60_000), payinAddress: null }),
      ],
    });
  });
  afterAll(async () => t?.cleanup());

  type Q = Parameters<typeof listResellerOrders>[1];
  const list = (q: Omit<Q, "resellerId">) => listResellerOrders(t.db, { resellerId: "me", pageSize: 7, ...q });

  async function walkForward(q: Omit<Q, "resellerId">, during?: (page: number) => Promise<void>) {
    const seen: string[] = [];
    let page = await list(q);
    for (let n = 1; ; n++) {
      seen.push(...page.items.map((o) => o.id));
      await during?.(n);
      if (!page.older) return seen;
      page = await list({ ...q, after: page.older });
      expect(page.newer, "every page past the first has a Previous").not.toBeNull();
    }
  }

  it("Next walks every order once, newest first, and Previous walks back from the oldest page", async () => {
    const all = newestFirst(mine);
    expect(await walkForward({})).toEqual(all);

    const back: string[] = [];
    let page = await list({ oldest: true });
    expect(page.older).toBeNull();
    expect(page.items.map((o) => o.id)).toEqual(all.slice(-7));
    for (;;) {
      back.unshift(...page.items.map((o) => o.id));
      if (!page.newer) break;
      const prev = await list({ before: page.newer });
      // Previous from the second page lands on the first, full.
      expect(prev.items.length).toBe(7);
      page = prev;
    }
    // The pages back overlap where the first page is filled up; together they are the list, in order.
    expect([...new Set(back)]).toEqual(all);
    expect(page.items.map((o) => o.id)).toEqual(all.slice(0, 7));
  });

  it("orders created during the walk shift nothing: no order twice, none left out", async () => {
    let made = 0;
    const seen = await walkForward({}, async (n) => {
      if (n > 2) return;
      const id = hex(0x9000 + made++);
      await t.db.order.create({ data: orderRow(id, { resellerId: "me", createdAt: new Date(T0 + 3_600_000 + made) }) });
    });
    expect(seen).toEqual(newestFirst(mine));
    expect((await list({})).items.slice(0, 2).map((o) => o.id)).toEqual([hex(0x9001), hex(0x9000)]);
    await t.db.order.deleteMany({ where: { id: { in: [hex(0x9000), hex(0x9001)] } } });
  });

  it("filters keep with the cursors", async () => {
    for (const filter of [{ status: "finished" }, { channel: "key:k1" }, { status: "waiting", channel: "page" }]) {
      const expected = newestFirst(mine.filter((o) => Object.entries(filter).every(([k, v]) => o[k as keyof typeof o] === v)));
      expect(await walkForward(filter), JSON.stringify(filter)).toEqual(expected);
      expect((await list({ ...filter, oldest: true })).items.map((o) => o.id)).toEqual(expected.slice(-7));
    }
  });

  it("a malformed cursor is ignored: the first page", async () => {
    const first = (await list({})).items.map((o) => o.id);
    for (const bad of [
      "x",
      "_",
      "1_",
      "abc_0001",
      "-5_00ab",
      "1_ab'--",
      "99999999999999999_00",
      `${"9".repeat(15)}_00`,
      "253402300800000_00",
      "1_AB",
    ])
      for (const key of ["after", "before"] as const)
        expect(
          (await list({ [key]: bad })).items.map((o) => o.id),
          `${key}=${bad}`,
        ).toEqual(first);
  });

  it.runIf(kind === "sqlite")("SQLite starts each page at its cursor in an index, with no sort and no OFFSET", async () => {
    const page = await list({ after: (await list({})).older });
    for (const [q, index] of [
      [{ after: page.older }, "Order_resellerId_createdAt_id_idx"],
      [{ before: page.older }, "Order_resellerId_createdAt_id_idx"],
      [{ after: page.older, status: "finished" }, "Order_status_resellerId_createdAt_id_idx"],
      [{ after: page.older, channel: "page" }, "Order_channel_resellerId_createdAt_id_idx"],
    ] as const) {
      const statements = await tracedStatements(t.url, (traced) => listResellerOrders(traced, { resellerId: "me", pageSize: 7, ...q }));
      const ids = statements.filter((s) => /SELECT "id" FROM "Order"/.test(s));
      expect(ids, JSON.stringify(q)).toHaveLength(1);
      expect(ids[0]).not.toMatch(/OFFSET/i);
      const plan = queryPlan(t.url, ids[0]);
      expect(plan, JSON.stringify(q)).toMatch(
        new RegExp(`SEARCH (main\\.)?"?Order"? USING INDEX ${index} \\(.*\\(createdAt,id\\)[<>]\\(\\?,\\?\\)\\)`),
      );
      expect(plan, JSON.stringify(q)).not.toMatch(/TEMP B-TREE/);
    }
  });

  it("the orders CSV has the list's orders in the list's order, across its batches (a reservation in neither)", async () => {
    const text = await new Response(ordersCsv(t.db, { resellerId: "me" })).text();
    const ids = text
      .trim()
      .split("\r\n")
      .slice(1)
      .map((line) => line.split(",")[0]);
    expect(ids).toEqual(newestFirst(mine));
    expect(ids).not.toContain(hex(2));
  });

  it("the orders CSV lets the event loop turn between its batches (on SQLite each batch's read holds it)", async () => {
    // 250 orders of another reseller: three batches of 100.
    await t.db.reseller.create({ data: { id: "big", walletAddress: `0x${"c3".repeat(20)}` } });
    await t.db.order.createMany({
      data: Array.from({ length: 250 }, (_, i) =>
        orderRow(`b${hex(i).slice(1)}`, { resellerId: "big", createdAt: new Date(T0 + i * 1000) }),
      ),
    });
    const reader = ordersCsv(t.db, { resellerId: "big" }).getReader();
    const loop = countTurns();
    let lines = 0;
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read())
        lines += new TextDecoder().decode(r.value).split("\r\n").length - 1;
    } finally {
      loop.stop();
    }
    expect(lines).toBe(251);
    expect(loop.turns()).toBeGreaterThanOrEqual(2);
  });

  it.runIf(kind === "sqlite")("SQLite reads each CSV batch from its cursor in an index, with no sort", async () => {
    const drain = (s: ReadableStream<Uint8Array>) => new Response(s).text();
    const orders = await tracedStatements(t.url, (traced) => drain(ordersCsv(traced, { resellerId: "me" })));
    const batch = orders.filter((q) => /FROM [`"]?(main[`"]?\.[`"]?)?Order[`"]?/.test(q) && /ORDER BY/.test(q));
    expect(batch.length).toBeGreaterThan(0);
    for (const q of batch) {
      expect(queryPlan(t.url, q), q).toMatch(/SEARCH (main\.)?"?Order"? USING INDEX Order_resellerId_createdAt_id_idx \(resellerId=\?/);
      expect(queryPlan(t.url, q), q).not.toMatch(/TEMP B-TREE/);
    }
    const ledger = await tracedStatements(t.url, (traced) => drain(ledgerCsv(traced, { resellerId: "me" })));
    const reads = ledger.filter((q) => /LedgerEntry/.test(q));
    expect(reads.length).toBeGreaterThan(0);
    for (const q of reads)
      expect(queryPlan(t.url, q), q).toMatch(
        /USING INDEX LedgerEntry_resellerId_id_idx \(resellerId=\? AND rowid>\?\)|USING INDEX LedgerEntry_resellerId_id_idx \(resellerId=\? AND id>\?\)/,
      );
  });
});
