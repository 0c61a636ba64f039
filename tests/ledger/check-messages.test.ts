import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, LEDGER_INVARIANTS } from "@/lib/ledger/check";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// The full check's words for operator lines and journals written by hand (what the database
// lets through): each fault named once, with its line or journal.

const DATABASES = process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);
const byName = (prefix: string) => LEDGER_INVARIANTS.filter((i) => i.name.startsWith(prefix));

describe.each(DATABASES)("ledger check's messages on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(async () => t.cleanup());

  it("a journal's line to an unknown account, a zero line, and an unknown kind (the database lets these through; a wrong line count it refuses)", async () => {
    const journalId = "hand-1";
    const ids = await db.$transaction(async (tx) => {
      await tx.journalLine.createMany({
        data: [
          { journalId, account: "nowhere", currency: "xmr", amount: "1" },
          { journalId, account: "world", currency: "xmr", amount: "-1" },
          { journalId, account: "world", currency: "xmr", amount: "0" },
        ],
      });
      await tx.journal.create({ data: { id: journalId, kind: "gift", lines: 3 } });
      return (await tx.journalLine.findMany({ where: { journalId }, orderBy: { id: "asc" } })).map((l) => l.id);
    });
    const report = await checkLedger(db, { invariants: byName("every journal") });
    expect(report.violations).toEqual(
      [
        `line ${ids[0]} is booked to an unknown account 'nowhere'`,
        `line ${ids[2]} has amount '0'`,
        `journal ${journalId} has unknown kind 'gift'`,
      ].map((message) => ({ invariant: byName("every journal")[0].name, message })),
    );
  });
});
