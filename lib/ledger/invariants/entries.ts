import "server-only";
import { D } from "@/lib/money/decimal";
import { BUCKETS, ENTRY_KINDS } from "../ledger";
import { CANONICAL_AMOUNT, type EntryRow, entries, type LedgerInvariant, type Report } from "./invariant";

function entryWellFormed(e: EntryRow, report: Report): void {
  if (!(BUCKETS as readonly string[]).includes(e.bucket)) report(`entry ${e.id} has unknown bucket '${e.bucket}'`);
  if (!(ENTRY_KINDS as readonly string[]).includes(e.kind)) report(`entry ${e.id} has unknown kind '${e.kind}'`);
  if (!CANONICAL_AMOUNT.test(e.amount) || new D(e.amount).isZero()) report(`entry ${e.id} has amount '${e.amount}'`);
}

/** Each entry on its own: a known bucket and kind, a canonical amount that is not zero. */
export const entriesWellFormed: LedgerInvariant = {
  id: "entries",
  name: "entries are well formed",
  async full(tx, report, ctx) {
    for await (const e of entries(tx, {}, ctx)) entryWellFormed(e, report);
  },
  // Each new entry; the ones below the checkpoint were checked when it was written.
  incremental: (_since, report) => ({ entry: (e) => entryWellFormed(e, report) }),
};
