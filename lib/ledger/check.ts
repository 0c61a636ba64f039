import "server-only";
import { type Db, emptySql, joinSql, providerOf, sql, type Tx } from "@/lib/db/client";
import { D, type Dec } from "@/lib/money/decimal";
import { IN_FLIGHT_PREFIX, isAccountName, NETWORK_FEES, payoutsInFlight } from "./accounts";
import { dayOf } from "./daily";
import { BUCKETS, type Bucket, ENTRY_KINDS, JOURNAL_KINDS } from "./ledger";

// The ledger's integrity check, for the operator (`npm run cli -- ledger:check`) and for the
// test suites (after every HTTP test file). Each invariant is a named function over one
// consistent snapshot of the database; new money flows (withdrawals) add theirs to
// LEDGER_INVARIANTS. The last one is double entry's: every journal sums to zero. Everything is streamed in pages, so memory grows with the number of
// balances, not with the length of the ledger.
//
// Two modes (docs/ledger.md, "The check"):
// - full: every invariant over every row (LEDGER_INVARIANTS);
// - incremental: from the latest LedgerCheckpoint (what an earlier clean check verified: the
//   entries and lines up to two ids, and their sums per balance and per account), it reads only
//   the entries and lines after those ids, every Balance row (compared with the checkpoint's
//   sums plus the new entries'), and the journals, orders and withdrawals those rows or a change
//   since the checkpoint touch. Rows below the checkpoint are trusted: a row changed there by
//   hand (the triggers dropped) is found by a full check only.
// A clean check of either mode can write the next checkpoint (writeCheckpoint).

export interface LedgerViolation {
  invariant: string;
  message: string;
}

/** Rows read, per table, by every part of the check together (a row read twice counts twice). */
export interface LedgerCheckStats {
  entries: number;
  lines: number;
  journals: number;
  orders: number;
  withdrawals: number;
  balances: number;
}

/** What a full check's passes add up on the way, for the checkpoint it may write. */
interface Tally {
  lastEntryId: number;
  lastLineId: number;
  /** Entries and lines read with an id up to the two above (PostgreSQL's late-commit test, below). */
  entriesSeen: number;
  linesSeen: number;
  balances: Map<string, Record<Bucket, Dec>>;
  accounts: Map<string, Dec>;
}

interface CheckContext {
  stats: LedgerCheckStats;
  tally?: Tally;
}

export interface LedgerInvariant {
  name: string;
  check(tx: Tx, report: (message: string) => void, ctx: CheckContext): Promise<void>;
}

export interface LedgerReport {
  ok: boolean;
  /** The first violations found (at most `maxViolations`), in the order the invariants run. */
  violations: LedgerViolation[];
  /** Which check ran: incremental asked for without a checkpoint runs full. */
  mode: "full" | "incremental";
  /** The checkpoint the incremental check started from. */
  from?: { id: number; lastEntryId: number; lastLineId: number; takenAt: Date };
  stats: LedgerCheckStats;
  /** The checkpoint written (writeCheckpoint and no violation), or why none was. */
  checkpoint?: { id: number; lastEntryId: number; lastLineId: number } | { skipped: string };
}

const PAGE = 2000;
/** Orders (or withdrawals) per page: their ids become one IN (...) list, and SQLite's driver takes at most 999 parameters. */
const ORDER_PAGE = 500;
const CANONICAL_AMOUNT = /^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/;

type EntryRow = {
  id: number;
  journalId: string | null;
  resellerId: string;
  orderId: string | null;
  withdrawalId: string | null;
  currency: string;
  bucket: string;
  kind: string;
  amount: string;
  createdAt: Date;
};

type IdFilter = { orderId?: { in: string[] }; withdrawalId?: { in: string[] }; journalId?: { in: string[] } };

/**
 * The condition of a paged read: one IN list at most, ids after `after` and up to `upTo`. The
 * pages are read with plain SQL, not Prisma's model reads: at the ledger's volume those cost
 * twice the CPU per row, and much more in a process's first check, which the CLI always is
 * (bench/README.md, "Ledger check").
 */
function pageWhere(where: IdFilter, after: number, upTo: number | undefined) {
  const [column, filter] = (Object.entries(where) as [keyof IdFilter, { in: string[] } | undefined][]).find(([, f]) => f) ?? [];
  const list = column && filter ? sql`${sql([`"${column}"`])} IN (${filter.in.length ? joinSql(filter.in) : sql`NULL`}) AND ` : emptySql;
  return sql`${list}"id" > ${after}${upTo === undefined ? emptySql : sql` AND "id" <= ${upTo}`}`;
}

/** Every ledger entry (after `after`, up to `upTo`), oldest first, a page at a time. */
async function* entries(tx: Tx, where: IdFilter = {}, ctx: CheckContext, after = 0, upTo?: number): AsyncGenerator<EntryRow> {
  for (;;) {
    const page = await tx.$queryRaw<EntryRow[]>(
      sql`SELECT "id", "journalId", "resellerId", "orderId", "withdrawalId", "currency", "bucket", "kind", "amount", "createdAt"
          FROM "LedgerEntry" WHERE ${pageWhere(where, after, upTo)} ORDER BY "id" LIMIT ${PAGE}`,
    );
    ctx.stats.entries += page.length;
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}

type LineRow = { id: number; journalId: string | null; currency: string; amount: string };

/** Every operator line (after `after`, up to `upTo`), oldest first, a page at a time. */
async function* operatorLines(
  tx: Tx,
  where: { journalId?: { in: string[] } } = {},
  ctx: CheckContext,
  after = 0,
  upTo?: number,
): AsyncGenerator<LineRow & { account: string }> {
  for (;;) {
    const page = await tx.$queryRaw<(LineRow & { account: string })[]>(
      sql`SELECT "id", "journalId", "account", "currency", "amount" FROM "JournalLine"
          WHERE ${pageWhere(where, after, upTo)} ORDER BY "id" LIMIT ${PAGE}`,
    );
    ctx.stats.lines += page.length;
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}

/** An entry as a journal line: the reseller's bucket is its account. */
const entryLine = (e: EntryRow) => ({ ...e, table: "entry" as const, account: `reseller:${e.resellerId}:${e.bucket}` });

/** Every line of every journal (up to the ids `upTo`), reseller entries and operator lines, a page at a time (oldest first per table). */
async function* journalLines(
  tx: Tx,
  where: { journalId?: { in: string[] } } = {},
  ctx: CheckContext,
  upTo?: { entry: number; line: number },
): AsyncGenerator<LineRow & { table: "entry" | "line"; account: string }> {
  for await (const e of entries(tx, where, ctx, 0, upTo?.entry)) yield entryLine(e);
  for await (const l of operatorLines(tx, where, ctx, 0, upTo?.line)) yield { ...l, table: "line" };
}

type JournalTally = Map<string, { lines: number; sums: Map<string, Dec>; inFlight: boolean }>;

/** The journals that may move payouts in flight: a withdrawal's payout seen mined, reorganised out, or confirmed. */
const IN_FLIGHT_KINDS = ["withdrawal_mined", "withdrawal_unmined", "withdrawal_confirmed"];

/** Adds one line to its journal's tally, after checking the line itself. */
function tallyLine(seen: JournalTally, l: LineRow & { table: "entry" | "line"; account: string }, report: (m: string) => void): void {
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
function judgeJournals(
  seen: JournalTally,
  rows: { id: string; kind: string; lines: number; withdrawalId: string | null }[],
  report: (m: string) => void,
): void {
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

const journalsBalanced: LedgerInvariant = {
  name: "every journal has two or more lines that sum to zero in every currency, and every line has a journal",
  async check(tx, report, ctx) {
    // Per journal: its lines counted, and their sums per currency.
    const seen: JournalTally = new Map();
    const tally = ctx.tally;
    for await (const l of journalLines(tx, {}, ctx)) {
      tallyLine(seen, l, report);
      // For the checkpoint: the last ids read (the streams are in id order) and the operator's sums.
      if (tally && l.table === "entry") {
        tally.lastEntryId = l.id;
        tally.entriesSeen++;
      }
      if (tally && l.table === "line") {
        tally.lastLineId = l.id;
        tally.linesSeen++;
        if (CANONICAL_AMOUNT.test(l.amount)) addTo(tally.accounts, JSON.stringify([l.account, l.currency]), l.amount);
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
};

const entriesWellFormed: LedgerInvariant = {
  name: "entries are well formed",
  async check(tx, report, ctx) {
    for await (const e of entries(tx, {}, ctx)) entryWellFormed(e, report);
  },
};

function entryWellFormed(e: EntryRow, report: (m: string) => void): void {
  if (!(BUCKETS as readonly string[]).includes(e.bucket)) report(`entry ${e.id} has unknown bucket '${e.bucket}'`);
  if (!(ENTRY_KINDS as readonly string[]).includes(e.kind)) report(`entry ${e.id} has unknown kind '${e.kind}'`);
  if (!CANONICAL_AMOUNT.test(e.amount) || new D(e.amount).isZero()) report(`entry ${e.id} has amount '${e.amount}'`);
}

const zeroBuckets = (): Record<Bucket, Dec> => ({ pending: new D(0), available: new D(0), reserved: new D(0) });

function addTo(m: Map<string, Dec>, key: string, amount: string | Dec): void {
  m.set(key, (m.get(key) ?? new D(0)).plus(amount));
}

/** Adds an entry to its balance's sums, unless malformed (reported elsewhere). */
function addEntry(sums: Map<string, Record<Bucket, Dec>>, e: EntryRow): void {
  if (!CANONICAL_AMOUNT.test(e.amount) || !(BUCKETS as readonly string[]).includes(e.bucket)) return;
  const key = JSON.stringify([e.resellerId, e.currency]);
  const s = sums.get(key) ?? zeroBuckets();
  s[e.bucket as Bucket] = s[e.bucket as Bucket].plus(e.amount);
  sums.set(key, s);
}

/** Every Balance row against the sums its entries should give; `sums` is emptied of the keys that have a row. */
async function judgeBalances(tx: Tx, sums: Map<string, Record<Bucket, Dec>>, report: (m: string) => void, ctx: CheckContext) {
  const rows = await tx.balance.findMany({ orderBy: [{ resellerId: "asc" }, { currency: "asc" }] });
  ctx.stats.balances += rows.length;
  for (const b of rows) {
    const key = JSON.stringify([b.resellerId, b.currency]);
    const s = sums.get(key) ?? zeroBuckets();
    sums.delete(key);
    for (const bucket of BUCKETS) {
      const held = new D(b[bucket]);
      if (held.isNeg()) report(`balance ${b.resellerId}/${b.currency} ${bucket} is negative: ${b[bucket]}`);
      if (!held.eq(s[bucket]))
        report(`balance ${b.resellerId}/${b.currency} ${bucket} is ${b[bucket]} but its entries sum to ${s[bucket].toFixed()}`);
    }
  }
  for (const key of sums.keys()) report(`entries of ${JSON.parse(key).join("/")} have no balance row`);
}

const balancesMatchEntries: LedgerInvariant = {
  name: "each balance equals the sum of its entries and is not negative",
  async check(tx, report, ctx) {
    const sums = new Map<string, Record<Bucket, Dec>>();
    for await (const e of entries(tx, {}, ctx)) addEntry(sums, e); // malformed ones are reported above
    // For the checkpoint: the sums themselves (judgeBalances empties the map).
    if (ctx.tally) for (const [k, v] of sums) ctx.tally.balances.set(k, { ...v });
    await judgeBalances(tx, sums, report, ctx);
  },
};

type OrderRow = { id: string; resellerId: string | null; toCurrency: string; status: string; profit: string; createdAt: Date };
const ORDER_SELECT = { id: true, resellerId: true, toCurrency: true, status: true, profit: true, createdAt: true } as const;

/** The order invariant over one page of orders with a reseller (all their entries read). */
async function judgeOrders(tx: Tx, orders: OrderRow[], report: (m: string) => void, ctx: CheckContext): Promise<void> {
  const byOrder = new Map<string, EntryRow[]>();
  for await (const e of entries(tx, { orderId: { in: orders.map((o) => o.id) } }, ctx))
    byOrder.set(e.orderId!, [...(byOrder.get(e.orderId!) ?? []), e]);
  for (const o of orders) {
    const es = byOrder.get(o.id) ?? [];
    for (const e of es)
      if (e.resellerId !== o.resellerId || e.currency !== o.toCurrency)
        report(`entry ${e.id} of order ${o.id} is booked to ${e.resellerId}/${e.currency}, not ${o.resellerId}/${o.toCurrency}`);
    const pending = es.filter((e) => e.bucket === "pending").reduce((s, e) => s.plus(e.amount), new D(0));
    const credits = es.filter((e) => e.kind === "order_profit_settle");
    const closing = es.filter((e) => e.kind === "order_profit_release" || e.kind === "order_profit_reverse");
    const final = o.status === "finished" || o.status === "failed";
    if (pending.isNeg()) report(`order ${o.id} has a negative pending profit ${pending.toFixed()}`);
    if (final && !pending.isZero()) report(`order ${o.id} is ${o.status} but ${pending.toFixed()} of its profit is still pending`);
    if (!final && (credits.length || closing.length)) report(`order ${o.id} is ${o.status} but its profit was already closed`);
    if (o.status === "failed" && credits.length) report(`order ${o.id} failed but its profit was credited`);
    if (o.status === "finished") {
      const expected = new D(o.profit).isZero() ? 0 : 1;
      if (credits.length !== expected) report(`finished order ${o.id} has ${credits.length} profit credits, expected ${expected}`);
      else if (expected && !new D(credits[0].amount).eq(o.profit))
        report(`finished order ${o.id} was credited ${credits[0].amount}, its profit is ${o.profit}`);
    }
  }
}

const orderProfitPostedOnce: LedgerInvariant = {
  name: "every order's profit is pending while open, credited once when finished, reversed when failed",
  async check(tx, report, ctx) {
    const orphans = await tx.ledgerEntry.count({ where: { orderId: { not: null }, order: { resellerId: null } } });
    if (orphans) report(`${orphans} entries belong to orders without a reseller`);
    let after = "";
    for (;;) {
      const orders = await tx.order.findMany({
        where: { resellerId: { not: null }, id: { gt: after } },
        orderBy: { id: "asc" },
        take: ORDER_PAGE,
        select: ORDER_SELECT,
      });
      if (!orders.length) return;
      ctx.stats.orders += orders.length;
      after = orders[orders.length - 1].id;
      await judgeOrders(tx, orders, report, ctx);
    }
  },
};

const WITHDRAWAL_KINDS = ["withdrawal_reserve", "withdrawal_settle", "withdrawal_restore"];

const WITHDRAWAL_INCLUDE = { legs: true, txs: { select: { hash: true, status: true } } } as const;
type WithdrawalRow = Awaited<ReturnType<typeof findWithdrawals>>[number];
const findWithdrawals = (tx: Tx, where: { id: { gt: string } | { in: string[] } }) =>
  tx.withdrawal.findMany({ where, orderBy: { id: "asc" }, take: ORDER_PAGE, include: WITHDRAWAL_INCLUDE });

/** The withdrawal invariant over one page of withdrawals (all their entries read). */
async function judgeWithdrawals(tx: Tx, page: WithdrawalRow[], report: (m: string) => void, ctx: CheckContext): Promise<void> {
  const byW = new Map<string, EntryRow[]>();
  for await (const e of entries(tx, { withdrawalId: { in: page.map((w) => w.id) } }, ctx))
    byW.set(e.withdrawalId!, [...(byW.get(e.withdrawalId!) ?? []), e]);
  const payouts = await payoutLines(tx, page, ctx);
  for (const w of page) {
    const es = byW.get(w.id) ?? [];
    const sum = (currency: string, bucket: string, kind: string) =>
      es.filter((e) => e.currency === currency && e.bucket === bucket && e.kind === kind).reduce((s, e) => s.plus(e.amount), new D(0));
    for (const e of es) {
      if (e.resellerId !== w.resellerId)
        report(`entry ${e.id} of withdrawal ${w.id} is booked to reseller ${e.resellerId}, not ${w.resellerId}`);
      if (!w.legs.some((l) => l.currency === e.currency))
        report(`entry ${e.id} of withdrawal ${w.id} is in ${e.currency}, which it does not convert`);
    }
    if (!new D(w.amount).gt(0)) report(`withdrawal ${w.id} pays ${w.amount}`);
    const mined = w.txs.filter((t) => t.status === "mined");
    if (mined.length > 1) report(`withdrawal ${w.id} was paid by ${mined.length} transactions`);
    if (w.status === "confirmed" && (mined.length !== 1 || mined[0].hash !== w.txHash))
      report(`confirmed withdrawal ${w.id} has no mined payout transaction ${w.txHash}`);
    if ((w.status === "sent" || w.status === "confirmed") && !w.txHash)
      report(`withdrawal ${w.id} is ${w.status} without a transaction hash`);
    if (w.status !== "confirmed" && mined.length) report(`withdrawal ${w.id} is ${w.status} but its payout was recorded as mined`);
    for (const l of w.legs) {
      const a = new D(l.amount);
      const debited = sum(l.currency, "available", "withdrawal_reserve").neg();
      const reserved = sum(l.currency, "reserved", "withdrawal_reserve");
      const paid = sum(l.currency, "reserved", "withdrawal_settle").neg();
      const restored = sum(l.currency, "reserved", "withdrawal_restore").neg();
      const restoredAvailable = sum(l.currency, "available", "withdrawal_restore");
      const held = reserved.minus(paid).minus(restored);
      const tag = `withdrawal ${w.id} (${w.status}) ${l.currency}`;
      // With held = reserved - paid - restored, this also makes debited = paid + restored + held.
      if (!debited.eq(a) || !reserved.eq(a))
        report(`${tag} reserved ${reserved.toFixed()} and debited ${debited.toFixed()}, its leg is ${l.amount}`);
      if (!restored.eq(restoredAvailable))
        report(`${tag} took ${restored.toFixed()} off reserved but put back ${restoredAvailable.toFixed()}`);
      // Paid out: confirmed, or confirmed once and sent again after a reorganisation (lib/withdrawals/reorgs.ts).
      const paidOut = w.status === "confirmed" || (w.reorgs > 0 && w.status !== "failed");
      if (paidOut && (!paid.eq(a) || !restored.isZero()))
        report(`${tag} paid ${paid.toFixed()} and restored ${restored.toFixed()} of ${l.amount}`);
      if (w.status === "failed" && (!restored.eq(a) || !paid.isZero()))
        report(`${tag} restored ${restored.toFixed()} and paid ${paid.toFixed()} of ${l.amount}`);
      if ((paidOut || w.status === "failed") && !held.isZero()) report(`${tag} still reserves ${held.toFixed()}`);
      if (!paidOut && w.status !== "failed" && !held.eq(a)) report(`${tag} reserves ${held.toFixed()}, not ${l.amount}`);
    }
    judgePayoutOnChain(w, payouts.get(w.id), report);
  }
}

type PayoutLines = { settled: boolean; lines: { id: number; account: string; currency: string; amount: string }[] };

/** Per withdrawal of the page: whether its payout was settled (confirmed), and its journals' payouts-in-flight and network-fee lines. */
async function payoutLines(tx: Tx, page: WithdrawalRow[], ctx: CheckContext): Promise<Map<string, PayoutLines>> {
  const out = new Map<string, PayoutLines>(page.map((w) => [w.id, { settled: false, lines: [] }]));
  const journals = await tx.journal.findMany({
    where: { withdrawalId: { in: page.map((w) => w.id) } },
    select: { id: true, kind: true, withdrawalId: true },
  });
  ctx.stats.journals += journals.length;
  const of = new Map(journals.map((j) => [j.id, j.withdrawalId!]));
  for (const j of journals)
    if (j.kind === "withdrawal_confirmed" || j.kind === "migrated:withdrawal_settle") out.get(j.withdrawalId!)!.settled = true;
  for (const ids of pages(of.keys())) {
    const lines = await tx.journalLine.findMany({
      where: { journalId: { in: ids }, OR: [{ account: { startsWith: IN_FLIGHT_PREFIX } }, { account: NETWORK_FEES }] },
      orderBy: { id: "asc" },
      select: { id: true, journalId: true, account: true, currency: true, amount: true },
    });
    ctx.stats.lines += lines.length;
    for (const l of lines) out.get(of.get(l.journalId)!)!.lines.push(l);
  }
  return out;
}

/**
 * A withdrawal's payout as the books hold it on chain: paid out (settled) less what is in flight
 * (payouts:in_flight:<chain>:<asset>, withdrawal_mined and withdrawal_unmined). Nothing while it
 * is queued or processing; nothing or all of it while sent (mined, or reorganised out); a final
 * one has nothing in flight. With nothing on chain, no network fee is booked either (unmined
 * books back the fee its mined journal booked). Lines in flight name the withdrawal's chain and asset.
 */
function judgePayoutOnChain(w: WithdrawalRow, p: PayoutLines | undefined, report: (m: string) => void): void {
  const account = payoutsInFlight(w.chainId, w.asset);
  const tag = `withdrawal ${w.id} (${w.status})`;
  let inFlight = new D(0);
  let fees = new D(0);
  for (const l of p?.lines ?? []) {
    if (!CANONICAL_AMOUNT.test(l.amount)) continue; // "every journal" names it
    if (l.account === NETWORK_FEES) fees = fees.plus(l.amount);
    else if (l.account !== account || l.currency !== w.asset)
      report(`line ${l.id} of withdrawal ${w.id} is booked to ${l.account} in ${l.currency}, not ${account} in ${w.asset}`);
    else inFlight = inFlight.plus(l.amount);
  }
  const paid = new D(w.amount);
  const onChain = (p?.settled ? paid : new D(0)).minus(inFlight);
  if (w.status === "confirmed" || w.status === "failed") {
    if (!inFlight.isZero()) report(`${tag} still has ${inFlight.neg().toFixed()} ${w.asset} in flight`);
  } else if (w.status === "sent" ? !onChain.isZero() && !onChain.eq(paid) : !onChain.isZero())
    report(`${tag} books ${onChain.toFixed()} of its payout of ${w.amount} ${w.asset} as on chain`);
  else if (onChain.isZero() && !fees.isZero()) report(`${tag} books a network fee of ${fees.neg().toFixed()} with no payout on chain`);
}

const withdrawalsBalanced: LedgerInvariant = {
  name: "every withdrawal's debits equal what it paid plus what was restored, its payout is on chain in the books as its state says, and a final one reserves nothing and has nothing in flight",
  async check(tx, report, ctx) {
    const stray = await tx.ledgerEntry.count({
      where: {
        OR: [
          { kind: { in: WITHDRAWAL_KINDS }, withdrawalId: null },
          { kind: { notIn: WITHDRAWAL_KINDS }, withdrawalId: { not: null } },
        ],
      },
    });
    if (stray) report(`${stray} entries mix withdrawal kinds and withdrawal ids`);
    let after = "";
    for (;;) {
      const page = await findWithdrawals(tx, { id: { gt: after } });
      if (!page.length) return;
      ctx.stats.withdrawals += page.length;
      after = page[page.length - 1].id;
      await judgeWithdrawals(tx, page, report, ctx);
    }
  },
};

const dailyRollupMatchesEntries: LedgerInvariant = {
  name: "each daily rollup row equals the sum of its entries",
  async check(tx, report) {
    // The entries' sums per (reseller, kind, bucket, UTC day, currency), a page of entries at a time.
    const sums = new Map<string, Dec>();
    let after = 0;
    for (;;) {
      const page = await tx.ledgerEntry.findMany({
        where: { id: { gt: after } },
        orderBy: { id: "asc" },
        take: PAGE,
        select: { id: true, resellerId: true, kind: true, bucket: true, currency: true, amount: true, createdAt: true },
      });
      for (const e of page) {
        let amount: Dec;
        try {
          amount = new D(e.amount);
        } catch {
          continue; // not a number: "entries are well formed" names it
        }
        const key = JSON.stringify([e.resellerId, e.kind, e.bucket, dayOf(e.createdAt), e.currency]);
        sums.set(key, (sums.get(key) ?? new D(0)).plus(amount));
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1].id;
    }
    const rows = await tx.ledgerDaily.findMany({
      orderBy: [{ resellerId: "asc" }, { kind: "asc" }, { bucket: "asc" }, { day: "asc" }, { currency: "asc" }],
    });
    for (const r of rows) {
      const key = JSON.stringify([r.resellerId, r.kind, r.bucket, r.day, r.currency]);
      const s = sums.get(key) ?? new D(0);
      sums.delete(key);
      const tag = `rollup ${r.resellerId}/${r.currency} ${r.day} ${r.kind} ${r.bucket}`;
      if (!CANONICAL_AMOUNT.test(r.amount)) report(`${tag} has amount '${r.amount}'`);
      else if (!new D(r.amount).eq(s)) report(`${tag} is ${r.amount} but its entries sum to ${s.toFixed()}`);
    }
    for (const [key, s] of sums)
      if (!s.isZero()) report(`entries of ${JSON.parse(key).join("/")} sum to ${s.toFixed()} but have no rollup row`);
  },
};

// The channel rollup (lib/ledger/channel-daily.ts): per (reseller, UTC day, channel, currency)
// the opened orders created that day, the finished ones and their fromAmount, and the
// order_profit_settle entries created that day, under their orders' channel.
type ChannelSums = Map<string, { orders: number; finished: number; volume: Dec; profit: Dec }>;
const channelSum = (sums: ChannelSums, key: string) => {
  const s = sums.get(key) ?? { orders: 0, finished: 0, volume: new D(0), profit: new D(0) };
  sums.set(key, s);
  return s;
};
const CHANNEL_ORDER_SELECT = {
  resellerId: true,
  channel: true,
  createdAt: true,
  fromCurrency: true,
  status: true,
  fromAmount: true,
} as const;
type ChannelOrder = {
  resellerId: string | null;
  channel: string | null;
  createdAt: Date;
  fromCurrency: string;
  status: string;
  fromAmount: string;
};
function addChannelOrder(sums: ChannelSums, o: ChannelOrder): void {
  const s = channelSum(sums, JSON.stringify([o.resellerId, dayOf(o.createdAt), o.channel ?? "", o.fromCurrency]));
  s.orders++;
  if (o.status !== "finished") return;
  s.finished++;
  if (CANONICAL_AMOUNT.test(o.fromAmount)) s.volume = s.volume.plus(o.fromAmount);
}
const SETTLE_SELECT = {
  id: true,
  resellerId: true,
  createdAt: true,
  currency: true,
  amount: true,
  order: { select: { channel: true } },
} as const;
type SettleRow = { resellerId: string; createdAt: Date; currency: string; amount: string; order: { channel: string | null } | null };
function addChannelSettle(sums: ChannelSums, e: SettleRow): void {
  let amount: Dec;
  try {
    amount = new D(e.amount);
  } catch {
    return; // not a number: "entries are well formed" names it
  }
  const s = channelSum(sums, JSON.stringify([e.resellerId, dayOf(e.createdAt), e.order?.channel ?? "", e.currency]));
  s.profit = s.profit.plus(amount);
}

/** Rollup rows against the sums their orders and entries give; `sums` is emptied of the keys judged. */
function judgeChannelRows(
  rows: {
    resellerId: string;
    day: string;
    channel: string;
    currency: string;
    orders: number;
    finished: number;
    volume: string;
    profit: string;
  }[],
  sums: ChannelSums,
  report: (m: string) => void,
): void {
  for (const r of rows) {
    const key = JSON.stringify([r.resellerId, r.day, r.channel, r.currency]);
    const s = sums.get(key) ?? { orders: 0, finished: 0, volume: new D(0), profit: new D(0) };
    sums.delete(key);
    const tag = `channel rollup ${r.resellerId}/${r.channel || "none"}/${r.day}/${r.currency}`;
    if (r.orders !== s.orders || r.finished !== s.finished)
      report(`${tag} counts ${r.orders} orders, ${r.finished} finished, but its orders give ${s.orders}, ${s.finished}`);
    for (const [col, want] of [
      ["volume", s.volume],
      ["profit", s.profit],
    ] as const) {
      const held = r[col];
      if (!CANONICAL_AMOUNT.test(held)) report(`${tag} has ${col} '${held}'`);
      else if (!new D(held).eq(want))
        report(`${tag} has ${col} ${held} but its ${col === "volume" ? "finished orders" : "credits"} sum to ${want.toFixed()}`);
    }
  }
  for (const [key, s] of sums)
    if (s.orders || s.finished || !s.volume.isZero() || !s.profit.isZero())
      report(`channel figures of ${JSON.parse(key).join("/")} (${s.orders} orders, profit ${s.profit.toFixed()}) have no rollup row`);
}

const channelRollupMatches: LedgerInvariant = {
  name: "each channel rollup row equals its orders and credited profit",
  async check(tx, report, ctx) {
    const sums: ChannelSums = new Map();
    let after = "";
    for (;;) {
      const page = await tx.order.findMany({
        where: { resellerId: { not: null }, payinAddress: { not: null }, id: { gt: after } },
        orderBy: { id: "asc" },
        take: PAGE,
        select: { id: true, ...CHANNEL_ORDER_SELECT },
      });
      ctx.stats.orders += page.length;
      for (const o of page) addChannelOrder(sums, o);
      if (page.length < PAGE) break;
      after = page[page.length - 1].id;
    }
    let afterId = 0;
    for (;;) {
      const page = await tx.ledgerEntry.findMany({
        where: { kind: "order_profit_settle", id: { gt: afterId } },
        orderBy: { id: "asc" },
        take: PAGE,
        select: SETTLE_SELECT,
      });
      ctx.stats.entries += page.length;
      for (const e of page) addChannelSettle(sums, e);
      if (page.length < PAGE) break;
      afterId = page[page.length - 1].id;
    }
    const rows = await tx.channelDaily.findMany({
      orderBy: [{ resellerId: "asc" }, { day: "asc" }, { channel: "asc" }, { currency: "asc" }],
    });
    judgeChannelRows(rows, sums, report);
  },
};

/** The invariants `checkLedger` runs by default, in order. */
export const LEDGER_INVARIANTS: LedgerInvariant[] = [
  entriesWellFormed,
  balancesMatchEntries,
  orderProfitPostedOnce,
  withdrawalsBalanced,
  journalsBalanced,
  dailyRollupMatchesEntries,
  channelRollupMatches,
];

/** The latest checkpoint, parsed: what the incremental check starts from. */
interface Checkpoint {
  id: number;
  takenAt: Date;
  lastEntryId: number;
  lastLineId: number;
  balances: Map<string, Record<Bucket, Dec>>;
  accounts: Map<string, Dec>;
}

async function latestCheckpoint(tx: Tx): Promise<Checkpoint | null> {
  const row = await tx.ledgerCheckpoint.findFirst({ orderBy: { id: "desc" } });
  if (!row) return null;
  const balances = new Map<string, Record<Bucket, Dec>>();
  for (const [r, c, pending, available, reserved] of JSON.parse(row.balances) as string[][])
    balances.set(JSON.stringify([r, c]), { pending: new D(pending), available: new D(available), reserved: new D(reserved) });
  const accounts = new Map<string, Dec>();
  for (const [a, c, sum] of JSON.parse(row.accounts) as string[][]) accounts.set(JSON.stringify([a, c]), new D(sum));
  return { id: row.id, takenAt: row.takenAt, lastEntryId: row.lastEntryId, lastLineId: row.lastLineId, balances, accounts };
}

/**
 * How long before a checkpoint's snapshot an order or withdrawal may have been changed and still
 * be re-checked by the next incremental check (their updatedAt is the writer's clock at the
 * change, not the commit's): clock skew between processes plus the longest write transaction.
 */
const KEEP_CHECKPOINTS = 10;

export const DEFAULT_CHANGE_SLACK_MS = 10 * 60_000;

const name = (prefix: string) => LEDGER_INVARIANTS.find((i) => i.name.startsWith(prefix))!.name;

/** Ids, a page of at most ORDER_PAGE at a time (one IN list each). */
function* pages(ids: Iterable<string>): Generator<string[]> {
  const all = [...ids].sort();
  for (let i = 0; i < all.length; i += ORDER_PAGE) yield all.slice(i, i + ORDER_PAGE);
}

/**
 * The incremental check: the same invariants, over what changed since the checkpoint `cp`.
 * - entries and lines after its ids: read, each checked; their sums added to the checkpoint's;
 * - every Balance row against those sums (Balance has one row per reseller and currency, as many
 *   as the checkpoint's sums, so all of them are re-checked, changed or not);
 * - the journals of the new entries and lines, each with all its lines;
 * - the orders of the new entries and those changed since the checkpoint (updatedAt, less the
 *   slack): an order finished without its credit posts no entry, so new entries alone miss it;
 * - likewise withdrawals: of the new entries, changed since, or whose payout transaction changed.
 */
async function checkIncremental(
  tx: Tx,
  cp: Checkpoint,
  since: Date,
  reporter: (invariant: string) => (m: string) => void,
  ctx: CheckContext,
): Promise<Tally> {
  const tally: Tally = {
    lastEntryId: cp.lastEntryId,
    lastLineId: cp.lastLineId,
    entriesSeen: 0,
    linesSeen: 0,
    balances: new Map([...cp.balances].map(([k, v]) => [k, { ...v }])),
    accounts: new Map(cp.accounts),
  };
  const wellFormed = reporter(name("entries are well formed"));
  const journalReport = reporter(name("every journal"));
  const orderReport = reporter(name("every order's profit"));
  const withdrawalReport = reporter(name("every withdrawal's"));
  const journals: JournalTally = new Map();
  const touchedJournals = new Set<string>();
  const entriesByOrder = new Map<string, number>();
  const withdrawalIds = new Set<string>();
  /** The daily rollup rows the new entries add to (reseller, kind, bucket, UTC day, currency), with the new entries' sum. */
  const touchedDays = new Map<string, Dec>();
  /** The channel rollup's (reseller, UTC day) the new credits and the orders read below add to. */
  const channelDays = new Set<string>();
  /** The new credits, by the channel rollup's (reseller, UTC day) (their orders' channels are read with the orders below). */
  const newCredits = new Map<string, EntryRow[]>();
  let stray = 0;
  for await (const e of entries(tx, {}, ctx, cp.lastEntryId)) {
    tally.lastEntryId = e.id;
    tally.entriesSeen++;
    entryWellFormed(e, wellFormed);
    addEntry(tally.balances, e);
    tallyLine(journals, entryLine(e), journalReport); // reports an entry without a journal
    if (e.journalId) touchedJournals.add(e.journalId);
    if (e.orderId) entriesByOrder.set(e.orderId, (entriesByOrder.get(e.orderId) ?? 0) + 1);
    if (e.withdrawalId) withdrawalIds.add(e.withdrawalId);
    if (WITHDRAWAL_KINDS.includes(e.kind) !== (e.withdrawalId !== null)) stray++;
    const day = dayOf(e.createdAt);
    const dayKey = JSON.stringify([e.resellerId, e.kind, e.bucket, day, e.currency]);
    const daySum = touchedDays.get(dayKey) ?? new D(0);
    touchedDays.set(dayKey, CANONICAL_AMOUNT.test(e.amount) ? daySum.plus(e.amount) : daySum);
    if (e.kind === "order_profit_settle") {
      const channelDay = JSON.stringify([e.resellerId, day]);
      channelDays.add(channelDay);
      const credits = newCredits.get(channelDay);
      if (credits) credits.push(e);
      else newCredits.set(channelDay, [e]);
    }
  }
  /** Journals of new operator lines that no new entry names (a payout mined or unmined has no entry): their withdrawals too. */
  const linesOnly = new Set<string>();
  for await (const l of operatorLines(tx, {}, ctx, cp.lastLineId)) {
    tally.lastLineId = l.id;
    tally.linesSeen++;
    if (CANONICAL_AMOUNT.test(l.amount)) addTo(tally.accounts, JSON.stringify([l.account, l.currency]), l.amount);
    if (l.journalId && !touchedJournals.has(l.journalId)) linesOnly.add(l.journalId);
    if (l.journalId) touchedJournals.add(l.journalId);
    tallyLine(journals, { ...l, table: "line" }, journalReport); // also reports the line's own faults and "no journal"
  }

  // Balances: every row against the checkpoint's sums plus the new entries'.
  const sums = new Map([...tally.balances].map(([k, v]) => [k, { ...v }]));
  await judgeBalances(tx, sums, reporter(name("each balance")), ctx);

  // Daily rollup rows the new entries add to, each against all of its day's entries.
  await judgeTouchedDays(tx, touchedDays, cp.lastEntryId, reporter(name("each daily rollup")), ctx);

  // Orders.
  const orderIds = new Set(entriesByOrder.keys());
  const changed = await tx.order.findMany({ where: { updatedAt: { gte: since } }, select: { id: true } });
  for (const o of changed) orderIds.add(o.id);
  let orphans = 0;
  const channelOf = new Map<string, string | null>();
  for (const ids of pages(orderIds)) {
    const rows = await tx.order.findMany({
      where: { id: { in: ids } },
      orderBy: { id: "asc" },
      select: { ...ORDER_SELECT, channel: true },
    });
    ctx.stats.orders += rows.length;
    for (const o of rows) {
      channelOf.set(o.id, o.channel);
      if (o.resellerId === null) orphans += entriesByOrder.get(o.id) ?? 0;
      else channelDays.add(JSON.stringify([o.resellerId, dayOf(o.createdAt)]));
    }
    await judgeOrders(
      tx,
      rows.filter((o) => o.resellerId !== null),
      orderReport,
      ctx,
    );
  }
  if (orphans) orderReport(`${orphans} entries belong to orders without a reseller`);

  // Channel rollup rows of the days those orders were created on and the new credits were made on.
  await judgeTouchedChannelDays(
    tx,
    channelDays,
    { credits: newCredits, channelOf, upTo: cp.lastEntryId },
    reporter(name("each channel rollup")),
    ctx,
  );

  // Withdrawals.
  if (stray) withdrawalReport(`${stray} entries mix withdrawal kinds and withdrawal ids`);
  for (const w of await tx.withdrawal.findMany({ where: { updatedAt: { gte: since } }, select: { id: true } })) withdrawalIds.add(w.id);
  for (const t of await tx.payoutTx.findMany({ where: { updatedAt: { gte: since } }, select: { withdrawalId: true } }))
    withdrawalIds.add(t.withdrawalId);
  for (const ids of pages(linesOnly)) {
    const rows = await tx.journal.findMany({ where: { id: { in: ids }, withdrawalId: { not: null } }, select: { withdrawalId: true } });
    ctx.stats.journals += rows.length;
    for (const j of rows) withdrawalIds.add(j.withdrawalId!);
  }
  for (const ids of pages(withdrawalIds)) {
    const rows = await findWithdrawals(tx, { id: { in: ids } });
    ctx.stats.withdrawals += rows.length;
    await judgeWithdrawals(tx, rows, withdrawalReport, ctx);
  }

  // Journals: each one a new row names, with all its lines. Its new lines were tallied as they
  // were read above; its rows below the checkpoint (none, unless a row was added to a journal
  // after it was written: a journal's lines and row commit together) are read here, by the
  // journalId index. They were checked one by one before; only their journal's sums need them.
  const upTo = { entry: cp.lastEntryId, line: cp.lastLineId };
  for (const ids of pages(touchedJournals)) {
    for await (const l of journalLines(tx, { journalId: { in: ids } }, ctx, upTo)) tallyLine(journals, l, () => {});
    const rows = await tx.$queryRaw<{ id: string; kind: string; lines: number; withdrawalId: string | null }[]>(
      sql`SELECT "id", "kind", "lines", "withdrawalId" FROM "Journal" WHERE "id" IN (${joinSql(ids)}) ORDER BY "id"`,
    );
    ctx.stats.journals += rows.length;
    judgeJournals(journals, rows, journalReport);
  }
  for (const id of journals.keys()) journalReport(`lines of journal ${id} have no journal row`);
  return tally;
}

/**
 * Touched keys (JSON arrays; `pick` gives a key's reseller and UTC day) by day, oldest first:
 * each day's creation-time range and its resellers, each with its keys.
 */
function touchedByDay(keys: Iterable<string>, pick: (key: string[]) => [resellerId: string, day: string]) {
  const byDay = new Map<string, Map<string, string[]>>();
  for (const key of keys) {
    const [resellerId, day] = pick(JSON.parse(key) as string[]);
    const resellers = byDay.get(day) ?? new Map<string, string[]>();
    resellers.set(resellerId, [...(resellers.get(resellerId) ?? []), key]);
    byDay.set(day, resellers);
  }
  return [...byDay]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([day, resellers]) => {
      const start = new Date(`${day}T00:00:00.000Z`);
      return { day, createdAt: { gte: start, lt: new Date(start.getTime() + 86_400_000) }, resellers };
    });
}

/**
 * The incremental part of "each daily rollup row equals the sum of its entries": each rollup row
 * a new entry adds to, against the sum of all its day's entries. `keys` holds each such row's key
 * with the sum of its new entries (those after the checkpoint's `upTo`, read already); its day's
 * entries up to `upTo` are read here, per day and a page of resellers at a time (one statement
 * each, by the index on resellerId, kind, createdAt), so it costs that day's entries of the
 * resellers posted to since the checkpoint, not the ledger. Rows no new entry touches are
 * trusted, as entries below the checkpoint are.
 */
async function judgeTouchedDays(
  tx: Tx,
  keys: Map<string, Dec>,
  upTo: number,
  report: (m: string) => void,
  ctx: CheckContext,
): Promise<void> {
  for (const { day, createdAt, resellers } of touchedByDay(keys.keys(), (k) => [k[0], k[3]])) {
    for (const ids of pages(resellers.keys())) {
      const touched = ids.flatMap((id) => resellers.get(id) ?? []);
      const sums = new Map(touched.map((k) => [k, keys.get(k)!]));
      const kinds = [...new Set(touched.map((k) => JSON.parse(k)[1] as string))].sort();
      // The whole day at once, with no ORDER BY id and no LIMIT: paged by id, SQLite's planner
      // walks an index by (resellerId, id) through each reseller's whole ledger instead (17 s at
      // 10M lines); with the kinds too it takes (resellerId, kind, createdAt) ranges only, and
      // the id bound is a filter on them.
      const page = await tx.$queryRaw<{ resellerId: string; kind: string; bucket: string; currency: string; amount: string }[]>(
        sql`SELECT "resellerId", "kind", "bucket", "currency", "amount" FROM "LedgerEntry"
            WHERE "resellerId" IN (${joinSql(ids)}) AND "kind" IN (${joinSql(kinds)})
              AND "createdAt" >= ${createdAt.gte} AND "createdAt" < ${createdAt.lt} AND "id" <= ${upTo}`,
      );
      ctx.stats.entries += page.length;
      for (const e of page) {
        const key = JSON.stringify([e.resellerId, e.kind, e.bucket, day, e.currency]);
        const sum = sums.get(key);
        if (sum && CANONICAL_AMOUNT.test(e.amount)) sums.set(key, sum.plus(e.amount));
      }
      const rows = await tx.ledgerDaily.findMany({ where: { day, resellerId: { in: ids } } });
      const held = new Map(rows.map((r) => [JSON.stringify([r.resellerId, r.kind, r.bucket, r.day, r.currency]), r.amount]));
      for (const key of touched.sort()) {
        const [resellerId, kind, bucket, , currency] = JSON.parse(key) as string[];
        const sum = sums.get(key) ?? new D(0);
        const amount = held.get(key);
        const tag = `rollup ${resellerId}/${currency} ${day} ${kind} ${bucket}`;
        if (amount === undefined) {
          if (!sum.isZero())
            report(`entries of ${resellerId}/${kind}/${bucket}/${day}/${currency} sum to ${sum.toFixed()} but have no rollup row`);
        } else if (!CANONICAL_AMOUNT.test(amount)) report(`${tag} has amount '${amount}'`);
        else if (!new D(amount).eq(sum)) report(`${tag} is ${amount} but its entries sum to ${sum.toFixed()}`);
      }
    }
  }
}

/**
 * The incremental part of "each channel rollup row equals its orders and credited profit": every
 * rollup row of each (reseller, day) an order changed since the checkpoint was created on, or a
 * new credit was made on, against that day's orders (by the (resellerId, createdAt, status) index)
 * and credits: the new ones (after the checkpoint's `upTo`, read already, by (reseller, day), each under its order's channel) and
 * those up to `upTo` (by (resellerId, kind, createdAt)). Other days are trusted.
 */
async function judgeTouchedChannelDays(
  tx: Tx,
  keys: Set<string>,
  known: { credits: Map<string, EntryRow[]>; channelOf: Map<string, string | null>; upTo: number },
  report: (m: string) => void,
  ctx: CheckContext,
): Promise<void> {
  for (const { day, createdAt, resellers } of touchedByDay(keys, (k) => [k[0], k[1]])) {
    // A page of resellers' whole day at once, three statements: paged by id (ORDER BY id LIMIT),
    // SQLite's planner walks each reseller's whole ledger by (resellerId, id) instead of the day's
    // (resellerId, kind, createdAt) range; a statement per reseller cost 3 s for 1,000 resellers.
    for (const ids of pages(resellers.keys())) {
      const sums: ChannelSums = new Map();
      const orders = await tx.order.findMany({
        where: { resellerId: { in: ids }, createdAt, payinAddress: { not: null } },
        select: { id: true, ...CHANNEL_ORDER_SELECT },
      });
      ctx.stats.orders += orders.length;
      for (const o of orders) addChannelOrder(sums, o);
      const credits = await tx.$queryRaw<(Omit<SettleRow, "order"> & { channel: string | null })[]>(
        sql`SELECT e."resellerId", e."createdAt", e."currency", e."amount", o."channel"
            FROM "LedgerEntry" e LEFT JOIN "Order" o ON o."id" = e."orderId"
            WHERE e."resellerId" IN (${joinSql(ids)}) AND e."kind" = 'order_profit_settle'
              AND e."createdAt" >= ${createdAt.gte} AND e."createdAt" < ${createdAt.lt} AND e."id" <= ${known.upTo}`,
      );
      ctx.stats.entries += credits.length;
      for (const e of credits) addChannelSettle(sums, { ...e, order: { channel: e.channel } });
      for (const id of ids)
        for (const e of known.credits.get(JSON.stringify([id, day])) ?? [])
          addChannelSettle(sums, { ...e, order: e.orderId ? { channel: known.channelOf.get(e.orderId) ?? null } : null });
      judgeChannelRows(await tx.channelDaily.findMany({ where: { day, resellerId: { in: ids } } }), sums, report);
    }
  }
}

/**
 * PostgreSQL only: a checkpoint covers every row up to its ids, but autoincrement ids are drawn
 * when a row is inserted and become visible when its transaction commits, so a transaction still
 * open at the checked snapshot may hold ids below the last one the check read, and commit them
 * after it. Skipping those forever would be unsound. So before the checkpoint is written, this
 * waits for every transaction that was in progress at the snapshot (pg_snapshot_xip of it) to end,
 * then counts the rows between the previous checkpoint's ids and the new ones again: if the count
 * is what the check read, no row below the new ids can still appear (any such row's transaction
 * had drawn its id before the last row read was drawn, hence began before the snapshot, and has
 * ended). Otherwise no checkpoint is written: the next check reads those rows from the previous
 * one. Rows below the previous checkpoint were settled the same way when it was written. This
 * relies on the sequences' default CACHE 1 (ids drawn in order across sessions). It takes no lock:
 * writers never wait for the check. SQLite needs none of this: its writes are serialised, so a
 * snapshot holds every id up to the last one it sees.
 */
async function lateRowsSettled(db: Db, snapshot: string, from: { entry: number; line: number }, tally: Tally): Promise<string | null> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [{ open }] = await db.$queryRawUnsafe<{ open: bigint }[]>(
      // Not those of another database's sessions (a 32-bit xid is the 64-bit one's low half):
      // they cannot write these tables, and on a shared server one long transaction elsewhere
      // kept every checkpoint from being written.
      `SELECT count(*) AS open FROM pg_snapshot_xip($1::pg_snapshot) x WHERE pg_xact_status(x) = 'in progress'
         AND x::text::bigint % 4294967296 NOT IN (SELECT "backend_xid"::text::bigint FROM pg_stat_activity
           WHERE "datname" IS DISTINCT FROM current_database() AND "backend_xid" IS NOT NULL)`,
      snapshot,
    );
    if (Number(open) === 0) break;
    if (Date.now() > deadline) return "transactions open at the check's snapshot are still running";
    await new Promise((r) => setTimeout(r, 50));
  }
  const [{ entries: e, lines: l }] = await db.$queryRawUnsafe<{ entries: bigint; lines: bigint }[]>(
    `SELECT (SELECT count(*) FROM "LedgerEntry" WHERE "id" > $1 AND "id" <= $2) AS entries,
            (SELECT count(*) FROM "JournalLine" WHERE "id" > $3 AND "id" <= $4) AS lines`,
    from.entry,
    tally.lastEntryId,
    from.line,
    tally.lastLineId,
  );
  if (Number(e) !== tally.entriesSeen || Number(l) !== tally.linesSeen)
    return "rows below the new checkpoint's ids were committed after the check's snapshot";
  return null;
}

export interface CheckLedgerOptions {
  /** Full (the default): every invariant over every row. Incremental: from the latest checkpoint (full when there is none). */
  mode?: "full" | "incremental";
  /** Only these invariants (full mode only; no checkpoint is written). */
  invariants?: LedgerInvariant[];
  maxViolations?: number;
  /** Write a checkpoint when no violation is found (the CLI does; the test suites do not). */
  writeCheckpoint?: boolean;
  /** DEFAULT_CHANGE_SLACK_MS unless given. */
  changeSlackMs?: number;
  now?: () => Date;
}

/**
 * Runs the check over one snapshot (REPEATABLE READ on PostgreSQL; one read transaction
 * on SQLite), so a check made while orders move never sees half of a transaction.
 */
export async function checkLedger(db: Db, opts: CheckLedgerOptions = {}): Promise<LedgerReport> {
  if (opts.invariants && opts.mode === "incremental") throw new Error("an incremental check runs every invariant");
  const max = opts.maxViolations ?? 20;
  const violations: LedgerViolation[] = [];
  const reporter = (invariant: string) => (message: string) => {
    if (violations.length < max) violations.push({ invariant, message });
  };
  const isPg = providerOf(db) === "postgresql";
  const ctx: CheckContext = { stats: { entries: 0, lines: 0, journals: 0, orders: 0, withdrawals: 0, balances: 0 } };
  const wantTally = opts.writeCheckpoint && !opts.invariants;
  let mode: LedgerReport["mode"] = "full";
  let from: Checkpoint | null = null;
  let snapshot = "";
  let tally: Tally | undefined;
  const takenAt = (opts.now ?? (() => new Date()))();
  await db.$transaction(
    async (tx) => {
      // The first statement takes the snapshot (REPEATABLE READ); its in-progress list is kept for lateRowsSettled.
      if (isPg) [{ snapshot }] = await tx.$queryRawUnsafe<{ snapshot: string }[]>(`SELECT pg_current_snapshot()::text AS snapshot`);
      from = opts.mode === "incremental" ? await latestCheckpoint(tx) : null;
      if (from) {
        mode = "incremental";
        const since = new Date(from.takenAt.getTime() - (opts.changeSlackMs ?? DEFAULT_CHANGE_SLACK_MS));
        tally = await checkIncremental(tx, from, since, reporter, ctx);
        return;
      }
      if (wantTally) ctx.tally = { lastEntryId: 0, lastLineId: 0, entriesSeen: 0, linesSeen: 0, balances: new Map(), accounts: new Map() };
      for (const inv of opts.invariants ?? LEDGER_INVARIANTS) await inv.check(tx, reporter(inv.name), ctx);
      tally = ctx.tally;
    },
    // The SQLite client's types know only Serializable; PostgreSQL takes REPEATABLE READ.
    { ...(isPg ? { isolationLevel: "RepeatableRead" as "Serializable" } : {}), timeout: 600_000, maxWait: 60_000 },
  );
  const cp = from as Checkpoint | null;
  const report: LedgerReport = {
    ok: violations.length === 0,
    violations,
    mode,
    stats: ctx.stats,
    ...(cp ? { from: { id: cp.id, lastEntryId: cp.lastEntryId, lastLineId: cp.lastLineId, takenAt: cp.takenAt } } : {}),
  };
  if (!wantTally || !report.ok || !tally) return report;
  const done = tally as Tally;
  const skipped = isPg ? await lateRowsSettled(db, snapshot, { entry: cp?.lastEntryId ?? 0, line: cp?.lastLineId ?? 0 }, done) : null;
  if (skipped) return { ...report, checkpoint: { skipped } };
  // What the snapshot verified; written after it (rows up to these ids never change), in its own transaction.
  const row = await db.ledgerCheckpoint.create({
    data: {
      takenAt,
      lastEntryId: done.lastEntryId,
      lastLineId: done.lastLineId,
      balances: JSON.stringify(
        [...done.balances]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, v]) => [...(JSON.parse(k) as string[]), v.pending.toFixed(), v.available.toFixed(), v.reserved.toFixed()]),
      ),
      accounts: JSON.stringify(
        [...done.accounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [...(JSON.parse(k) as string[]), v.toFixed()]),
      ),
      full: mode === "full",
    },
  });
  // Only the latest is read; a few are kept for the operator to compare.
  const keep = await db.ledgerCheckpoint.findMany({ orderBy: { id: "desc" }, skip: KEEP_CHECKPOINTS - 1, take: 1, select: { id: true } });
  if (keep.length) await db.ledgerCheckpoint.deleteMany({ where: { id: { lt: keep[0].id } } });
  return { ...report, checkpoint: { id: row.id, lastEntryId: row.lastEntryId, lastLineId: row.lastLineId } };
}
