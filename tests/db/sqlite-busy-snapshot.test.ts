import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createDb } from "@/lib/db/client";
import { tempSqlite } from "../support/sqlite-db";

// A Prisma interactive transaction on SQLite begins DEFERRED: its first read takes a snapshot,
// and its first write fails at once with SQLITE_BUSY_SNAPSHOT (no busy wait can help) when
// another connection committed in between. With a second process on the file (the worker, a
// CLI, the test process) that happens whenever it writes; under load, often (a CI run beside two
// builds lost a dashboard "send test event" to it). The client runs such a transaction again.

const insertNonce = (conn: Database.Database, nonce: string) =>
  conn.prepare(`INSERT INTO "AuthNonce" ("nonce", "expiresAt") VALUES (?, '2099-01-01T00:00:00.000+00:00')`).run(nonce);

describe("SQLite: a read-then-write transaction that loses its snapshot to another connection", () => {
  it("is run again from the start, and commits once", async () => {
    const temp = await tempSqlite();
    const db = createDb(temp.url);
    const other = new Database(temp.url.replace(/^file:/, ""));
    try {
      let runs = 0;
      const seen = await db.$transaction(async (tx) => {
        runs++;
        const before = await tx.authNonce.count();
        // Another connection commits after this transaction's first read, on the first run only.
        if (runs === 1) insertNonce(other, "other");
        await tx.authNonce.create({ data: { nonce: `mine-${runs}`, expiresAt: new Date("2099-01-01T00:00:00Z") } });
        return before;
      });
      expect(runs).toBe(2);
      // The second run read the other connection's row: it started from a fresh snapshot.
      expect(seen).toBe(1);
      const rows = other.prepare(`SELECT "nonce" FROM "AuthNonce" ORDER BY "nonce"`).all() as { nonce: string }[];
      expect(rows.map((r) => r.nonce)).toEqual(["mine-2", "other"]);
    } finally {
      other.close();
      await db.$disconnect();
      await temp.cleanup();
    }
  });

  it("other errors are not retried", async () => {
    const temp = await tempSqlite();
    const db = createDb(temp.url);
    try {
      let runs = 0;
      await expect(
        db.$transaction(async (tx) => {
          runs++;
          await tx.authNonce.create({ data: { nonce: "same", expiresAt: new Date("2099-01-01T00:00:00Z") } });
          await tx.authNonce.create({ data: { nonce: "same", expiresAt: new Date("2099-01-01T00:00:00Z") } });
        }),
      ).rejects.toThrow();
      expect(runs).toBe(1);
    } finally {
      await db.$disconnect();
      await temp.cleanup();
    }
  });
});
