"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { formatUnits } from "viem";
import { confirmWithdrawalAction, quoteWithdrawalAction } from "@/app/dashboard/actions";
import { callAction } from "@/app/dashboard/call-action";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { displayAmount, formatDateTime, formatUsd, priceNote, shortAddress } from "@/components/format";
import { Alert, Button, Card, CardHeader, EmptyState, PageHeader, StatusBadge } from "@/components/ui";
import type { WithdrawalsView as View, WithdrawalQuote, WithdrawalRow } from "@/lib/dashboard/types";
import { D } from "@/lib/money/decimal";
import { AutoPayoutsCard } from "./AutoPayoutsCard";
import { signTerms, watchWalletChain } from "./wallet";

// Polled while one is on its way; one awaiting an operator's approval too (it moves on when approved or rejected).
const ACTIVE = new Set(["awaiting_approval", "queued", "processing", "sent"]);

export function WithdrawalsView({ initial }: { initial: View }) {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: queryKeys.withdrawals,
    queryFn: ({ signal }) => fetchRead("withdrawals", {}, signal),
    initialData: initial,
    refetchInterval: (query) => (query.state.data?.withdrawals.some((w) => ACTIVE.has(w.status)) ? 2000 : false),
  });
  const v = q.data ?? initial;
  const withdrawable = v.balances.filter((b) => new D(b.available).gt(0));
  const [chainId, setChainId] = useState(v.chain.id);
  const chain = v.chains.find((c) => c.id === chainId) ?? v.chain;
  const [asset, setAsset] = useState(chain.assets[0]?.ticker ?? "eth");
  const [all, setAll] = useState(true);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [quote, setQuote] = useState<WithdrawalQuote | null>(null);
  const [queued, setQueued] = useState<WithdrawalRow | null>(null);
  const assetId = useId();
  const chainSelectId = useId();
  // The wallet's active chain, followed while the page is open (chainChanged).
  const [walletChain, setWalletChain] = useState<number | null>(null);
  useEffect(() => watchWalletChain(setWalletChain), []);
  // One signature request at a time: a second click before React re-renders the disabled
  // button must not reach the wallet (the mutation's isPending is not set synchronously).
  const signing = useRef(false);

  const review = useMutation({
    mutationFn: () => callAction(quoteWithdrawalAction({ asset, currencies: all ? "all" : [...picked].sort(), chainId: chain.id })),
    onMutate: () => {
      setQuote(null);
      setQueued(null);
    },
    onSuccess: setQuote,
  });
  const confirm = useMutation({
    mutationFn: async (qt: WithdrawalQuote) => {
      const signature = await signTerms(v.wallet, qt, v.chains.find((c) => c.id === qt.chainId) ?? chain);
      return callAction(confirmWithdrawalAction({ nonce: qt.nonce, signature }));
    },
    onSettled: () => {
      signing.current = false;
    },
    onSuccess: (w) => {
      setQuote(null);
      setQueued(w);
      void qc.invalidateQueries({ queryKey: queryKeys.withdrawals });
      void qc.invalidateQueries({ queryKey: queryKeys.overview.all });
    },
  });
  const reset = () => {
    setQuote(null);
    review.reset();
    confirm.reset();
  };

  return (
    <>
      <PageHeader
        title="Withdrawals"
        description="Withdraw available profit to the wallet you signed in with. Balances are converted at live prices into the payout asset (one to one when they are held in it) and sent on-chain."
      />
      <div className="grid gap-6 lg:grid-cols-5">
        <Card className="lg:col-span-2" aria-labelledby="balances-title">
          <CardHeader id="balances-title" title="Balances" description="Pending profit becomes available when its order finishes." />
          {v.balances.length ? (
            <div className="overflow-x-auto">
              <table className="w-full text-sm">
                <thead className="text-left text-xs text-zinc-500">
                  <tr>
                    <th className="px-4 py-2 font-medium sm:px-5">Currency</th>
                    <th className="px-2 py-2 text-right font-medium">Available</th>
                    <th className="px-4 py-2 text-right font-medium sm:px-5">Pending</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-zinc-100">
                  {v.balances.map((b) => (
                    <tr key={b.currency} data-testid={`balance-${b.currency}`}>
                      <td className="px-4 py-2 font-medium uppercase sm:px-5">{b.currency}</td>
                      <td className="px-2 py-2 text-right tabular">
                        <div>{displayAmount(b.available)}</div>
                        <div className="text-xs text-zinc-500" title={priceNote(v.currencies.find((c) => c.ticker === b.currency))}>
                          {formatUsd(b.availableUsd)}
                        </div>
                        {new D(b.reserved).gt(0) ? (
                          <div className="text-xs text-amber-700">{displayAmount(b.reserved)} being withdrawn</div>
                        ) : null}
                      </td>
                      <td className="px-4 py-2 text-right tabular sm:px-5">
                        <div>{displayAmount(b.pending)}</div>
                        <div className="text-xs text-zinc-500">{formatUsd(b.pendingUsd)}</div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <EmptyState title="No profit yet">Profit appears here as orders made with your API keys finish.</EmptyState>
          )}
        </Card>

        <Card className="lg:col-span-3" aria-labelledby="request-title">
          <CardHeader id="request-title" title="Request a withdrawal" description={`Minimum ${formatUsd(chain.minUsd)} at live prices.`} />
          <form
            className="space-y-4 px-4 py-4 sm:px-5"
            onSubmit={(e) => {
              e.preventDefault();
              review.mutate();
            }}
          >
            <div>
              <p className="text-sm font-medium text-zinc-700">Destination (the connected wallet, the only one allowed)</p>
              <p className="mt-1 break-all rounded-md bg-zinc-50 px-3 py-2 font-mono text-sm" data-testid="withdrawal-destination">
                {v.wallet}
              </p>
              <p className="mt-1 text-xs text-zinc-500">
                {chain.name} · chain id {chain.id}
                {v.sender === "simulated" ? " · simulated payouts (this instance sends nothing on-chain)" : ""}
              </p>
              {walletChain !== null && walletChain !== chain.id ? (
                <p className="mt-1 text-xs text-amber-700" data-testid="wallet-chain-note">
                  Your wallet is on chain {walletChain}; signing will ask it to switch to {chain.name} (chain id {chain.id}).
                </p>
              ) : null}
            </div>
            {v.chains.length > 1 ? (
              <div>
                <label htmlFor={chainSelectId} className="block text-sm font-medium text-zinc-700">
                  Payout chain
                </label>
                <select
                  id={chainSelectId}
                  value={chain.id}
                  onChange={(e) => {
                    const next = v.chains.find((c) => c.id === Number(e.target.value)) ?? v.chain;
                    setChainId(next.id);
                    setAsset(next.assets[0]?.ticker ?? "eth");
                    reset();
                  }}
                  className="mt-1 rounded-md border border-zinc-300 px-3 py-2 text-sm shadow-sm"
                >
                  {v.chains.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.name} (chain id {c.id})
                    </option>
                  ))}
                </select>
              </div>
            ) : null}
            <div>
              <label htmlFor={assetId} className="block text-sm font-medium text-zinc-700">
                Payout asset
              </label>
              <select
                id={assetId}
                value={asset}
                onChange={(e) => {
                  setAsset(e.target.value);
                  reset();
                }}
                className="mt-1 rounded-md border border-zinc-300 px-3 py-2 text-sm shadow-sm"
              >
                {chain.assets.map((a) => (
                  <option key={a.ticker} value={a.ticker}>
                    {a.symbol}
                    {a.token ? ` (ERC-20 ${shortAddress(a.token)})` : " (native)"}
                  </option>
                ))}
              </select>
            </div>
            <fieldset>
              <legend className="text-sm font-medium text-zinc-700">Balances to withdraw</legend>
              <label className="mt-1 flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={all}
                  onChange={(e) => {
                    setAll(e.target.checked);
                    reset();
                  }}
                />
                All available balances
              </label>
              {!all ? (
                <div className="mt-1 flex flex-wrap gap-3">
                  {withdrawable.map((b) => (
                    <label key={b.currency} className="flex items-center gap-2 text-sm">
                      <input
                        type="checkbox"
                        checked={picked.has(b.currency)}
                        onChange={(e) => {
                          const next = new Set(picked);
                          if (e.target.checked) next.add(b.currency);
                          else next.delete(b.currency);
                          setPicked(next);
                          reset();
                        }}
                      />
                      <span className="uppercase">{b.currency}</span>
                    </label>
                  ))}
                </div>
              ) : null}
            </fieldset>
            <Button type="submit" variant="secondary" disabled={review.isPending || (!all && !picked.size)}>
              {review.isPending ? "Calculating…" : "Review withdrawal"}
            </Button>
            {review.error ? <Alert>{review.error.message}</Alert> : null}
          </form>

          {quote ? (
            <div className="space-y-3 border-t border-zinc-100 px-4 py-4 sm:px-5" data-testid="withdrawal-quote">
              <p className="text-sm text-zinc-600">Your wallet will receive</p>
              <p className="text-2xl font-semibold tabular" data-testid="quote-amount">
                {displayAmount(quote.amount, quote.asset)}{" "}
                <span className="text-base font-normal text-zinc-500">≈ {formatUsd(quote.usdValue)}</span>
              </p>
              <p className="text-xs text-zinc-500" data-testid="quote-usd-price">
                {quote.asset.toUpperCase()} at {formatUsd(quote.assetPriceUsd)} (
                {priceNote({ priceSource: quote.assetPriceSource, priceDate: quote.assetPricedAt })})
              </p>
              <ul className="text-sm text-zinc-700">
                {quote.legs.map((l) => (
                  <li key={l.currency}>
                    {displayAmount(l.amount, l.currency)} at {l.rate} {quote.asset.toUpperCase()}/{l.currency.toUpperCase()}
                    <span className="text-xs text-zinc-500">
                      {" "}
                      ({l.pricedAt ? priceNote({ priceSource: l.priceSource, priceDate: l.pricedAt }) : "same asset, one to one"})
                    </span>
                  </li>
                ))}
              </ul>
              <p className="text-xs text-zinc-500">
                Fee {quote.fee} {quote.asset.toUpperCase()} ({quote.feePolicy}). To {quote.destination} on chain {quote.chainId}. Valid
                until {formatDateTime(quote.expiresAt)}.
              </p>
              <div className="flex flex-wrap gap-3">
                <Button
                  disabled={confirm.isPending}
                  onClick={() => {
                    if (signing.current) return;
                    signing.current = true;
                    confirm.mutate(quote);
                  }}
                >
                  {confirm.isPending ? "Waiting for your wallet…" : "Sign and withdraw"}
                </Button>
                <Button variant="ghost" onClick={reset}>
                  Cancel
                </Button>
              </div>
              {confirm.error ? <Alert>{confirm.error.message}</Alert> : null}
            </div>
          ) : null}
          {queued ? (
            <div className="border-t border-zinc-100 px-4 py-4 sm:px-5">
              {queued.status === "awaiting_approval" ? (
                <Alert tone="success">
                  Withdrawal of {displayAmount(queued.amount, queued.asset)} requested. It waits for the operator&apos;s approval before it
                  is paid; the amount stays reserved. Its progress shows below.
                </Alert>
              ) : (
                <Alert tone="success">Withdrawal of {displayAmount(queued.amount, queued.asset)} queued. Its progress shows below.</Alert>
              )}
            </div>
          ) : null}
        </Card>
      </div>

      <Card className="mt-6" aria-labelledby="history-title">
        <CardHeader id="history-title" title="History" />
        {v.withdrawals.length ? (
          <div className="overflow-x-auto">
            <table className="w-full text-sm">
              <thead className="text-left text-xs text-zinc-500">
                <tr>
                  <th className="px-4 py-2 font-medium sm:px-5">Requested</th>
                  <th className="px-2 py-2 font-medium">State</th>
                  <th className="px-2 py-2 text-right font-medium">Amount</th>
                  <th className="px-2 py-2 font-medium">From (rate)</th>
                  <th className="px-2 py-2 font-medium">Fee</th>
                  <th className="px-4 py-2 font-medium sm:px-5">Transaction</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {v.withdrawals.map((w) => (
                  <tr key={w.id} data-testid="withdrawal-row" data-withdrawal-id={w.id}>
                    <td className="px-4 py-2 whitespace-nowrap sm:px-5">{formatDateTime(w.createdAt)}</td>
                    <td className="px-2 py-2">
                      <StatusBadge status={w.status} />
                      {w.status === "awaiting_approval" ? (
                        <div className="mt-1 max-w-xs text-xs font-medium text-amber-700" data-testid="withdrawal-awaiting-approval">
                          Waiting for approval
                        </div>
                      ) : null}
                      {w.stateReason ? <div className="mt-1 max-w-xs text-xs text-zinc-500">{w.stateReason}</div> : null}
                      {w.reorgs > 0 ? (
                        <div className="mt-1 max-w-xs text-xs text-amber-700" data-testid="withdrawal-reorgs">
                          Its block left the chain in a reorganisation {w.reorgs === 1 ? "once" : `${w.reorgs} times`}; it was sent again
                          and is paid only once.
                        </div>
                      ) : null}
                    </td>
                    <td className="px-2 py-2 text-right tabular whitespace-nowrap" data-testid="withdrawal-amount">
                      <div>{displayAmount(w.amount, w.asset)}</div>
                      <div className="text-xs text-zinc-500">{formatUsd(w.usdValue)}</div>
                    </td>
                    <td className="px-2 py-2 text-xs text-zinc-600">
                      {w.legs.map((l) => (
                        <div key={l.currency}>
                          {displayAmount(l.amount, l.currency)} @ {l.rate}
                        </div>
                      ))}
                    </td>
                    <td className="px-2 py-2 text-xs text-zinc-600">
                      {w.fee} {w.asset.toUpperCase()}
                      {w.networkFee !== null ? (
                        <div data-testid="withdrawal-network-fee" title={`${w.networkFee} wei`}>
                          network fee {displayAmount(formatUnits(BigInt(w.networkFee), 18))} {v.chain.nativeSymbol} (paid by the operator)
                        </div>
                      ) : null}
                    </td>
                    <td className="px-4 py-2 font-mono text-xs sm:px-5">
                      {w.txHash ? (
                        w.txUrl ? (
                          <a href={w.txUrl} target="_blank" rel="noreferrer" className="text-indigo-700 hover:underline" title={w.txHash}>
                            {shortAddress(w.txHash)}
                          </a>
                        ) : (
                          <span title={w.txHash}>{shortAddress(w.txHash)}</span>
                        )
                      ) : (
                        "—"
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <EmptyState title="No withdrawals yet" />
        )}
      </Card>

      <AutoPayoutsCard wallet={v.wallet} chains={v.chains} />
    </>
  );
}
