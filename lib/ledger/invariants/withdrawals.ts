import "server-only";
import type { Tx } from "@/lib/db/client";
import { D } from "@/lib/money/decimal";
import { IN_FLIGHT_PREFIX, NETWORK_FEES, payoutsInFlight } from "../accounts";
import {
  CANONICAL_AMOUNT,
  type CheckContext,
  type EntryRow,
  entries,
  type LedgerInvariant,
  ORDER_PAGE,
  pages,
  type Report,
} from "./invariant";

const WITHDRAWAL_KINDS = ["withdrawal_reserve", "withdrawal_settle", "withdrawal_restore"];

const WITHDRAWAL_INCLUDE = { legs: true, txs: { select: { hash: true, status: true } } } as const;
type WithdrawalRow = Awaited<ReturnType<typeof findWithdrawals>>[number];
const findWithdrawals = (tx: Tx, where: { id: { gt: string } | { in: string[] } }) =>
  tx.withdrawal.findMany({ where, orderBy: { id: "asc" }, take: ORDER_PAGE, include: WITHDRAWAL_INCLUDE });

/** The withdrawal invariant over one page of withdrawals (all their entries read). */
async function judgeWithdrawals(tx: Tx, page: WithdrawalRow[], report: Report, ctx: CheckContext): Promise<void> {
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
function judgePayoutOnChain(w: WithdrawalRow, p: PayoutLines | undefined, report: Report): void {
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

/** An entry of a withdrawal kind without a withdrawal, or of another kind with one. */
const isStray = (e: { kind: string; withdrawalId: string | null }) => WITHDRAWAL_KINDS.includes(e.kind) !== (e.withdrawalId !== null);

export const withdrawalsBalanced: LedgerInvariant = {
  id: "withdrawals",
  name: "every withdrawal's debits equal what it paid plus what was restored, its payout is on chain in the books as its state says, and a final one reserves nothing and has nothing in flight",
  async full(tx, report, ctx) {
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
  // The withdrawals of the new entries, those changed since the checkpoint or whose payout
  // transaction changed since, and those of the new journals of operator lines only (a payout
  // mined or unmined books no entry and changes no withdrawal row).
  incremental: (since, report) => {
    const { tx, ctx } = since;
    const ids = new Set<string>();
    const entryJournals = new Set<string>();
    const linesOnly = new Set<string>();
    let stray = 0;
    return {
      entry(e) {
        if (e.withdrawalId) ids.add(e.withdrawalId);
        if (isStray(e)) stray++;
        if (e.journalId) entryJournals.add(e.journalId);
      },
      line(l) {
        if (l.journalId && !entryJournals.has(l.journalId)) linesOnly.add(l.journalId);
      },
      async finish() {
        if (stray) report(`${stray} entries mix withdrawal kinds and withdrawal ids`);
        const changedSince = { updatedAt: { gte: since.changedSince } };
        for (const w of await tx.withdrawal.findMany({ where: changedSince, select: { id: true } })) ids.add(w.id);
        for (const t of await tx.payoutTx.findMany({ where: changedSince, select: { withdrawalId: true } })) ids.add(t.withdrawalId);
        for (const page of pages(linesOnly)) {
          const rows = await tx.journal.findMany({
            where: { id: { in: page }, withdrawalId: { not: null } },
            select: { withdrawalId: true },
          });
          ctx.stats.journals += rows.length;
          for (const j of rows) ids.add(j.withdrawalId!);
        }
        for (const page of pages(ids)) {
          const rows = await findWithdrawals(tx, { id: { in: page } });
          ctx.stats.withdrawals += rows.length;
          await judgeWithdrawals(tx, rows, report, ctx);
        }
      },
    };
  },
};
