import { setTimeout as sleep } from "node:timers/promises";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { writeOnSqlite } from "@/lib/db/sqlite-direct";
import { countTurns } from "../support/event-loop";
import { tempDatabase, tempSqlite } from "../support/sqlite-db";

const insertNonce = (conn: Database.Database, nonce: string) =>
  conn.prepare(`INSERT INTO "AuthNonce" ("nonce", "expiresAt") VALUES (?, '2099-01-01T00:00:00.000+00:00')`).run(nonce);

/** A client of a temp database that records every statement, and a separate connection that sees only what is committed. */
async function withTracedDatabase(fn: (t: Traced) => Promise<void>) {
  const temp = await tempSqlite();
  const statements: string[] = [];
  const db = createDb(temp.url, undefined, { trace: (sql) => statements.push(sql) });
  const outside = new Database(temp.url.replace(/^file:/, ""), { readonly: true });
  try {
    await fn({
      db,
      commits: () => statements.filter((s) => s === "COMMIT").length,
      committedNonces: () =>
        (outside.prepare(`SELECT "nonce" FROM "AuthNonce" ORDER BY "nonce"`).all() as { nonce: string }[]).map((r) => r.nonce),
    });
  } finally {
    outside.close();
    await db.$disconnect();
    await temp.cleanup();
  }
}

interface Traced {
  db: Db;
  commits: () => number;
  committedNonces: () => string[];
}

/** Each outcome of Promise.allSettled: "fulfilled", or the rejection's message. */
const outcomes = (results: PromiseSettledResult<unknown>[]) =>
  results.map((r) => (r.status === "fulfilled" ? "fulfilled" : String(r.reason)));

describe("writeOnSqlite", () => {
  it("waits for a Prisma transaction holding the write lock, with the event loop free, then commits", async () => {
    const t = await tempDatabase("sqlite");
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      let locked!: () => void;
      const hasLock = new Promise<void>((r) => {
        locked = r;
      });
      const tx = t.db.$transaction(
        async (tx) => {
          await tx.authNonce.create({ data: { nonce: "held", expiresAt: new Date(Date.now() + 60_000) } });
          locked(); // its write took SQLite's write lock, held until the transaction ends
          await held;
        },
        // Held for as long as the test takes on a loaded machine (Prisma's defaults: 2 s to start, 5 s to run).
        { timeout: 600_000, maxWait: 600_000 },
      );
      await hasLock;
      let written = false;
      const direct = writeOnSqlite(t.db, (conn) =>
        conn.prepare(`INSERT INTO "AuthNonce" ("nonce", "expiresAt") VALUES ('direct', '2099-01-01T00:00:00.000+00:00')`).run(),
      ).then(() => {
        written = true;
      });
      // The waiting write does not hold the event loop: it keeps turning while the lock is held.
      const loop = countTurns();
      await sleep(200);
      loop.stop();
      expect(loop.turns()).toBeGreaterThan(10);
      expect(written).toBe(false);
      release();
      await tx;
      await direct;
      expect(written).toBe(true);
      expect((await t.db.authNonce.findMany({ orderBy: { nonce: "asc" } })).map((n) => n.nonce)).toEqual(["direct", "held"]);
    } finally {
      await t.cleanup();
    }
  });

  it("rolls back when the function throws", async () => {
    const t = await tempDatabase("sqlite");
    try {
      await expect(
        writeOnSqlite(t.db, (conn) => {
          conn.prepare(`INSERT INTO "AuthNonce" ("nonce", "expiresAt") VALUES ('gone', '2099-01-01T00:00:00.000+00:00')`).run();
          throw new Error("no");
        }),
      ).rejects.toThrow("no");
      expect(await t.db.authNonce.count()).toBe(0);
      // And the connection is usable again.
      await writeOnSqlite(t.db, (conn) =>
        conn.prepare(`INSERT INTO "AuthNonce" ("nonce", "expiresAt") VALUES ('kept', '2099-01-01T00:00:00.000+00:00')`).run(),
      );
      expect(await t.db.authNonce.count()).toBe(1);
    } finally {
      await t.cleanup();
    }
  });

  // Group commit: a COMMIT is an fsync of the WAL (synchronous=FULL), once per write before.
  it("commits the writes asked for in one turn together, and tells each caller only once it is committed", async () => {
    await withTracedDatabase(async (t) => {
      const seenOnCommit: boolean[] = [];
      const names = Array.from({ length: 30 }, (_, i) => `n${String(i).padStart(2, "0")}`);
      await Promise.all(
        names.map((name, i) =>
          writeOnSqlite(t.db, (conn) => insertNonce(conn, name).changes).then((changes) => {
            expect(changes).toBe(1);
            seenOnCommit[i] = t.committedNonces().includes(name);
          }),
        ),
      );
      expect(seenOnCommit).toEqual(names.map(() => true));
      expect(t.commits()).toBe(1);
      // Writes asked for later go in a transaction of their own.
      await writeOnSqlite(t.db, (conn) => insertNonce(conn, "z-later"));
      expect(t.commits()).toBe(2);
      expect(t.committedNonces()).toEqual([...names, "z-later"]);
    });
  });

  it("rolls back only the writes of a function that throws within a shared transaction", async () => {
    await withTracedDatabase(async (t) => {
      const results = await Promise.allSettled([
        writeOnSqlite(t.db, (conn) => insertNonce(conn, "a")),
        writeOnSqlite(t.db, (conn) => {
          insertNonce(conn, "b");
          throw new Error("b fails");
        }),
        // A unique violation, as a taken Idempotency-Key gives: the first "a" stays.
        writeOnSqlite(t.db, (conn) => insertNonce(conn, "a")),
        writeOnSqlite(t.db, (conn) => insertNonce(conn, "c")),
      ]);
      expect(outcomes(results)).toEqual(["fulfilled", expect.stringContaining("b fails"), expect.stringMatching(/UNIQUE/), "fulfilled"]);
      expect(t.committedNonces()).toEqual(["a", "c"]);
      expect(t.commits()).toBe(1);
    });
  });

  it("reports the writes before one whose error ended the transaction as failed, and commits those after it", async () => {
    await withTracedDatabase(async (t) => {
      const results = await Promise.allSettled([
        writeOnSqlite(t.db, (conn) => insertNonce(conn, "a")),
        writeOnSqlite(t.db, (conn) => {
          // As SQLite does itself on some I/O errors: the whole transaction is gone.
          conn.prepare("ROLLBACK").run();
          throw new Error("transaction lost");
        }),
        writeOnSqlite(t.db, (conn) => insertNonce(conn, "c")),
      ]);
      expect(outcomes(results)).toEqual([
        expect.stringContaining("transaction lost"),
        expect.stringContaining("transaction lost"),
        "fulfilled",
      ]);
      expect(t.committedNonces()).toEqual(["c"]);
    });
  });

  it("fails every write of a transaction whose COMMIT fails, and commits none of them", async () => {
    await withTracedDatabase(async (t) => {
      const results = await Promise.allSettled([
        writeOnSqlite(t.db, (conn) => insertNonce(conn, "a")),
        writeOnSqlite(t.db, (conn) => {
          // A foreign key checked at COMMIT: an event of no order makes the COMMIT itself fail.
          conn.pragma("defer_foreign_keys = ON");
          conn.prepare(`INSERT INTO "OrderEvent" ("orderId", "status", "at") VALUES ('no-such-order', 'waiting', '2099-01-01')`).run();
        }),
      ]);
      expect(outcomes(results)).toEqual([expect.stringMatching(/FOREIGN KEY/), expect.stringMatching(/FOREIGN KEY/)]);
      expect(t.committedNonces()).toEqual([]);
      // The connection is usable afterwards.
      await writeOnSqlite(t.db, (conn) => insertNonce(conn, "b"));
      expect(t.committedNonces()).toEqual(["b"]);
    });
  });

  it("when the ROLLBACK after a failed COMMIT fails too, drops the connection so that later writes still commit", async () => {
    await withTracedDatabase(async (t) => {
      const results = await Promise.allSettled([
        writeOnSqlite(t.db, (conn) => insertNonce(conn, "a")),
        writeOnSqlite(t.db, (conn) => {
          // No statement of SQLite's own makes a ROLLBACK fail here, so this one is made to:
          // the group commit prepares it on this connection at its first use, after this write.
          const prepare = conn.prepare.bind(conn);
          conn.prepare = ((sql: string) => {
            if (sql === "ROLLBACK") throw new Error("rollback failed");
            return prepare(sql);
          }) as typeof conn.prepare;
          conn.pragma("defer_foreign_keys = ON");
          prepare(`INSERT INTO "OrderEvent" ("orderId", "status", "at") VALUES ('no-such-order', 'waiting', '2099-01-01')`).run();
        }),
      ]);
      expect(outcomes(results)).toEqual([expect.stringMatching(/FOREIGN KEY/), expect.stringMatching(/FOREIGN KEY/)]);
      expect(t.committedNonces()).toEqual([]);
      const later = await Promise.allSettled([
        writeOnSqlite(t.db, (conn) => insertNonce(conn, "b")),
        writeOnSqlite(t.db, (conn) => insertNonce(conn, "c")),
      ]);
      expect(outcomes(later)).toEqual(["fulfilled", "fulfilled"]);
      expect(t.committedNonces()).toEqual(["b", "c"]);
    });
  });
});
