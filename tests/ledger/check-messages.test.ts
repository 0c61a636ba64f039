import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, LEDGER_INVARIANTS } from "@/lib/ledger/check";
import { post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { withoutTrigger } from "../support/ledger";
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

  it("journals whose line count is wrong or below two, written past the database's trigger", async () => {
    // As an intruder with the database's keys could: the trigger that refuses them is turned off meanwhile.
    const guard = { table: "Journal", postgres: "Journal_balanced", sqlite: "Journal_balanced" };
    await withoutTrigger(db, kind, guard, () =>
      db.$transaction(async (tx) => {
        await tx.journalLine.createMany({
          data: [
            { journalId: "count-1", account: "world", currency: "xmr", amount: "1" },
            { journalId: "count-1", account: "world", currency: "xmr", amount: "-1" },
            { journalId: "count-2", account: "world", currency: "xmr", amount: "5" },
            { journalId: "count-2", account: "world", currency: "xmr", amount: "-5" },
          ],
        });
        await tx.journal.create({ data: { id: "count-1", kind: "adjustment", lines: 3 } });
        await tx.journal.create({ data: { id: "count-2", kind: "adjustment", lines: 2 } });
        await tx.journal.create({ data: { id: "count-3", kind: "adjustment", lines: 0 } });
      }),
    );
    const report = await checkLedger(db, { invariants: byName("every journal") });
    expect(report.violations.map((v) => v.message).filter((m) => m.includes("count-"))).toEqual([
      "journal count-1 (adjustment) has 2 lines, it says 3",
      "journal count-3 (adjustment) has 0 lines, it says 0",
    ]);
  });

  it("channel rollup rows that disagree with their orders and credits, and credits with no row", async () => {
    await db.reseller.create({ data: { id: "cr", walletAddress: `0x${"c".repeat(40)}` } });
    await db.$transaction((tx) =>
      post(tx, [{ resellerId: "cr", currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("1") }]),
    );
    const day = new Date().toISOString().slice(0, 10);
    await db.channelDaily.deleteMany({ where: { resellerId: "cr" } });
    await db.channelDaily.create({
      data: { resellerId: "cr", channel: "web", day: "2026-01-01", currency: "btc", volume: "7", profit: "2" },
    });
    const report = await checkLedger(db, { invariants: byName("each channel rollup") });
    expect(report.violations.map((v) => v.invariant)).toEqual(Array(3).fill(byName("each channel rollup")[0].name));
    expect(report.violations.map((v) => v.message)).toEqual([
      "channel rollup cr/web/2026-01-01/btc has volume 7 but its finished orders sum to 0",
      "channel rollup cr/web/2026-01-01/btc has profit 2 but its credits sum to 0",
      `channel figures of cr/${day}//xmr (0 orders, profit 1) have no rollup row`,
    ]);
    if (kind === "sqlite") {
      // SQLite keeps the sums as text: a sum that is no amount is named as it is.
      await db.channelDaily.update({
        where: { resellerId_day_channel_currency: { resellerId: "cr", day: "2026-01-01", channel: "web", currency: "btc" } },
        data: { volume: "0", profit: "1e3" },
      });
      expect((await checkLedger(db, { invariants: byName("each channel rollup") })).violations.map((v) => v.message)).toEqual([
        "channel rollup cr/web/2026-01-01/btc has profit '1e3'",
        `channel figures of cr/${day}//xmr (0 orders, profit 1) have no rollup row`,
      ]);
    }
  });
});
