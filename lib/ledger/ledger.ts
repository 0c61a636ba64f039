import "server-only";
import { getCurrency } from "@/lib/currencies";
import { type Db, providerOf, type Tx } from "@/lib/db/client";
import { newId } from "@/lib/ids";
import { D, type Dec, floorAmount, formatAmount } from "@/lib/money/decimal";
import { CONVERSION, NETWORK_FEES, payoutsInFlight, providerPending, providerReceivable, REVENUE, treasury, WORLD } from "./accounts";
import { applyChannelDaily, type ChannelDelta, channelDeltas, channelKey, openedDelta } from "./channel-daily";
import { applyDaily, type DailyDelta, dailyDeltas, dayOf } from "./daily";

// The double-entry ledger (docs/ledger.md). Every posting is a journal of two or more lines that
// sum to zero in every currency, across named accounts: each reseller's pending, available and
// reserved balances (LedgerEntry rows, one bucket each), and the operator's accounts (JournalLine
// rows: platform revenue, each provider's commission, the hot wallet per chain and asset,
// conversion, network fees, the outside world). Amounts are credits: positive is what the operator
// owes (a reseller's balance, revenue earned), negative what it holds or is owed.
//
// Journals, lines and entries are append-only (the database refuses UPDATE and DELETE), and the
// database refuses a journal whose lines do not sum to zero (an insert trigger on the Journal
// row, on both databases), so the Journal row is written after its lines. The Balance row
// of a (reseller, currency) holds the sum of its entries per bucket, changed in the same
// transaction by an update that refuses to take any bucket below zero; the LedgerDaily rows
// (daily.ts) hold their sums per kind, bucket and UTC day, changed in the same transaction too.
//
// Pending profit and withdrawal reservations are two-phase: pending (an order's expected profit
// and the provider commission behind it; a withdrawal's reserved balances), then posted (the
// order finished, the withdrawal paid) or voided (failed).
//
// Everything here runs inside the caller's transaction (`tx`): a state change and the money it
// moves commit together or not at all.

export const BUCKETS = ["pending", "available", "reserved"] as const;
export type Bucket = (typeof BUCKETS)[number];

/** Why a reseller's entry was posted. An order posts each kind at most once (unique orderId + kind). */
export const ENTRY_KINDS = [
  "order_profit_pending",
  "order_profit_release",
  "order_profit_settle",
  "order_profit_reverse",
  // A withdrawal, once per balance and bucket: available -> reserved when queued; reserved paid
  // out when confirmed; reserved -> available when it fails.
  "withdrawal_reserve",
  "withdrawal_settle",
  "withdrawal_restore",
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** Why a journal was posted. */
export const JOURNAL_KINDS = [
  // An order: its expected profit and the provider commission behind it pending at creation;
  // posted when it finishes (commission = reseller profit + platform revenue), voided when it fails.
  "order_created",
  "order_finished",
  "order_failed",
  // A withdrawal: reserved when queued, paid when confirmed, the reservation voided when it fails.
  "withdrawal_queued",
  "withdrawal_confirmed",
  "withdrawal_failed",
  // Its payout seen mined before it is confirmed: out of the hot wallet into payouts in flight
  // (with its network fee); and back, when the transaction mined leaves the chain (a reorganisation).
  "withdrawal_mined",
  "withdrawal_unmined",
  // Money into or out of the books by hand (the operator funding the hot wallet; tests).
  "adjustment",
  // Entries posted before journals existed, migrated one journal each (a withdrawal's: one per kind).
  ...ENTRY_KINDS.map((k) => `migrated:${k}` as const),
] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

/** A line of a reseller's balance. */
export interface Posting {
  resellerId: string;
  currency: string;
  bucket: Bucket;
  kind: EntryKind;
  /** Signed amount; a zero posting is skipped. */
  amount: Dec;
  orderId?: string | null;
  withdrawalId?: string | null;
  /** An order_profit_settle posting's order channel, for the channel rollup (read from the order when not given). */
  channel?: string | null;
}

/** A line of one of the operator's accounts (lib/ledger/accounts.ts). */
export interface AccountLine {
  account: string;
  currency: string;
  /** Signed amount; a zero line is skipped. */
  amount: Dec;
}

export interface JournalEntry {
  kind: JournalKind;
  orderId?: string | null;
  withdrawalId?: string | null;
  postings: Posting[];
  lines: AccountLine[];
  /** What the change adds to the channel rollup besides its credits (an order finished), applied with them. */
  channels?: ChannelDelta[];
}

export interface Balance {
  currency: string;
  pending: string;
  available: string;
  reserved: string;
}

/** A posting would take a bucket below zero; the transaction must roll back (nothing was changed by it). */
export class InsufficientBalanceError extends Error {
  constructor(
    readonly resellerId: string,
    readonly currency: string,
  ) {
    super(`balance of ${resellerId} in ${currency} is too low for this change`);
    this.name = "InsufficientBalanceError";
  }
}

/** A journal whose lines do not sum to zero in every currency: a bug; nothing is written. */
export class UnbalancedJournalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnbalancedJournalError";
  }
}

/** Canonical text of a balance or line amount ("0", never "-0"). */
const text = (x: Dec) => (x.isZero() ? "0" : formatAmount(x));

type Deltas = Record<Bucket, Dec>;
const zero = (): Deltas => ({ pending: new D(0), available: new D(0), reserved: new D(0) });

/**
 * PostgreSQL: one conditional UPDATE. Row-locked and re-checked by the database after any wait,
 * so concurrent transactions can never together take a bucket below zero.
 */
async function applyDeltasPostgres(tx: Tx, resellerId: string, currency: string, d: Deltas, now: Date): Promise<boolean> {
  await tx.$executeRaw`INSERT INTO "Balance" ("resellerId", "currency", "updatedAt") VALUES (${resellerId}, ${currency}, ${now}) ON CONFLICT DO NOTHING`;
  const [p, a, r] = [text(d.pending), text(d.available), text(d.reserved)];
  const n = await tx.$executeRaw`UPDATE "Balance"
    SET "pending" = "pending" + ${p}::numeric, "available" = "available" + ${a}::numeric,
        "reserved" = "reserved" + ${r}::numeric, "updatedAt" = ${now}
    WHERE "resellerId" = ${resellerId} AND "currency" = ${currency}
      AND "pending" + ${p}::numeric >= 0 AND "available" + ${a}::numeric >= 0 AND "reserved" + ${r}::numeric >= 0`;
  return n === 1;
}

/**
 * SQLite has no exact decimal arithmetic (it would go through floats), so the sum is made with
 * decimal.js, under the write lock (writeTransaction's, or this INSERT's in a transaction that
 * wrote nothing before), so no other writer changes the row between the read and the update; the
 * update is still conditional on the values read, so a broken assumption fails loudly instead of
 * losing an update.
 */
async function applyDeltasSqlite(tx: Tx, resellerId: string, currency: string, d: Deltas, now: Date): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ pending: string; available: string; reserved: string }[]>`
    INSERT INTO "Balance" ("resellerId", "currency", "updatedAt") VALUES (${resellerId}, ${currency}, ${now})
    ON CONFLICT ("resellerId", "currency") DO UPDATE SET "updatedAt" = "updatedAt"
    RETURNING "pending", "available", "reserved"`;
  const next = {
    pending: new D(row.pending).plus(d.pending),
    available: new D(row.available).plus(d.available),
    reserved: new D(row.reserved).plus(d.reserved),
  };
  if (next.pending.isNeg() || next.available.isNeg() || next.reserved.isNeg()) return false;
  const r = await tx.balance.updateMany({
    where: { resellerId, currency, pending: row.pending, available: row.available, reserved: row.reserved },
    data: { pending: text(next.pending), available: text(next.available), reserved: text(next.reserved), updatedAt: now },
  });
  if (r.count !== 1) throw new Error(`balance of ${resellerId} in ${currency} changed under a write lock`);
  return true;
}

/** Throws UnbalancedJournalError unless the lines sum to zero in every currency. */
export function assertBalanced(kind: string, lines: { currency: string; amount: Dec }[]): void {
  const sums = new Map<string, Dec>();
  for (const l of lines) sums.set(l.currency, (sums.get(l.currency) ?? new D(0)).plus(l.amount));
  for (const [currency, s] of sums)
    if (!s.isZero()) throw new UnbalancedJournalError(`journal ${kind} does not balance in ${currency}: its lines sum to ${s.toFixed()}`);
  if (lines.length === 1) throw new UnbalancedJournalError(`journal ${kind} has one line`);
}

/** What a journal adds to one Balance row, per bucket. */
export interface BalanceDelta extends Deltas {
  resellerId: string;
  currency: string;
}

/**
 * A journal as the rows it writes and the sums it changes, made before anything is written:
 * postJournal applies it through Prisma, and an order's opening (lib/orders/opening.ts) renders
 * the same plan as one statement per database. Zero lines are left out; a journal left with none
 * has no Journal row (`journal` null) and changes only its channel rollup rows.
 */
export interface JournalPlan {
  /** When it is posted: every row's createdAt, and the day of its rollup rows. */
  at: Date;
  /** The Journal row, written last (its insert trigger sums the lines written before it). */
  journal: {
    id: string;
    kind: JournalKind;
    orderId: string | null;
    withdrawalId: string | null;
    lines: number;
    createdAt: Date;
  } | null;
  /** The resellers' LedgerEntry rows. */
  entries: {
    journalId: string;
    resellerId: string;
    orderId: string | null;
    withdrawalId: string | null;
    currency: string;
    bucket: Bucket;
    kind: EntryKind;
    amount: string;
    createdAt: Date;
  }[];
  /** The operator's JournalLine rows. */
  lines: { journalId: string; account: string; currency: string; amount: string; createdAt: Date }[];
  /** Each Balance row's change, in (reseller, currency) key order: the order balances are locked in. */
  balances: BalanceDelta[];
  /** Each LedgerDaily row's change, in key order (daily.ts). */
  daily: DailyDelta[];
  /** Each ChannelDaily row's change, in key order (channel-daily.ts): the journal's own and its credits whose channel is known. */
  channels: ChannelDelta[];
  /** order_profit_settle postings whose order's channel the plan does not know: postJournal reads it from the order. */
  creditsToRead: Posting[];
}

/**
 * A journal's plan (JournalPlan), at `now`. Throws UnbalancedJournalError when the lines do not
 * sum to zero in every currency, before anything is written.
 */
export function planJournal(j: JournalEntry, now: Date): JournalPlan {
  const postings = j.postings.filter((p) => !p.amount.isZero());
  const lines = j.lines.filter((l) => !l.amount.isZero());
  const credits = postings.filter((p) => p.kind === "order_profit_settle");
  const known = credits.filter((p) => p.channel !== undefined || !p.orderId);
  // Most journals have no credit: an order's opening, on the request path, makes no list for them.
  const channels = channelDeltas(known.length ? [...creditDeltas(known, new Map(), now), ...(j.channels ?? [])] : (j.channels ?? []));
  const creditsToRead = known.length === credits.length ? [] : credits.filter((p) => !known.includes(p));
  if (!postings.length && !lines.length)
    return { at: now, journal: null, entries: [], lines: [], balances: [], daily: [], channels, creditsToRead };
  assertBalanced(j.kind, [...postings, ...lines]);
  const groups = new Map<string, BalanceDelta>();
  for (const p of postings) {
    if (!(BUCKETS as readonly string[]).includes(p.bucket)) throw new Error(`unknown bucket ${p.bucket}`);
    const key = JSON.stringify([p.resellerId, p.currency]);
    const g = groups.get(key) ?? { resellerId: p.resellerId, currency: p.currency, ...zero() };
    g[p.bucket] = g[p.bucket].plus(p.amount);
    groups.set(key, g);
  }
  const journalId = newId();
  return {
    at: now,
    journal: {
      id: journalId,
      kind: j.kind,
      orderId: j.orderId ?? null,
      withdrawalId: j.withdrawalId ?? null,
      lines: postings.length + lines.length,
      createdAt: now,
    },
    entries: postings.map((p) => ({
      journalId,
      resellerId: p.resellerId,
      orderId: p.orderId ?? null,
      withdrawalId: p.withdrawalId ?? null,
      currency: p.currency,
      bucket: p.bucket,
      kind: p.kind,
      amount: text(p.amount),
      createdAt: now,
    })),
    lines: lines.map((l) => ({ journalId, account: l.account, currency: l.currency, amount: text(l.amount), createdAt: now })),
    balances: [...groups.keys()].sort().map((k) => groups.get(k)!),
    daily: dailyDeltas(postings, now),
    channels,
    creditsToRead,
  };
}

/**
 * Writes a journal's plan inside the caller's transaction: the balances (InsufficientBalanceError
 * when a bucket would go below zero), the daily rollup, the channel rollup, the entries, the
 * lines, then the journal row. Gives the journal's id (null: none).
 */
export async function applyJournalPlan(tx: Tx, plan: JournalPlan): Promise<string | null> {
  const apply = providerOf(tx) === "postgresql" ? applyDeltasPostgres : applyDeltasSqlite;
  const { at } = plan;
  for (const b of plan.balances)
    if (!(await apply(tx, b.resellerId, b.currency, b, at))) throw new InsufficientBalanceError(b.resellerId, b.currency);
  // After the balances, in key order: every posting locks balances, then rollup rows, in one order.
  await applyDaily(tx, plan.daily);
  // Then the channel rollup's rows: the credits under their orders' channels, and the journal's own.
  const read = plan.creditsToRead.length ? await readCreditDeltas(tx, plan.creditsToRead, at) : [];
  await applyChannelDaily(tx, read.length ? channelDeltas([...read, ...plan.channels]) : plan.channels);
  if (!plan.journal) return null;
  if (plan.entries.length) await tx.ledgerEntry.createMany({ data: plan.entries });
  if (plan.lines.length) await tx.journalLine.createMany({ data: plan.lines });
  // Last: on SQLite its insert trigger sums the lines written above.
  await tx.journal.create({ data: plan.journal });
  return plan.journal.id;
}

/**
 * Posts one journal, atomically, inside the caller's transaction: the resellers' entries and
 * balances and their daily rollup, the operator's lines, then the journal row (planJournal,
 * applyJournalPlan). Zero lines are skipped; a journal left with none posts nothing. Throws
 * UnbalancedJournalError before writing anything when the lines do not sum to zero in every
 * currency, and InsufficientBalanceError when a bucket would go below zero (the caller's
 * transaction then rolls back). Balances are locked in (reseller, currency) order, so two
 * transactions touching the same balances cannot deadlock.
 *
 * Open the transaction with writeTransaction (lib/db/write-transaction.ts): on SQLite it takes
 * the write lock before anything is read, where a transaction that read first loses its snapshot
 * to another process's commit (SQLITE_BUSY_SNAPSHOT) and runs again; it never loses an update.
 */
export function postJournal(tx: Tx, j: JournalEntry, now = new Date()): Promise<string | null> {
  const plan = planJournal(j, now);
  return applyJournalPlan(tx, plan);
}

/** The channel rollup's share of order_profit_settle postings: each under its order's channel (`channels`: read from the orders), on this day. */
function creditDeltas(credits: Posting[], channels: Map<string, string | null>, now: Date): ChannelDelta[] {
  return credits.map((p) => ({
    resellerId: p.resellerId,
    day: dayOf(now),
    channel: channelKey(p.channel !== undefined ? p.channel : p.orderId ? channels.get(p.orderId) : null),
    currency: p.currency,
    orders: 0,
    finished: 0,
    volume: new D(0),
    profit: p.amount,
  }));
}

/** creditDeltas of postings whose channel is read from their orders' rows. */
async function readCreditDeltas(tx: Tx, credits: Posting[], now: Date): Promise<ChannelDelta[]> {
  const ids = [...new Set(credits.map((p) => p.orderId!))];
  const rows = await tx.order.findMany({ where: { id: { in: ids } }, select: { id: true, channel: true } });
  return creditDeltas(credits, new Map(rows.map((o) => [o.id, o.channel])), now);
}

/**
 * Reseller postings by hand: whatever they do not balance among themselves, per currency, is
 * booked against the outside world (an operator's adjustment; tests that need a balance).
 */
export function post(tx: Tx, postings: Posting[], now = new Date()): Promise<string | null> {
  const sums = new Map<string, Dec>();
  for (const p of postings) sums.set(p.currency, (sums.get(p.currency) ?? new D(0)).plus(p.amount));
  const world = [...sums].map(([currency, s]) => ({ account: WORLD, currency, amount: s.neg() }));
  return postJournal(tx, { kind: "adjustment", postings, lines: world }, now);
}

/** A reseller's balances, one row per currency that ever had an entry, by ticker. */
export async function getBalances(db: Db | Tx, resellerId: string): Promise<Balance[]> {
  const rows = await db.balance.findMany({ where: { resellerId }, orderBy: { currency: "asc" } });
  return rows.map((r) => ({ currency: r.currency, pending: r.pending, available: r.available, reserved: r.reserved }));
}

// ---- orders -----------------------------------------------------------------------------------
// At creation the expected profit is pending for the reseller, against the provider's pending
// commission. When the order finishes, that is voided and the real split posted, on the amount
// actually received: the provider owes its commission, which is the reseller's profit plus the
// platform's revenue. When it fails, the pending pair is voided.

export interface OrderForLedger {
  id: string;
  resellerId: string | null;
  toCurrency: string;
  /** The upstream provider that holds the swap; null: the simulated engine. */
  provider?: string | null;
  /** Output before markup and its platform fee: the platform's revenue is computed from them. */
  rawToAmount?: string;
  platformFeeBps?: number;
  /** For the channel rollup when the order finishes (read from the order's row when any is missing). */
  channel?: string | null;
  createdAt?: Date;
  fromCurrency?: string;
  fromAmount?: string;
}

/**
 * The platform's fee on an order, in its destination currency: the engine's rate is the market
 * rate less the fee, so the output before markup (`rawToAmount`) is (1 - fee) of the market's,
 * and the fee is rawToAmount x fee / (1 - fee), rounded down to the currency's precision.
 */
export function platformRevenue(rawToAmount: string, platformFeeBps: number, precision: number): Dec {
  if (platformFeeBps <= 0) return new D(0);
  return floorAmount(new D(rawToAmount).mul(platformFeeBps).div(10_000 - platformFeeBps), precision);
}

/** The journal of a new order: its expected profit pending, against the provider's pending commission. */
export function pendingProfitJournal(order: OrderForLedger, profit: Dec): JournalEntry {
  const postings: Posting[] = order.resellerId
    ? [
        {
          resellerId: order.resellerId,
          currency: order.toCurrency,
          orderId: order.id,
          bucket: "pending",
          kind: "order_profit_pending",
          amount: profit,
        },
      ]
    : [];
  return {
    kind: "order_created",
    orderId: order.id,
    postings,
    lines: order.resellerId ? [{ account: providerPending(order.provider ?? null), currency: order.toCurrency, amount: profit.neg() }] : [],
  };
}

/** What an order's opening needs to know of it for its journal. */
export interface OpenedOrderForLedger extends OrderForLedger {
  profit: string;
  channel: string | null;
  createdAt: Date;
  fromCurrency: string;
}

/**
 * The journal of an order's opening (order_created), whole: its pending profit
 * (pendingProfitJournal) and, for a reseller's order, the order counted opened in its channel
 * rollup row. Every opening path writes this journal's plan (lib/orders/opening.ts), so a
 * posting added here reaches each of them.
 */
export function orderCreatedJournal(order: OpenedOrderForLedger): JournalEntry {
  const j = pendingProfitJournal(order, new D(order.profit));
  const { resellerId, channel, createdAt, fromCurrency } = order;
  // Its fields, not a spread of the order: V8 copies an object as wide as an Order field by field (bench/README.md).
  j.channels = resellerId ? [openedDelta({ resellerId, channel, createdAt, fromCurrency })] : [];
  return j;
}

/** At creation: the expected profit, pending until the order finishes (without the channel count an opening adds: orderCreatedJournal). */
export function recordPendingProfit(tx: Tx, order: OrderForLedger, profit: Dec, now?: Date) {
  return postJournal(tx, pendingProfitJournal(order, profit), now);
}

async function pendingOfOrder(tx: Tx, orderId: string): Promise<Dec> {
  const rows = await tx.ledgerEntry.findMany({ where: { orderId, bucket: "pending" }, select: { amount: true } });
  return rows.reduce((s, r) => s.plus(r.amount), new D(0));
}

/** What the channel rollup needs of a finishing order: from the caller's copy, or else its row. */
async function channelFacts(tx: Tx, order: OrderForLedger) {
  const { channel, createdAt, fromCurrency, fromAmount } = order;
  if (channel !== undefined && createdAt && fromCurrency && fromAmount !== undefined)
    return { channel, createdAt, fromCurrency, fromAmount };
  return tx.order.findUniqueOrThrow({
    where: { id: order.id },
    select: { channel: true, createdAt: true, fromCurrency: true, fromAmount: true },
  });
}

/**
 * On finished: the pending pair voided; the profit earned on the amount actually received
 * credited, the platform's revenue booked, and the provider's commission (their sum) receivable.
 * The channel rollup (lib/ledger/channel-daily.ts) counts the order finished and its fromAmount
 * on its creation day, and the credit on this day; after the journal's Balance and LedgerDaily
 * rows, both rows in key order.
 */
export async function settleProfit(tx: Tx, order: OrderForLedger, earned: Dec, now = new Date()) {
  const revenue =
    order.rawToAmount !== undefined && order.platformFeeBps !== undefined
      ? platformRevenue(order.rawToAmount, order.platformFeeBps, getCurrency(order.toCurrency)?.precision ?? 8)
      : new D(0);
  const pending = order.resellerId ? await pendingOfOrder(tx, order.id) : new D(0);
  const facts = order.resellerId ? await channelFacts(tx, order) : null;
  const provider = order.provider ?? null;
  const postings: Posting[] = order.resellerId
    ? [
        {
          resellerId: order.resellerId,
          currency: order.toCurrency,
          orderId: order.id,
          bucket: "pending",
          kind: "order_profit_release",
          amount: pending.neg(),
        },
        {
          resellerId: order.resellerId,
          currency: order.toCurrency,
          orderId: order.id,
          bucket: "available",
          kind: "order_profit_settle",
          amount: earned,
          channel: facts?.channel ?? null,
        },
      ]
    : [];
  const credited = order.resellerId ? earned : new D(0);
  await postJournal(
    tx,
    {
      kind: "order_finished",
      orderId: order.id,
      postings,
      lines: [
        { account: providerPending(provider), currency: order.toCurrency, amount: pending },
        { account: REVENUE, currency: order.toCurrency, amount: revenue },
        { account: providerReceivable(provider), currency: order.toCurrency, amount: credited.plus(revenue).neg() },
      ],
      // The order counted finished, and its fromAmount, on its creation day (the credit is the posting's).
      channels:
        order.resellerId && facts
          ? [
              {
                resellerId: order.resellerId,
                day: dayOf(facts.createdAt),
                channel: channelKey(facts.channel),
                currency: facts.fromCurrency,
                orders: 0,
                finished: 1,
                volume: new D(facts.fromAmount),
                profit: new D(0),
              },
            ]
          : [],
    },
    now,
  );
}

/** On failed: the pending pair is voided; nothing becomes available, no commission is owed. */
export async function reverseProfit(tx: Tx, order: OrderForLedger, now?: Date) {
  if (!order.resellerId) return;
  const pending = await pendingOfOrder(tx, order.id);
  await postJournal(
    tx,
    {
      kind: "order_failed",
      orderId: order.id,
      postings: [
        {
          resellerId: order.resellerId,
          currency: order.toCurrency,
          orderId: order.id,
          bucket: "pending",
          kind: "order_profit_reverse",
          amount: pending.neg(),
        },
      ],
      lines: [{ account: providerPending(order.provider ?? null), currency: order.toCurrency, amount: pending }],
    },
    now,
  );
}

// ---- withdrawals ----------------------------------------------------------------------------
// Queued: each leg's amount available -> reserved (the pending phase). Mined (its payout seen in
// a block, not yet PAYOUT_CONFIRMATIONS deep): the amount paid leaves the hot wallet into payouts
// in flight, and the network fee from the receipt into network fees, so that the treasury follows
// the chain; unmined (that block left the chain) reverses it exactly. Confirmed (posted): the
// reserved legs leave the reseller into conversion at the recorded rates; the payout asset leaves
// conversion into what the hot wallet paid out: out of payouts in flight when the mined journal
// was booked, else straight out of the treasury with the fee (a same-asset leg goes straight).
// Failed (voided): reserved -> available (and a reverted payout's fee out of the treasury).

export interface WithdrawalForLedger {
  id: string;
  resellerId: string;
  legs: { currency: string; amount: string }[];
}

/** A withdrawal's payout: what the wallet received, in the payout asset, on its chain. */
export interface Payout {
  id: string;
  asset: string;
  chainId: number;
  /** What the wallet received, in the payout asset. */
  amount: string;
}

export interface PaidWithdrawal extends WithdrawalForLedger, Payout {}

/** A network fee actually paid (from the receipt), in the chain's native asset. */
export interface NetworkFee {
  asset: string;
  amount: Dec;
}

const legPostings = (w: WithdrawalForLedger, kind: EntryKind, moves: [Bucket, 1 | -1][]): Posting[] =>
  w.legs.flatMap((l) =>
    moves.map(([bucket, sign]): Posting => {
      const amount = new D(l.amount);
      return { resellerId: w.resellerId, currency: l.currency, bucket, kind, amount: sign < 0 ? amount.neg() : amount, withdrawalId: w.id };
    }),
  );

/** The hot wallet paid `fee` (sign 1), or the payment of it is reversed (sign -1). */
const feeLines = (chainId: number, fee: NetworkFee | null | undefined, sign: 1 | -1 = 1): AccountLine[] =>
  fee && !fee.amount.isZero()
    ? [
        { account: NETWORK_FEES, currency: fee.asset, amount: fee.amount.mul(sign).neg() },
        { account: treasury(chainId, fee.asset), currency: fee.asset, amount: fee.amount.mul(sign) },
      ]
    : [];

/** Queued: reserves the legs (available -> reserved); InsufficientBalanceError when available no longer covers one. */
export function reserveWithdrawal(tx: Tx, w: WithdrawalForLedger, now?: Date) {
  return postJournal(
    tx,
    {
      kind: "withdrawal_queued",
      withdrawalId: w.id,
      postings: legPostings(w, "withdrawal_reserve", [
        ["available", -1],
        ["reserved", 1],
      ]),
      lines: [],
    },
    now,
  );
}

/**
 * Confirmed: the reserved legs are paid out. `fromInFlight`: the payout was booked mined
 * (recordPayoutMined), so the amount comes out of payouts in flight and its fee is already
 * booked; otherwise it comes out of the hot wallet, with the network fee when the receipt gave one.
 */
export function settleWithdrawal(tx: Tx, w: PaidWithdrawal, now?: Date, fee?: NetworkFee | null, opts: { fromInFlight?: boolean } = {}) {
  const converted = w.legs.filter((l) => l.currency !== w.asset);
  const sameAsset = w.legs.filter((l) => l.currency === w.asset).reduce((s, l) => s.plus(l.amount), new D(0));
  const paid = new D(w.amount);
  return postJournal(
    tx,
    {
      kind: "withdrawal_confirmed",
      withdrawalId: w.id,
      postings: legPostings(w, "withdrawal_settle", [["reserved", -1]]),
      lines: [
        ...converted.map((l) => ({ account: CONVERSION, currency: l.currency, amount: new D(l.amount) })),
        { account: CONVERSION, currency: w.asset, amount: paid.minus(sameAsset).neg() },
        ...(opts.fromInFlight
          ? [{ account: payoutsInFlight(w.chainId, w.asset), currency: w.asset, amount: paid }]
          : [{ account: treasury(w.chainId, w.asset), currency: w.asset, amount: paid }, ...feeLines(w.chainId, fee)]),
      ],
    },
    now,
  );
}

/** Mined, not yet confirmed: the amount paid leaves the hot wallet into payouts in flight, and its network fee into network fees. */
export function recordPayoutMined(tx: Tx, p: Payout, fee: NetworkFee | null, now?: Date) {
  const paid = new D(p.amount);
  return postJournal(
    tx,
    {
      kind: "withdrawal_mined",
      withdrawalId: p.id,
      postings: [],
      lines: [
        { account: treasury(p.chainId, p.asset), currency: p.asset, amount: paid },
        { account: payoutsInFlight(p.chainId, p.asset), currency: p.asset, amount: paid.neg() },
        ...feeLines(p.chainId, fee),
      ],
    },
    now,
  );
}

/** The transaction booked mined left the chain: the amount and the fee booked (bookedPayout) go back to the hot wallet. */
export function recordPayoutUnmined(tx: Tx, p: Payout, fee: NetworkFee | null, now?: Date) {
  const paid = new D(p.amount);
  return postJournal(
    tx,
    {
      kind: "withdrawal_unmined",
      withdrawalId: p.id,
      postings: [],
      lines: [
        { account: payoutsInFlight(p.chainId, p.asset), currency: p.asset, amount: paid },
        { account: treasury(p.chainId, p.asset), currency: p.asset, amount: paid.neg() },
        ...feeLines(p.chainId, fee, -1),
      ],
    },
    now,
  );
}

/**
 * What the books hold as a withdrawal's payout on chain: null when none (nothing paid out of the
 * hot wallet for it, or what was is booked back), else the network fee booked with it (null: none).
 * Read from its journals: the payout is on chain in the books when it was paid out (confirmed)
 * and is not back in flight, or it is not paid out and is in flight (mined). Not for a failed one.
 */
export async function bookedPayout(tx: Tx, p: Payout): Promise<{ fee: NetworkFee | null } | null> {
  const journals = await tx.journal.findMany({ where: { withdrawalId: p.id }, select: { id: true, kind: true } });
  const settled = journals.some((j) => j.kind === "withdrawal_confirmed" || j.kind === "migrated:withdrawal_settle");
  const inFlight = payoutsInFlight(p.chainId, p.asset);
  const lines = journals.length
    ? await tx.journalLine.findMany({
        where: { journalId: { in: journals.map((j) => j.id) }, account: { in: [inFlight, NETWORK_FEES] } },
        select: { account: true, currency: true, amount: true },
      })
    : [];
  const sum = (account: string) => lines.filter((l) => l.account === account).reduce((s, l) => s.plus(l.amount), new D(0));
  const paid = new D(p.amount);
  const onChain = (settled ? paid : new D(0)).minus(sum(inFlight));
  if (onChain.isZero()) return null;
  if (!onChain.eq(paid)) throw new Error(`the books hold ${onChain.toFixed()} of withdrawal ${p.id}'s payout of ${p.amount} as on chain`);
  const fee = sum(NETWORK_FEES).neg();
  const feeAsset = lines.find((l) => l.account === NETWORK_FEES)?.currency;
  return { fee: feeAsset && !fee.isZero() ? { asset: feeAsset, amount: fee } : null };
}

/** Failed: the reserved legs go back to available (and a reverted payout's network fee, when the receipt gave one). */
export function restoreWithdrawal(tx: Tx, w: WithdrawalForLedger & { chainId?: number }, now?: Date, fee?: NetworkFee | null) {
  return postJournal(
    tx,
    {
      kind: "withdrawal_failed",
      withdrawalId: w.id,
      postings: legPostings(w, "withdrawal_restore", [
        ["reserved", -1],
        ["available", 1],
      ]),
      lines: w.chainId === undefined ? [] : feeLines(w.chainId, fee),
    },
    now,
  );
}

/** Money put into the hot wallet by the operator, from outside the books. */
export function recordTreasuryDeposit(tx: Tx, d: { chainId: number; asset: string; amount: Dec }, now?: Date) {
  return postJournal(
    tx,
    {
      kind: "adjustment",
      postings: [],
      lines: [
        { account: treasury(d.chainId, d.asset), currency: d.asset, amount: d.amount.neg() },
        { account: WORLD, currency: d.asset, amount: d.amount },
      ],
    },
    now,
  );
}
