import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { writeOnSqlite } from "@/lib/db/sqlite-direct";
import { tempDatabase } from "../support/sqlite-db";

// Short synchronous write transactions on SQLite's writer connection (lib/db/sqlite-direct.ts)
// share the file with the process's own Prisma connection. When a Prisma transaction holds the
// write lock across its awaits, a direct write must wait for it without blocking the event
// loop (which that transaction needs to finish), then go through.
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
        { timeout: 20_000 },
      );
      await hasLock;
      let written = false;
      const direct = writeOnSqlite(t.db, (conn) =>
        conn.prepare(`INSERT INTO "AuthNonce" ("nonce", "expiresAt") VALUES ('direct', '2099-01-01T00:00:00.000+00:00')`).run(),
      ).then(() => {
        written = true;
      });
      const ticks = Date.now();
      await sleep(200);
      expect(Date.now() - ticks).toBeLessThan(1000); // the event loop kept turning
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
});
