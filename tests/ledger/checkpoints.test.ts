import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, LEDGER_INVARIANTS } from "@/lib/ledger/check";
import { post, recordTreasuryDeposit } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// The checkpoints the ledger check writes (lib/ledger/check.ts, docs/ledger.md "The check"):
// only by a clean check of every invariant, marked full or incremental, with the verified sums
// sorted by key, and only the latest ten kept.

const DATABASES = process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);

describe.each(DATABASES)("ledger checkpoints on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  const credit = (resellerId: string, currency: string, amount: string) =>
    db.$transaction((tx) => post(tx, [{ resellerId, currency, bucket: "available", kind: "order_profit_settle", amount: new D(amount) }]));

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
    // Written in the reverse of their keys' order: a checkpoint sorts them.
    for (const [i, id] of ["zz", "mm", "aa"].entries())
      await db.reseller.create({ data: { id, walletAddress: `0x${String(i + 1).padStart(40, "0")}` } });
    await credit("zz", "xmr", "3");
    await credit("mm", "btc", "0.5");
    await credit("aa", "xmr", "1.25");
    await db.$transaction((tx) => recordTreasuryDeposit(tx, { chainId: 1, asset: "eth", amount: new D("2") }));
  });
  afterAll(async () => t.cleanup());

  it("a check of some invariants only writes none, even when asked to", async () => {
    const report = await checkLedger(db, { invariants: LEDGER_INVARIANTS.slice(0, 1), writeCheckpoint: true });
    expect(report.ok).toBe(true);
    expect(report.checkpoint).toBeUndefined();
    expect(await db.ledgerCheckpoint.count()).toBe(0);
  });

  it("the first is full, with the sums sorted by key; the next ones incremental; only the latest ten are kept", async () => {
    const ids: number[] = [];
    for (let k = 0; k < 12; k++) {
      const r = await checkLedger(db, { mode: "incremental", writeCheckpoint: true });
      if (!r.checkpoint || "skipped" in r.checkpoint) throw new Error(`no checkpoint: ${JSON.stringify(r.checkpoint)}`);
      ids.push(r.checkpoint.id);
    }
    const rows = await db.ledgerCheckpoint.findMany({ orderBy: { id: "asc" } });
    expect(rows.map((r) => r.id)).toEqual(ids.slice(2));
    const first = await checkLedger(db, { mode: "full", writeCheckpoint: true });
    const latest = await db.ledgerCheckpoint.findMany({ orderBy: { id: "asc" } });
    expect(latest.map((r) => r.id)).toEqual([...ids.slice(3), (first.checkpoint as { id: number }).id]);
    expect(latest.map((r) => r.full)).toEqual([...Array(9).fill(false), true]);
    const last = latest[latest.length - 1];
    expect(JSON.parse(last.balances)).toEqual([
      ["aa", "xmr", "0", "1.25", "0"],
      ["mm", "btc", "0", "0.5", "0"],
      ["zz", "xmr", "0", "3", "0"],
    ]);
    expect(JSON.parse(last.accounts)).toEqual([
      ["treasury:1:eth", "eth", "-2"],
      ["world", "btc", "-0.5"],
      ["world", "eth", "2"],
      ["world", "xmr", "-4.25"],
    ]);
  });
});
