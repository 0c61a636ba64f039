import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, LEDGER_INVARIANTS, type LedgerInvariant } from "@/lib/ledger/check";
import { post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { type ReusableDb, reusableDatabase } from "../support/reusable-db";

// Each ledger invariant is one object (lib/ledger/invariants/): its full form, and its
// incremental form or the reason it has none. Both checks loop over LEDGER_INVARIANTS.
// (That each form finds the same corruption: tests/ledger/check-incremental-messages.test.ts.)

describe("the ledger's invariants", () => {
  it("each has an incremental form, or is marked full-only with its reason", () => {
    for (const inv of LEDGER_INVARIANTS) {
      const form = inv.incremental as unknown;
      const fullOnly = typeof form === "object" && form !== null && (form as { fullOnly?: unknown }).fullOnly;
      expect(typeof form === "function" || (typeof fullOnly === "string" && fullOnly.trim() !== ""), inv.id).toBe(true);
      expect(typeof inv.full, inv.id).toBe("function");
    }
  });

  it("have unique ids and names", () => {
    expect(new Set(LEDGER_INVARIANTS.map((i) => i.id)).size).toBe(LEDGER_INVARIANTS.length);
    expect(new Set(LEDGER_INVARIANTS.map((i) => i.name)).size).toBe(LEDGER_INVARIANTS.length);
  });
});

describe("the incremental check with an invariant that has no incremental form", () => {
  let t: ReusableDb;
  let db: Db;
  const r = "f1";
  const byId = (id: string) => LEDGER_INVARIANTS.find((i) => i.id === id)!;
  const rollup = byId("daily-rollup");
  /** Runs `fn` with the invariant of `inv`'s id replaced by `inv` in the one list both checks use. */
  const withInvariant = async <T>(inv: LedgerInvariant, fn: () => Promise<T>): Promise<T> => {
    const at = LEDGER_INVARIANTS.findIndex((i) => i.id === inv.id);
    const was = LEDGER_INVARIANTS[at];
    LEDGER_INVARIANTS[at] = inv;
    try {
      return await fn();
    } finally {
      LEDGER_INVARIANTS[at] = was;
    }
  };
  const incremental = () => checkLedger(db, { mode: "incremental", changeSlackMs: 0 });

  // One database and client for the describe (a client per test compiled the same queries
  // again), emptied back to the freshly migrated state before each test's rows.
  beforeAll(async () => {
    t = await reusableDatabase("sqlite");
    db = t.db;
  });
  afterAll(async () => t?.cleanup());
  beforeEach(async () => {
    await t.reset();
    await db.reseller.create({ data: { id: r, walletAddress: `0x${"a".repeat(40)}` } });
    await db.$transaction((tx) =>
      post(
        tx,
        [{ resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("1") }],
        new Date("2026-01-05T10:00:00Z"),
      ),
    );
    expect((await checkLedger(db, { mode: "incremental", writeCheckpoint: true })).ok).toBe(true);
    // A rollup row below the checkpoint, changed by hand: the incremental form trusts it (no new entry touches it).
    await db.ledgerDaily.updateMany({ where: { resellerId: r, day: "2026-01-05" }, data: { amount: "3" } });
  });

  it("marked full-only: runs its full form, which finds what lies below the checkpoint", async () => {
    const trusted = await incremental();
    expect(trusted).toMatchObject({ mode: "incremental", ok: true });
    const rep = await withInvariant({ ...rollup, incremental: { fullOnly: "a test's" } }, incremental);
    expect(rep.mode).toBe("incremental");
    expect(rep.violations).toEqual([
      { invariant: rollup.name, message: `rollup ${r}/xmr 2026-01-05 order_profit_settle available is 3 but its entries sum to 1` },
    ]);
  });

  it("marked full-only: the checkpoint it writes still adds up the new rows", async () => {
    await db.ledgerDaily.updateMany({ where: { resellerId: r, day: "2026-01-05" }, data: { amount: "1" } });
    await db.$transaction((tx) =>
      post(tx, [{ resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("2") }]),
    );
    const balances = byId("balances");
    const rep = await withInvariant({ ...balances, incremental: { fullOnly: "a test's" } }, () =>
      checkLedger(db, { mode: "incremental", changeSlackMs: 0, writeCheckpoint: true }),
    );
    expect(rep).toMatchObject({ ok: true, mode: "incremental", checkpoint: { lastEntryId: 2 } });
    // The next check, with every incremental form, starts from those sums: 1 + 2.
    expect((await incremental()).violations).toEqual([]);
  });

  it("neither: the incremental check refuses to run, rather than skip it", async () => {
    const bare = { ...rollup, incremental: undefined } as unknown as LedgerInvariant;
    await expect(withInvariant(bare, incremental)).rejects.toThrow(
      "ledger invariant daily-rollup has no incremental form and is not marked full-only",
    );
    const blank = { ...rollup, incremental: { fullOnly: " " } };
    await expect(withInvariant(blank, incremental)).rejects.toThrow("not marked full-only");
  });
});
