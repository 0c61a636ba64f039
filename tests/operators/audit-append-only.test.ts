import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordAudit, SYSTEM_ACTOR } from "@/lib/operators/audit";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// Issue 52: the audit log is append-only, refused by the database itself (its triggers), on
// both databases, whoever asks: an UPDATE, a DELETE (and on PostgreSQL a TRUNCATE) fails.

describe.each(["sqlite", "postgres"] as const)("AuditEvent on %s", (kind) => {
  let t: TempDb;
  beforeAll(async () => {
    t = await tempDatabase(kind);
  });
  afterAll(async () => t?.cleanup());

  it("takes new rows and refuses to change or remove one", async () => {
    const row = await recordAudit(t.db, SYSTEM_ACTOR, { action: "test.append", targetType: "order", targetId: "o1", after: { a: 1 } });
    await expect(t.db.auditEvent.update({ where: { id: row.id }, data: { reason: "rewritten" } })).rejects.toThrow(/append-only/);
    await expect(t.db.$executeRawUnsafe(`UPDATE "AuditEvent" SET "actor" = 'x'`)).rejects.toThrow(/append-only/);
    await expect(t.db.auditEvent.delete({ where: { id: row.id } })).rejects.toThrow(/append-only/);
    await expect(t.db.$executeRawUnsafe(`DELETE FROM "AuditEvent"`)).rejects.toThrow(/append-only/);
    if (kind === "postgres") await expect(t.db.$executeRawUnsafe(`TRUNCATE "AuditEvent"`)).rejects.toThrow(/append-only/);
    const kept = await t.db.auditEvent.findUniqueOrThrow({ where: { id: row.id } });
    expect(kept).toMatchObject({ actor: "system", action: "test.append", reason: null, after: '{"a":1}' });
  });
});
