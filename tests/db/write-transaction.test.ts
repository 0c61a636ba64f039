import { execFile } from "node:child_process";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { checkLedger } from "@/lib/ledger/check";
import { post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { bundledScript } from "../support/bundle";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// writeTransaction (lib/db/write-transaction.ts): on SQLite a ledger transaction holds the write
// lock before it reads, so another connection's commit cannot take its snapshot from under it.

const mutationRun = process.env.MUTATION_RUN === "1";
const r = "wt1";
const credit = (tx: Parameters<Parameters<typeof writeTransaction>[1]>[0], amount = "1") =>
  post(tx, [{ resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D(amount) }]);

describe("writeTransaction on sqlite", () => {
  let t: TempDb;
  let db: Db;
  let other: Database.Database;
  beforeEach(async () => {
    t = await tempDatabase("sqlite");
    db = t.db;
    await db.reseller.create({ data: { id: r, walletAddress: `0x${"b".repeat(40)}` } });
    // Another connection to the file, as another process has: no busy wait, so a lock held is seen at once.
    other = new Database(t.url.replace(/^file:/, ""), { timeout: 0 });
  });
  afterEach(async () => {
    other.close();
    await t.cleanup();
  });
  /** The other connection writes (a nonce) and commits: SQLITE_BUSY when this process holds the write lock. */
  const otherWrites = (nonce: string) =>
    other.prepare(`INSERT INTO "AuthNonce" ("nonce", "expiresAt") VALUES (?, '2099-01-01T00:00:00.000+00:00')`).run(nonce);

  it("holds the write lock before its function's first statement, so a ledger transaction that reads first runs once", async () => {
    let runs = 0;
    let refused: unknown;
    await writeTransaction(db, async (tx) => {
      runs++;
      // Another connection cannot write now (it would wait for this transaction).
      try {
        otherWrites("during");
      } catch (e) {
        refused = e;
      }
      await tx.balance.findMany({ where: { resellerId: r } });
      await credit(tx);
    });
    expect(runs).toBe(1);
    expect((refused as { code?: string } | undefined)?.code).toBe("SQLITE_BUSY");
    otherWrites("after"); // and can once it committed
    expect(await db.balance.findMany({ select: { available: true } })).toEqual([{ available: "1" }]);
  });

  it("without it: a transaction that read first loses its snapshot to another connection's commit, and runs again", async () => {
    let runs = 0;
    await db.$transaction(async (tx) => {
      runs++;
      await tx.balance.findMany({ where: { resellerId: r } });
      if (runs === 1) otherWrites("between"); // nothing stops it: the transaction holds no lock yet
      await credit(tx); // SQLITE_BUSY_SNAPSHOT on the first run: the client runs it again (lib/db/client.ts)
    });
    expect(runs).toBe(2);
  });

  it.skipIf(mutationRun)(
    "two processes' concurrent ledger transactions all succeed, each run once",
    async () => {
      // The child script bundled once (tests/support/bundle.ts): plain node starts it, no tsx loader.
      const script = await bundledScript("tests/db/write-transaction-child.ts");
      const child = () =>
        new Promise<{ done: number; runs: number }>((resolve, reject) => {
          execFile(
            process.execPath,
            [script],
            { env: { ...process.env, DATABASE_URL: t.url, RESELLER_ID: r, COUNT: "40" } },
            (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
          );
        });
      const results = await Promise.all([child(), child()]);
      // No transaction lost its snapshot (it would have run again) and none failed.
      expect(results).toEqual([
        { done: 40, runs: 40 },
        { done: 40, runs: 40 },
      ]);
      expect(await db.balance.findMany({ select: { available: true } })).toEqual([{ available: "80" }]);
      expect((await checkLedger(db)).violations).toEqual([]);
    },
    120_000,
  );
});

describe("writeTransaction on postgres", () => {
  it("is a plain transaction: it commits, and rolls back on a throw", async () => {
    const t = await tempDatabase("postgres");
    try {
      await t.db.reseller.create({ data: { id: r, walletAddress: `0x${"b".repeat(40)}` } });
      await writeTransaction(t.db, (tx) => credit(tx, "2"));
      await expect(
        writeTransaction(t.db, async (tx) => {
          await credit(tx, "5");
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect(await t.db.balance.findMany({ select: { available: true } })).toEqual([{ available: "2" }]);
    } finally {
      await t.cleanup();
    }
  });
});
