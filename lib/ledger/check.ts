import "server-only";
import { type Db, providerOf, type Tx } from "@/lib/db/client";
import { D, type Dec } from "@/lib/money/decimal";
import { isAccountName } from "./accounts";
import { dayOf } from "./daily";
import { BUCKETS, type Bucket, ENTRY_KINDS, JOURNAL_KINDS } from "./ledger";

// The ledger's integrity check, for the operator (`npm run cli -- ledger:check`) and for the
// test suites (after every HTTP test file). Each invariant is a named function over one
// consistent snapshot of the database; new money flows (withdrawals) add theirs to
// LEDGER_INVARIANTS. The last one is double entry's: every journal sums to zero. Everything is streamed in pages, so memory grows with the number of
// balances, not with the length of the ledger.

export interface LedgerViolation {
  invariant: string;
  message: string;
}

export interface LedgerInvariant {
  name: string;
  check(tx: Tx, report: (message: string) => void): Promise<void>;
}

export interface LedgerReport {
  ok: boolean;
  /** The first violations found (at most `maxViolations`), in the order the invariants run. */
  violations: LedgerViolation[];
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
};

/** Every ledger entry, oldest first, a page at a time. */
async function* entries(tx: Tx, where: { orderId?: { in: string[] }; withdrawalId?: { in: string[] } } = {}): AsyncGenerator<EntryRow> {
  let after = 0;
  for (;;) {
    const page = await tx.ledgerEntry.findMany({ where: { ...where, id: { gt: after } }, orderBy: { id: "asc" }, take: PAGE });
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}

type LineRow = { id: number; journalId: string | null; currency: string; amount: string };

/** Every line of every journal, reseller entries and operator lines, a page at a time (oldest first per table). */
async function* journalLines(tx: Tx): AsyncGenerator<LineRow & { table: "entry" | "line"; account: string }> {
  for await (const e of entries(tx)) yield { ...e, table: "entry", account: `reseller:${e.resellerId}:${e.bucket}` };
  let after = 0;
  for (;;) {
    const page = await tx.journalLine.findMany({ where: { id: { gt: after } }, orderBy: { id: "asc" }, take: PAGE });
    for (const l of page) yield { ...l, table: "line" };
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}

const journalsBalanced: LedgerInvariant = {
  name: "every journal has two or more lines that sum to zero in every currency, and every line has a journal",
  async check(tx, report) {
    // Per journal: its lines counted, and their sums per currency.
    const seen = new Map<string, { lines: number; sums: Map<string, Dec> }>();
    for await (const l of journalLines(tx)) {
      const tag = l.table === "entry" ? `entry ${l.id}` : `line ${l.id}`;
      if (l.table === "line" && !isAccountName(l.account)) report(`${tag} is booked to an unknown account '${l.account}'`);
      if (l.table === "line" && (!CANONICAL_AMOUNT.test(l.amount) || new D(l.amount).isZero())) report(`${tag} has amount '${l.amount}'`);
      if (!l.journalId) {
        report(`${tag} belongs to no journal`);
        continue;
      }
      const j = seen.get(l.journalId) ?? { lines: 0, sums: new Map<string, Dec>() };
      j.lines++;
      j.sums.set(l.currency, (j.sums.get(l.currency) ?? new D(0)).plus(l.amount));
      seen.set(l.journalId, j);
    }
    let after = "";
    for (;;) {
      const page = await tx.journal.findMany({ where: { id: { gt: after } }, orderBy: { id: "asc" }, take: PAGE });
      for (const j of page) {
        const s = seen.get(j.id);
        seen.delete(j.id);
        if (!(JOURNAL_KINDS as readonly string[]).includes(j.kind)) report(`journal ${j.id} has unknown kind '${j.kind}'`);
        const n = s?.lines ?? 0;
        if (n < 2 || n !== j.lines) report(`journal ${j.id} (${j.kind}) has ${n} lines, it says ${j.lines}`);
        for (const [currency, sum] of s?.sums ?? [])
          if (!sum.isZero()) report(`journal ${j.id} (${j.kind}) does not balance in ${currency}: its lines sum to ${sum.toFixed()}`);
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1].id;
    }
    for (const id of seen.keys()) report(`lines of journal ${id} have no journal row`);
  },
};

const entriesWellFormed: LedgerInvariant = {
  name: "entries are well formed",
  async check(tx, report) {
    for await (const e of entries(tx)) {
      if (!(BUCKETS as readonly string[]).includes(e.bucket)) report(`entry ${e.id} has unknown bucket '${e.bucket}'`);
      if (!(ENTRY_KINDS as readonly string[]).includes(e.kind)) report(`entry ${e.id} has unknown kind '${e.kind}'`);
      if (!CANONICAL_AMOUNT.test(e.amount) || new D(e.amount).isZero()) report(`entry ${e.id} has amount '${e.amount}'`);
    }
  },
};

const balancesMatchEntries: LedgerInvariant = {
  name: "each balance equals the sum of its entries and is not negative",
  async check(tx, report) {
    const sums = new Map<string, Record<Bucket, Dec>>();
    for await (const e of entries(tx)) {
      if (!CANONICAL_AMOUNT.test(e.amount) || !(BUCKETS as readonly string[]).includes(e.bucket)) continue; // reported above
      const key = JSON.stringify([e.resellerId, e.currency]);
      const s = sums.get(key) ?? { pending: new D(0), available: new D(0), reserved: new D(0) };
      s[e.bucket as Bucket] = s[e.bucket as Bucket].plus(e.amount);
      sums.set(key, s);
    }
    const rows = await tx.balance.findMany({ orderBy: [{ resellerId: "asc" }, { currency: "asc" }] });
    for (const b of rows) {
      const key = JSON.stringify([b.resellerId, b.currency]);
      const s = sums.get(key) ?? { pending: new D(0), available: new D(0), reserved: new D(0) };
      sums.delete(key);
      for (const bucket of BUCKETS) {
        const held = new D(b[bucket]);
        if (held.isNeg()) report(`balance ${b.resellerId}/${b.currency} ${bucket} is negative: ${b[bucket]}`);
        if (!held.eq(s[bucket]))
          report(`balance ${b.resellerId}/${b.currency} ${bucket} is ${b[bucket]} but its entries sum to ${s[bucket].toFixed()}`);
      }
    }
    for (const key of sums.keys()) report(`entries of ${JSON.parse(key).join("/")} have no balance row`);
  },
};

const orderProfitPostedOnce: LedgerInvariant = {
  name: "every order's profit is pending while open, credited once when finished, reversed when failed",
  async check(tx, report) {
    const orphans = await tx.ledgerEntry.count({ where: { orderId: { not: null }, order: { resellerId: null } } });
    if (orphans) report(`${orphans} entries belong to orders without a reseller`);
    let after = "";
    for (;;) {
      const orders = await tx.order.findMany({
        where: { resellerId: { not: null }, id: { gt: after } },
        orderBy: { id: "asc" },
        take: ORDER_PAGE,
        select: { id: true, resellerId: true, toCurrency: true, status: true, profit: true },
      });
      if (!orders.length) return;
      after = orders[orders.length - 1].id;
      const byOrder = new Map<string, EntryRow[]>();
      for await (const e of entries(tx, { orderId: { in: orders.map((o) => o.id) } }))
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
  },
};

const WITHDRAWAL_KINDS = ["withdrawal_reserve", "withdrawal_settle", "withdrawal_restore"];

const withdrawalsBalanced: LedgerInvariant = {
  name: "every withdrawal's debits equal what it paid plus what was restored, and a final one reserves nothing",
  async check(tx, report) {
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
      const page = await tx.withdrawal.findMany({
        where: { id: { gt: after } },
        orderBy: { id: "asc" },
        take: ORDER_PAGE,
        include: { legs: true, txs: { select: { hash: true, status: true } } },
      });
      if (!page.length) return;
      after = page[page.length - 1].id;
      const byW = new Map<string, EntryRow[]>();
      for await (const e of entries(tx, { withdrawalId: { in: page.map((w) => w.id) } }))
        byW.set(e.withdrawalId!, [...(byW.get(e.withdrawalId!) ?? []), e]);
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
      }
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

/** The invariants `checkLedger` runs by default, in order. */
export const LEDGER_INVARIANTS: LedgerInvariant[] = [
  entriesWellFormed,
  balancesMatchEntries,
  orderProfitPostedOnce,
  withdrawalsBalanced,
  journalsBalanced,
  dailyRollupMatchesEntries,
];

/**
 * Runs every invariant over one snapshot (REPEATABLE READ on PostgreSQL; one read transaction
 * on SQLite), so a check made while orders move never sees half of a transaction.
 */
export async function checkLedger(db: Db, opts: { invariants?: LedgerInvariant[]; maxViolations?: number } = {}): Promise<LedgerReport> {
  const max = opts.maxViolations ?? 20;
  const violations: LedgerViolation[] = [];
  const isPg = providerOf(db) === "postgresql";
  await db.$transaction(
    async (tx) => {
      for (const inv of opts.invariants ?? LEDGER_INVARIANTS) {
        await inv.check(tx, (message) => {
          if (violations.length < max) violations.push({ invariant: inv.name, message });
        });
      }
    },
    // The SQLite client's types know only Serializable; PostgreSQL takes REPEATABLE READ.
    { ...(isPg ? { isolationLevel: "RepeatableRead" as "Serializable" } : {}), timeout: 600_000, maxWait: 60_000 },
  );
  return { ok: violations.length === 0, violations };
}
