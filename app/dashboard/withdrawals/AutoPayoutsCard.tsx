"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { requestPayoutInstructionAction, revokePayoutInstructionAction, signPayoutInstructionAction } from "@/app/dashboard/actions";
import { callAction } from "@/app/dashboard/call-action";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { displayAmount, formatDateTime, formatUsd, shortAddress } from "@/components/format";
import { Alert, Button, Card, CardHeader, EmptyState, StatusBadge } from "@/components/ui";
import type { PayoutChainInfo, PayoutInstructionRow } from "@/lib/dashboard/types";
import { signInstructionData } from "./wallet";

// Automatic payouts (lib/payouts, docs/payouts.md): the owner signs a standing instruction once
// (a USD threshold, or weekly or monthly, with caps per payout and per month in USD); the
// worker pays by it. A change to another wallet or a cap raised waits out the delay, shown here
// as a notice; revoking is immediate.

type Trigger = PayoutInstructionRow["trigger"];

const ON_ITS_WAY = new Set(["awaiting_approval", "queued", "processing", "sent"]);

function summary(i: PayoutInstructionRow): string {
  const when =
    i.trigger === "threshold"
      ? `when available profit reaches ${formatUsd(i.thresholdUsd)}`
      : i.trigger === "weekly"
        ? "weekly"
        : "monthly";
  return `Pay out ${when} in ${i.asset.toUpperCase()} (chain id ${i.chainId}) to ${shortAddress(i.destination)}, at most ${formatUsd(i.maxPerPayoutUsd)} a payout and ${formatUsd(i.maxPerMonthUsd)} a month.`;
}

export function AutoPayoutsCard({ wallet, chains }: { wallet: string; chains: PayoutChainInfo[] }) {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: queryKeys.payouts,
    queryFn: ({ signal }) => fetchRead("payouts", {}, signal),
    // Polled while a payout is on its way, and now and then while an instruction may start one.
    refetchInterval: (query) => {
      const d = query.state.data;
      if (d?.runs.some((r) => r.withdrawalStatus && ON_ITS_WAY.has(r.withdrawalStatus))) return 2000;
      return d?.active || d?.pending ? 15_000 : false;
    },
  });
  const v = q.data;
  const [trigger, setTrigger] = useState<Trigger>("monthly");
  const [threshold, setThreshold] = useState("100");
  const [chainId, setChainId] = useState(chains[0]?.id ?? 1);
  const chain = chains.find((c) => c.id === chainId) ?? chains[0];
  const [asset, setAsset] = useState(chain?.assets[0]?.ticker ?? "eth");
  const [perPayout, setPerPayout] = useState("1000");
  const [perMonth, setPerMonth] = useState("2000");
  const [done, setDone] = useState<PayoutInstructionRow | null>(null);
  const signing = useRef(false);
  const ids = { trigger: useId(), threshold: useId(), chain: useId(), asset: useId(), perPayout: useId(), perMonth: useId() };
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: queryKeys.payouts });
    void qc.invalidateQueries({ queryKey: queryKeys.withdrawals });
  };

  const sign = useMutation({
    mutationFn: async () => {
      const input = {
        trigger,
        ...(trigger === "threshold" ? { thresholdUsd: threshold.trim() } : {}),
        asset,
        chainId: chain.id,
        maxPerPayoutUsd: perPayout.trim(),
        maxPerMonthUsd: perMonth.trim(),
      };
      const req = await callAction(requestPayoutInstructionAction(input));
      const signature = await signInstructionData(wallet, req.typedData, chain);
      return callAction(signPayoutInstructionAction({ nonce: req.nonce, signature }));
    },
    onMutate: () => setDone(null),
    onSettled: () => {
      signing.current = false;
    },
    onSuccess: (row) => {
      setDone(row);
      refresh();
    },
  });
  const revoke = useMutation({ mutationFn: () => callAction(revokePayoutInstructionAction()), onSuccess: refresh });

  const field = "mt-1 rounded-md border border-zinc-300 px-3 py-2 text-sm shadow-sm";
  return (
    <Card className="mt-6" aria-labelledby="auto-payouts-title" data-testid="auto-payouts">
      <CardHeader
        id="auto-payouts-title"
        title="Automatic payouts"
        description="Sign once: available profit is paid to your wallet when it reaches a threshold, or every week or month, within your caps."
      />
      <div className="space-y-4 px-4 py-4 sm:px-5">
        {v?.pending ? (
          <div data-testid="auto-payouts-pending">
            <Alert tone="warning" title="A change is waiting">
              {summary(v.pending)} It applies on {formatDateTime(v.pending.effectiveAt)} (changes of wallet and raised caps wait{" "}
              {v.delayHours} hours). Until then the current instruction applies. Revoke to cancel it.
            </Alert>
          </div>
        ) : null}
        {v?.active ? (
          <div className="space-y-2" data-testid="auto-payouts-active">
            <p className="text-sm text-zinc-700">{summary(v.active)}</p>
            <p className="text-xs text-zinc-500">
              Signed {formatDateTime(v.active.createdAt)}. Paid automatically this month: {formatUsd(v.paidThisMonthUsd)} of{" "}
              {formatUsd(v.active.maxPerMonthUsd)}.
            </p>
          </div>
        ) : v ? (
          <p className="text-sm text-zinc-600">No automatic payouts are set up.</p>
        ) : null}
        {v?.active || v?.pending ? (
          <Button variant="secondary" disabled={revoke.isPending} onClick={() => revoke.mutate()}>
            {revoke.isPending ? "Revoking…" : "Revoke automatic payouts"}
          </Button>
        ) : null}
        {revoke.error ? <Alert>{revoke.error.message}</Alert> : null}

        <form
          className="grid gap-3 border-t border-zinc-100 pt-4 sm:grid-cols-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (signing.current) return;
            signing.current = true;
            sign.mutate();
          }}
        >
          <div>
            <label htmlFor={ids.trigger} className="block text-sm font-medium text-zinc-700">
              Pay out
            </label>
            <select id={ids.trigger} value={trigger} onChange={(e) => setTrigger(e.target.value as Trigger)} className={field}>
              <option value="threshold">when available profit reaches a threshold</option>
              <option value="weekly">weekly</option>
              <option value="monthly">monthly</option>
            </select>
          </div>
          {trigger === "threshold" ? (
            <div>
              <label htmlFor={ids.threshold} className="block text-sm font-medium text-zinc-700">
                Threshold (USD)
              </label>
              <input
                id={ids.threshold}
                inputMode="decimal"
                value={threshold}
                onChange={(e) => setThreshold(e.target.value)}
                className={field}
              />
            </div>
          ) : null}
          {chains.length > 1 ? (
            <div>
              <label htmlFor={ids.chain} className="block text-sm font-medium text-zinc-700">
                Chain for automatic payouts
              </label>
              <select
                id={ids.chain}
                value={chain.id}
                onChange={(e) => {
                  const next = chains.find((c) => c.id === Number(e.target.value)) ?? chains[0];
                  setChainId(next.id);
                  setAsset(next.assets[0]?.ticker ?? "eth");
                }}
                className={field}
              >
                {chains.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name} (chain id {c.id})
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          <div>
            <label htmlFor={ids.asset} className="block text-sm font-medium text-zinc-700">
              Asset for automatic payouts
            </label>
            <select id={ids.asset} value={asset} onChange={(e) => setAsset(e.target.value)} className={field}>
              {chain.assets.map((a) => (
                <option key={a.ticker} value={a.ticker}>
                  {a.symbol}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor={ids.perPayout} className="block text-sm font-medium text-zinc-700">
              Cap per payout (USD)
            </label>
            <input
              id={ids.perPayout}
              inputMode="decimal"
              value={perPayout}
              onChange={(e) => setPerPayout(e.target.value)}
              className={field}
            />
          </div>
          <div>
            <label htmlFor={ids.perMonth} className="block text-sm font-medium text-zinc-700">
              Cap per calendar month, UTC (USD)
            </label>
            <input id={ids.perMonth} inputMode="decimal" value={perMonth} onChange={(e) => setPerMonth(e.target.value)} className={field} />
          </div>
          <div className="sm:col-span-2">
            <p className="text-xs text-zinc-500">
              Paid to the wallet that signs, {shortAddress(wallet)}. Paying another wallet or raising a cap applies only after{" "}
              {v?.delayHours ?? 24} hours; lowering a cap applies at once. Manual withdrawals do not count against the caps.
            </p>
            <Button type="submit" className="mt-2" disabled={sign.isPending}>
              {sign.isPending ? "Waiting for your wallet…" : v?.active ? "Sign a new instruction" : "Sign instruction"}
            </Button>
          </div>
        </form>
        {sign.error ? <Alert>{sign.error.message}</Alert> : null}
        {done ? (
          <Alert tone="success">
            {done.status === "pending"
              ? `Signed. It applies on ${formatDateTime(done.effectiveAt)}.`
              : "Signed. Automatic payouts follow this instruction from now on."}
          </Alert>
        ) : null}
      </div>

      <div className="border-t border-zinc-100">
        <h3 className="px-4 pt-4 text-sm font-medium text-zinc-700 sm:px-5">Past automatic payouts</h3>
        {v?.runs.length ? (
          <div className="overflow-x-auto">
            <table className="w-full text-sm">
              <thead className="text-left text-xs text-zinc-500">
                <tr>
                  <th className="px-4 py-2 font-medium sm:px-5">When</th>
                  <th className="px-2 py-2 font-medium">Period</th>
                  <th className="px-2 py-2 font-medium">State</th>
                  <th className="px-4 py-2 text-right font-medium sm:px-5">Amount</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {v.runs.map((r) => (
                  <tr key={r.id} data-testid="auto-payout-row">
                    <td className="px-4 py-2 whitespace-nowrap sm:px-5">{formatDateTime(r.createdAt)}</td>
                    <td className="px-2 py-2">{r.period.startsWith("t") ? "threshold reached" : r.period}</td>
                    <td className="px-2 py-2">{r.withdrawalStatus ? <StatusBadge status={r.withdrawalStatus} /> : "—"}</td>
                    <td className="px-4 py-2 text-right tabular sm:px-5">
                      {r.amount && r.asset ? <div>{displayAmount(r.amount, r.asset)}</div> : null}
                      <div className="text-xs text-zinc-500">{formatUsd(r.usdValue)}</div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <EmptyState title="No automatic payouts yet" />
        )}
      </div>
    </Card>
  );
}
