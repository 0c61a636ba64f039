import "server-only";
import { joinSql, sql } from "@/lib/db/client";
import { D, type Dec } from "@/lib/money/decimal";
import { IN_FLIGHT_PREFIX, isAccountName } from "../accounts";
import { JOURNAL_KINDS } from "../ledger";
import {
  addTo,
  CANONICAL_AMOUNT,
  type EntryRow,
  entries,
  type LedgerInvariant,
  type LineRow,
  operatorLines,
  PAGE,
  pages,
  type Report,
} from "./invariant";

type JournalLineRow = LineRow & { table: "entry" | "line"; account: string };
type JournalTally = Map<string, { lines: number; sums: Map<string, Dec>; inFlight: boolean }>;
type JournalRow = { id: string; kind: string; lines: number; withdrawalId: string | null };

/** An entry as a journal line: the reseller's bucket is its account. */
const entryLine = (e: EntryRow): JournalLineRow => ({ ...e, table: "entry", account: `reseller:${e.resellerId}:${e.bucket}` });

/** The journals that may move payouts in flight: a withdrawal's payout seen mined, reorganised out, or confirmed. */
const IN_FLIGHT_KINDS = ["withdrawal_mined", "withdrawal_unmined", "withdrawal_confirmed"];

/** Adds one line to its journal's tally, after checking the line itself. */
function tallyLine(seen: JournalTally, l: JournalLineRow, report: Report): void {
  const tag = l.table === "entry" ? `entry ${l.id}` : `line ${l.id}`;
  if (l.table === "line" && !isAccountName(l.account)) report(`${tag} is booked to an unknown account '${l.account}'`);
  if (l.table === "line" && (!CANONICAL_AMOUNT.test(l.amount) || new D(l.amount).isZero())) report(`${tag} has amount '${l.amount}'`);
  if (!l.journalId) {
    report(`${tag} belongs to no journal`);
    return;
  }
  const j = seen.get(l.journalId) ?? { lines: 0, sums: new Map<string, Dec>(), inFlight: false };
  j.lines++;
  if (l.table === "line" && l.account.startsWith(IN_FLIGHT_PREFIX)) j.inFlight = true;
  j.sums.set(l.currency, (j.sums.get(l.currency) ?? new D(0)).plus(l.amount));
  seen.set(l.journalId, j);
}

/** Judges journal rows against their tallied lines (and forgets them from the tally). */
function judgeJournals(seen: JournalTally, rows: JournalRow[], report: Report): void {
  for (const j of rows) {
    const s = seen.get(j.id);
    seen.delete(j.id);
    if (!(JOURNAL_KINDS as readonly string[]).includes(j.kind)) report(`journal ${j.id} has unknown kind '${j.kind}'`);
    if (j.kind.startsWith("withdrawal_") && !j.withdrawalId) report(`journal ${j.id} (${j.kind}) names no withdrawal`);
    if (s?.inFlight && !IN_FLIGHT_KINDS.includes(j.kind))
      report(`journal ${j.id} (${j.kind}) books payouts in flight, which only a withdrawal's mined, unmined and confirmed journals do`);
    const n = s?.lines ?? 0;
    if (n < 2 || n !== j.lines) report(`journal ${j.id} (${j.kind}) has ${n} lines, it says ${j.lines}`);
    for (const [currency, sum] of s?.sums ?? [])
      if (!sum.isZero()) report(`journal ${j.id} (${j.kind}) does not balance in ${currency}: its lines sum to ${sum.toFixed()}`);
  }
}

/** An operator account's key in the checkpoint's sums. */
export const accountKey = (l: { account: string; currency: string }) => JSON.stringify([l.account, l.currency]);

export const journalsBalanced: LedgerInvariant = {
  id: "journals",
  name: "every journal has two or more lines that sum to zero in every currency, and every line has a journal",
  async full(tx, report, ctx) {
    // Per journal: its lines counted, and their sums per currency.
    const seen: JournalTally = new Map();
    const tally = ctx.tally;
    // Every line of every journal: reseller entries, then operator lines (each table oldest first).
    for await (const e of entries(tx, {}, ctx)) {
      tallyLine(seen, entryLine(e), report);
      // For the checkpoint: the last ids read (the streams are in id order) and the operator's sums.
      if (tally) {
        tally.lastEntryId = e.id;
        tally.entriesSeen++;
      }
    }
    for await (const l of operatorLines(tx, {}, ctx)) {
      tallyLine(seen, { ...l, table: "line" }, report);
      if (tally) {
        tally.lastLineId = l.id;
        tally.linesSeen++;
        if (CANONICAL_AMOUNT.test(l.amount)) addTo(tally.accounts, accountKey(l), l.amount);
      }
    }
    let after = "";
    for (;;) {
      const page = await tx.journal.findMany({ where: { id: { gt: after } }, orderBy: { id: "asc" }, take: PAGE });
      ctx.stats.journals += page.length;
      judgeJournals(seen, page, report);
      if (page.length < PAGE) break;
      after = page[page.length - 1].id;
    }
    for (const id of seen.keys()) report(`lines of journal ${id} have no journal row`);
  },
  // Each journal a new row names, with all its lines. Its new lines are tallied as they are read;
  // its rows below the checkpoint (none, unless a row was added to a journal after it was written:
  // a journal's lines and row commit together) are read at the end, by the journalId index. They
  // were checked one by one before; only their journal's sums need them.
  incremental: (since, report) => {
    const { tx, ctx, upTo } = since;
    const seen: JournalTally = new Map();
    const touched = new Set<string>();
    return {
      entry(e) {
        tallyLine(seen, entryLine(e), report); // reports an entry without a journal
        if (e.journalId) touched.add(e.journalId);
      },
      line(l) {
        if (l.journalId) touched.add(l.journalId);
        tallyLine(seen, { ...l, table: "line" }, report); // also reports the line's own faults and "no journal"
      },
      async finish() {
        for (const ids of pages(touched)) {
          for await (const e of entries(tx, { journalId: { in: ids } }, ctx, 0, upTo.entry)) tallyLine(seen, entryLine(e), () => {});
          for await (const l of operatorLines(tx, { journalId: { in: ids } }, ctx, 0, upTo.line))
            tallyLine(seen, { ...l, table: "line" }, () => {});
          const rows = await tx.$queryRaw<JournalRow[]>(
            sql`SELECT "id", "kind", "lines", "withdrawalId" FROM "Journal" WHERE "id" IN (${joinSql(ids)}) ORDER BY "id"`,
          );
          ctx.stats.journals += rows.length;
          judgeJournals(seen, rows, report);
        }
        for (const id of seen.keys()) report(`lines of journal ${id} have no journal row`);
      },
    };
  },
};
