import { afterAll } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger } from "@/lib/ledger/check";

/** Throws with the first broken ledger invariant (and how many were found), if any. */
export async function assertLedgerConsistent(db: Db): Promise<void> {
  const report = await checkLedger(db);
  if (report.ok) return;
  const [first] = report.violations;
  throw new Error(`ledger invariant broken: ${first.invariant}: ${first.message} (${report.violations.length} violations found)`);
}

/** Registers a check of the whole ledger after the current test file (the HTTP suites' setup file does this for every file). */
export function checkLedgerAfterFile(db: () => Db): void {
  afterAll(async () => assertLedgerConsistent(db()), 120_000);
}
