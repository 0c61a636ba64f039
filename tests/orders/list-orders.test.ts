import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listResellerOrders } from "@/lib/dashboard/orders";
import type { Order } from "@/lib/db/client";
import { orderRow } from "../support/orders";
import { queryPlan, type TempDb, tempDatabase, tracedStatements } from "../support/sqlite-db";

// The Orders list's id search (lib/orders/get-order.ts): a prefix of 4+ characters is looked
// up by the primary key's range, a shorter one while reading the reseller's orders. Both give
// the reseller's own matching orders, newest first, filtered by state, counted and capped.

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

  const list = (q: { search: string; status?: string; countCap?: number; page?: number; pageSize?: number }) =>
    listResellerOrders(t.db, { resellerId: "me", ...q });
  const newestFirst = [ALL_F, id("abcd2"), id("abcdff"), id("abcd1")];

  it("a prefix of 4+ characters: the reseller's own matches, newest first, filtered, paged and counted", async () => {
    expect((await list({ search: "ABCD" })).items.map((o) => o.id)).toEqual(newestFirst);
    expect(await list({ search: "abcd" })).toMatchObject({ total: 4, totalCapped: false, pageCount: 1 });
    expect((await list({ search: "abcdf" })).items.map((o) => o.id)).toEqual([ALL_F, id("abcdff")]);
    expect((await list({ search: "abcd", status: "finished" })).items.map((o) => o.id)).toEqual([id("abcd2"), id("abcdff")]);
    const paged = await list({ search: "abcd", page: 2, pageSize: 3 });
    expect(paged.items.map((o) => o.id)).toEqual(newestFirst.slice(3));
    expect(paged).toMatchObject({ total: 4, page: 2, pageCount: 2 });
    const capped = await list({ search: "abcd", countCap: 3 });
    expect(capped).toMatchObject({ total: 3, totalCapped: true, pageCount: 1 });
    expect(capped.items).toHaveLength(3); // the pages go through the capped total, no further
    expect(await list({ search: "abcz" })).toMatchObject({ items: [], total: 0 });
  });

  it("a shorter prefix reads the reseller's orders: the same orders, and the ones around the range", async () => {
    expect((await list({ search: "abc" })).items.map((o) => o.id)).toEqual([id("abce"), id("abcc"), ...newestFirst]);
    expect((await list({ search: "abc", status: "finished" })).total).toBe(2);
  });

  it.runIf(kind === "sqlite")("SQLite reads a 4+ character prefix by the key, not through the reseller's index", async () => {
    const statements = await tracedStatements(t.url, (traced) => listResellerOrders(traced, { resellerId: "me", search: "abcd" }));
    const reads = statements.filter((q) => /FROM\s+[`"]?(main[`"]?\.[`"]?)?Order[`"]?\s/i.test(q));
    expect(reads).toHaveLength(2);
    for (const q of reads) {
      const steps = queryPlan(t.url, q);
      expect(steps, q).toMatch(/SEARCH (main\.)?"?Order"? USING INDEX sqlite_autoindex_Order_1 \(id[<>=?]/);
      expect(steps, q).not.toMatch(/resellerId/);
    }
  });

  it.runIf(kind === "sqlite")("SQLite counts an open state through the state's index, a final one through the reseller's", async () => {
    const countPlan = async (status: string) => {
      const statements = await tracedStatements(t.url, (traced) => listResellerOrders(traced, { resellerId: "me", status }));
      const count = statements.filter((q) => /COUNT\(\*\)/i.test(q));
      expect(count).toHaveLength(1);
      return queryPlan(t.url, count[0]);
    };
    for (const open of ["waiting", "confirming"]) expect(await countPlan(open), open).toMatch(/USING INDEX Order_status_\w+ \(status=\?/);
    for (const final of ["finished", "failed"])
      expect(await countPlan(final), final).toMatch(/USING (COVERING )?INDEX Order_resellerId_createdAt_status_idx \(resellerId=\?/);
  });
});
