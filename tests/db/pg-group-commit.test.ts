import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { queryOnPool } from "@/lib/db/client";
import { groupCommitStats, queryInLane } from "@/lib/db/pg-group-commit";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// Group commit per lane on PostgreSQL (lib/db/pg-group-commit.ts): statements of a lane that
// wait while one is in flight commit together, in one transaction; an error stays its own
// statement's. Each statement tells the transaction it ran in (txid_current()).
let t: TempDb;
let db: Db;
beforeAll(async () => {
  t = await tempDatabase("postgres");
  db = t.db;
  await queryOnPool(db, "gc-table", { text: `CREATE TABLE gc_probe (id int PRIMARY KEY, lane text NOT NULL)`, values: [] });
});
afterAll(() => t?.cleanup());
beforeEach(() => Object.assign(groupCommitStats, { alone: 0, batches: 0, batched: 0, retriedAlone: 0 }));

const insert = (id: number, lane: string) =>
  queryInLane<{ tx: string }>(db, lane, {
    name: "gc-insert",
    text: `INSERT INTO gc_probe (id, lane) VALUES ($1, $2) RETURNING txid_current()::text AS tx`,
    values: [id, lane],
  }).then((rows) => rows[0].tx);

const count = async (lane: string) =>
  Number(
    (
      await queryOnPool<{ n: string }>(db, "gc-count", { text: `SELECT count(*)::text AS n FROM gc_probe WHERE lane = $1`, values: [lane] })
    )[0].n,
  );

describe("queryInLane", () => {
  it("runs a statement alone when nothing waits, and the ones that waited together in one transaction", async () => {
    // Asked for in one turn: the first goes at once, the 20 others wait for it and then commit together.
    const txs = await Promise.all(Array.from({ length: 21 }, (_, i) => insert(1000 + i, "a")));
    expect(await count("a")).toBe(21);
    expect(new Set(txs.slice(1)).size).toBe(1);
    expect(txs[1]).not.toBe(txs[0]);
    expect(groupCommitStats).toEqual({ alone: 1, batches: 1, batched: 20, retriedAlone: 0 });
  });

  it("leaves statements awaited one after the other, and statements of other lanes, each in its own transaction", async () => {
    const one = await insert(2000, "b");
    const two = await insert(2001, "b");
    const lanes = await Promise.all([insert(2002, "c"), insert(2003, "d"), insert(2004, "e")]);
    expect(new Set([one, two, ...lanes]).size).toBe(5);
    expect(groupCommitStats).toMatchObject({ alone: 5, batches: 0 });
  });

  it("fails only the statement that fails in a batch: the others are written, each on its own", async () => {
    await insert(3000, "f");
    // 3001 twice: the batch fails on its second insert, and each statement runs again alone.
    const results = await Promise.allSettled([insert(3002, "g"), insert(3001, "g"), insert(3001, "g"), insert(3003, "g")]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/duplicate key/);
    expect(await count("g")).toBe(3);
    expect(groupCommitStats.retriedAlone).toBe(3);
  });

  it("goes on with a lane after a batch fails", async () => {
    await Promise.allSettled([insert(4000, "h"), insert(4000, "h"), insert(4001, "h")]);
    const txs = await Promise.all([insert(4002, "h"), insert(4003, "h"), insert(4004, "h")]);
    expect(new Set(txs.slice(1)).size).toBe(1);
    expect(await count("h")).toBe(5);
  });

  it("ends its pipelined connections when the client's pool ends", async () => {
    const own = await tempDatabase("postgres");
    const admin = new pg.Client({ connectionString: own.url });
    try {
      await queryOnPool(own.db, "gc-own", { text: "CREATE TABLE gc_own (id int PRIMARY KEY)", values: [] });
      const put = (id: number) => queryInLane(own.db, "x", { name: "gc-own-insert", text: "INSERT INTO gc_own VALUES ($1)", values: [id] });
      await Promise.all([put(1), put(2), put(3)]);
      expect(groupCommitStats.batches).toBe(1);
      await own.db.$disconnect();
      await admin.connect();
      const others = async () =>
        Number(
          (
            await admin.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
            )
          ).rows[0].n,
        );
      // A backend goes a moment after its client said goodbye: wait for it, up to 5 s on a busy
      // machine. A pipelined connection left open would stay 10 s idle, so it still fails this.
      const deadline = Date.now() + 5000;
      while ((await others()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await others()).toBe(0);
    } finally {
      await admin.end().catch(() => {});
      await own.cleanup();
    }
  });

  it("is for PostgreSQL only", async () => {
    const s = await tempDatabase("sqlite");
    try {
      await expect(queryInLane(s.db, "x", { name: "x", text: "SELECT 1", values: [] })).rejects.toThrow(/PostgreSQL/);
    } finally {
      await s.cleanup();
    }
  });
});
