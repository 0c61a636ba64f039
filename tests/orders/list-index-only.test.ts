import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listResellerOrders, type OrderQuery } from "@/lib/dashboard/orders";
import { createDb } from "@/lib/db/client";
import { orderRow } from "../support/orders";
import { queryPlan, type TempDb, tempDatabase, tracedStatements } from "../support/sqlite-db";

// The Orders list's capped count reads up to 10,001 index entries (LIST_COUNT_CAP + 1) for each
// list read, and its page up to 101. Its condition always holds `"payinAddress" IS NOT NULL`
// (an order still being opened is listed to nobody), and the list's indexes hold only such
// orders (partial indexes, migration 20261125114955_order_list_opened_only): the count and the
// page's ids are read from the index alone. With the condition outside the index, every entry
// counted read its table row too: on SQLite, on the event loop, 28-48 ms a list read at 100,000
// orders (bench/README.md, "Keyset pages").

const T0 = Date.UTC(2026, 10, 1);
const hex = (n: number) => n.toString(16).padStart(24, "0");

/** The list reads: unfiltered, by state, by channel, each first page and the next one; the index each one reads. */
const READS: [Omit<OrderQuery, "resellerId">, string][] = [
  [{}, "Order_resellerId_createdAt_id_idx"],
  [{ status: "finished" }, "Order_status_resellerId_createdAt_id_idx"],
  [{ channel: "key:k1" }, "Order_channel_resellerId_createdAt_id_idx"],
];

async function seed(t: TempDb) {
  for (const [id, wallet] of [
    ["me", "a1"],
    ["other", "b2"],
  ])
    await t.db.reseller.create({ data: { id, walletAddress: `0x${wallet.repeat(20)}` } });
  // Most orders are another reseller's, as on a platform of many; one of mine is a reservation.
  await t.db.order.createMany({
    data: Array.from({ length: 300 }, (_, i) =>
      orderRow(hex(0x1000 + i), {
        resellerId: i % 3 === 0 ? "me" : "other",
        status: i % 4 === 0 ? "failed" : "finished",
        channel: i % 2 === 0 ? "key:k1" : "page",
        createdAt: new Date(T0 + i * 60_000),
        ...(i === 3 ? { payinAddress: null } : {}),
      }),
    ),
  });
}

/** SQLite's opcodes that read or move to a row of the table whose cursor is their P1. */
const ROW_STEPS = new Set([
  "Column",
  "Rowid",
  "RowData",
  "SeekRowid",
  "NotExists",
  "Found",
  "NotFound",
  "Rewind",
  "Last",
  "Next",
  "Prev",
  "SeekGE",
  "SeekGT",
  "SeekLE",
  "SeekLT",
]);

/**
 * The steps of SQLite's program for `statement` that read a row of the Order table (its
 * columns, or a seek to its row): none when the statement is answered from an index alone. A
 * deferred seek (from an index entry to its row) reads the row only if a later step reads a
 * column of it.
 */
function tableReads(url: string, statement: string): string[] {
  const conn = new Database(url.replace(/^file:/, ""), { readonly: true });
  try {
    const root = conn.prepare(`SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = 'Order'`).pluck().get();
    const steps = conn.prepare(`EXPLAIN ${statement}`).all() as { addr: number; opcode: string; p1: number; p2: number }[];
    const table = new Set(steps.filter((s) => s.opcode === "OpenRead" && s.p2 === root).map((s) => s.p1));
    return steps.filter((s) => table.has(s.p1) && ROW_STEPS.has(s.opcode)).map((s) => `${s.addr} ${s.opcode}`);
  } finally {
    conn.close();
  }
}

describe("the Orders list on SQLite: the count and the page's ids from the index alone", () => {
  let t: TempDb;
  beforeAll(async () => {
    t = await tempDatabase("sqlite");
    await seed(t);
  });
  afterAll(async () => t?.cleanup());

  it("a statement that needs a column outside the index is seen reading the table (the check can fail)", () => {
    const q = `SELECT COUNT(*) AS "n" FROM (SELECT 1 FROM "Order" WHERE "resellerId" = 'me' AND "payinHash" IS NOT NULL LIMIT 10001) AS "t"`;
    expect(tableReads(t.url, q)).not.toEqual([]);
  });

  it.each(READS)("%j: the count and both pages' ids read %s and never the table", async (filter, index) => {
    const first = await listResellerOrders(t.db, { resellerId: "me", pageSize: 5, ...filter });
    expect(first.items).toHaveLength(5);
    expect(first.older).not.toBeNull();
    const statements = [
      ...(await tracedStatements(t.url, (traced) => listResellerOrders(traced, { resellerId: "me", pageSize: 5, ...filter }))),
      ...(await tracedStatements(t.url, (traced) =>
        listResellerOrders(traced, { resellerId: "me", pageSize: 5, ...filter, after: first.older }),
      )),
    ];
    const reads = statements.filter((q) => /SELECT (COUNT\(\*\)|"id") .*FROM "Order"/is.test(q));
    expect(reads).toHaveLength(4); // the count and the page's ids, twice
    for (const q of reads) {
      expect(queryPlan(t.url, q), q).toMatch(new RegExp(`SEARCH (main\\.)?"?Order"? USING (COVERING )?INDEX ${index} \\(`));
      expect(tableReads(t.url, q), q).toEqual([]);
    }
  });
});

describe("the Orders list on PostgreSQL: the count and the page's ids by an index-only scan", () => {
  let t: TempDb;
  let pool: pg.Pool;
  let explain: pg.Client;
  const sent: { text: string; values: unknown[] }[] = [];
  beforeAll(async () => {
    t = await tempDatabase("postgres");
    await seed(t);
    // What the list sends, from a pool that records it (the client runs every statement on its pool).
    pool = new pg.Pool({ connectionString: t.url, max: 2 });
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    pool.query = ((...args: unknown[]) => {
      const q = args[0] as { text?: string; values?: unknown[] };
      if (typeof q === "object" && q?.text) sent.push({ text: q.text, values: q.values ?? [] });
      return query(...args);
    }) as typeof pool.query;
    explain = new pg.Client({ connectionString: t.url });
    await explain.connect();
    // An index-only scan skips the table for the pages the visibility map marks all-visible, as
    // autovacuum leaves them; with seq and bitmap scans off the plan shows what the indexes can
    // do for this statement (with a reseller this small, a table this small is read whole).
    await explain.query(`VACUUM ANALYZE "Order"`);
    await explain.query(`SET enable_seqscan = off; SET enable_bitmapscan = off`);
  });
  afterAll(async () => {
    await explain?.end();
    await pool?.end();
    await t?.cleanup();
  });

  const plan = async (text: string, values: unknown[] = []) =>
    (await explain.query({ text: `EXPLAIN (COSTS OFF) ${text}`, values })).rows.map((r) => r["QUERY PLAN"]).join("\n");

  it("a statement that needs a column outside the index gets no index-only scan (the check can fail)", async () => {
    const q = `SELECT COUNT(*) AS "n" FROM (SELECT 1 FROM "Order" WHERE "resellerId" = 'me' AND "payinHash" IS NOT NULL LIMIT 10001) AS "t"`;
    expect(await plan(q)).not.toMatch(/Index Only Scan/);
  });

  it.each(READS)("%j: the count and both pages' ids by an index-only scan of %s", async (filter, index) => {
    const db = createDb(t.url, pool);
    try {
      sent.length = 0;
      const first = await listResellerOrders(db, { resellerId: "me", pageSize: 5, ...filter });
      expect(first.items).toHaveLength(5);
      await listResellerOrders(db, { resellerId: "me", pageSize: 5, ...filter, after: first.older });
    } finally {
      await db.$disconnect();
    }
    const reads = sent.filter((q) => /SELECT (COUNT\(\*\)|"id") .*FROM "Order"/is.test(q.text));
    expect(reads).toHaveLength(4);
    for (const q of reads) {
      const steps = await plan(q.text, q.values);
      expect(steps, q.text).toMatch(new RegExp(`Index Only Scan (Backward )?using "${index}" on "Order"`));
      expect(steps, q.text).not.toMatch(/payinAddress/);
    }
  });
});
