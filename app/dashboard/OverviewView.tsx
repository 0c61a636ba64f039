"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { displayAmount, formatDay, formatUsd, priceNote } from "@/components/format";
import { Alert, Card, CardHeader, cx, EmptyState, PageHeader, StatusBadge } from "@/components/ui";
import { type ChannelStats, type EarningsSeries, type Overview, PERIODS, type PeriodDays } from "@/lib/dashboard/types";
import { ORDER_STATES } from "@/lib/domain/order-states";
import { bpsToPercent, D, formatAmount } from "@/lib/money/decimal";
import { ChannelsCard } from "./ChannelsCard";
import { currencyColor, EarningsChart } from "./EarningsChart";

/** `canExportLedger`: the member's role may download the profit ledger (lib/teams/roles.ts). */
export function OverviewView({
  initial,
  canExportLedger,
}: {
  initial: { overview: Overview; earnings: EarningsSeries; channels: ChannelStats };
  canExportLedger: boolean;
}) {
  const [days, setDays] = useState<PeriodDays>(initial.overview.period.days as PeriodDays);
  const [view, setView] = useState<string>("usd");
  const isInitial = days === initial.overview.period.days;
  const query = { placeholderData: keepPreviousData, refetchInterval: 10_000 } as const;
  const overview = useQuery({
    queryKey: queryKeys.overview.period(days),
    queryFn: ({ signal }) => fetchRead("overview", { days }, signal),
    initialData: isInitial ? initial.overview : undefined,
    ...query,
  });
  const earnings = useQuery({
    queryKey: queryKeys.earnings(days),
    queryFn: ({ signal }) => fetchRead("earnings", { days }, signal),
    initialData: isInitial ? initial.earnings : undefined,
    ...query,
  });
  const o = overview.data ?? initial.overview;
  const e = earnings.data ?? initial.earnings;
  // One color per currency across the balances and the chart.
  const currencies = [...new Map([...o.currencies, ...e.currencies].map((c) => [c.ticker, c])).values()].sort((a, b) =>
    a.ticker.localeCompare(b.ticker),
  );
  const tickers = currencies.map((c) => c.ticker);
  const chartTickers = e.currencies.map((c) => c.ticker);
  const chartView = view === "usd" || chartTickers.includes(view) ? view : "usd";
  const viewId = useId();
  const priced = currencies.filter((c) => c.priceSource);
  const failed = overview.isError ? overview.error : earnings.isError ? earnings.error : null;

  return (
    <>
      <PageHeader
        title="Overview"
        description={
          <>
            Profit from your orders, in each currency and in US dollars at live prices. Days are UTC. Your markup is{" "}
            {bpsToPercent(o.markupBps)}.
            {o.unpriced.length ? (
              <span className="mt-1 block text-xs text-amber-700" data-testid="unpriced">
                No live price now for {o.unpriced.map((t) => t.toUpperCase()).join(", ")}: left out of the US dollar totals.
              </span>
            ) : null}
            {priced.length ? (
              <span className="mt-1 block text-xs" data-testid="price-notes">
                {priced.map((c) => `${c.ticker.toUpperCase()} ${priceNote(c)}`).join(" · ")}
              </span>
            ) : null}
          </>
        }
        actions={<PeriodPicker value={days} onChange={setDays} />}
      />
      {failed ? (
        <div className="mb-4">
          <Alert>Could not refresh the overview: {failed.message}</Alert>
        </div>
      ) : null}

      <div className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4" aria-busy={overview.isFetching || earnings.isFetching}>
        <Stat
          label="Available profit"
          value={formatUsd(o.totals.availableUsd)}
          hint="Realised on finished orders"
          testId="stat-available"
        />
        <Stat label="Pending profit" value={formatUsd(o.totals.pendingUsd)} hint="On orders still in progress" testId="stat-pending" />
        <Stat
          label={`Earned, last ${e.period.days} days`}
          value={formatUsd(e.totalUsd)}
          hint={`${formatDay(e.period.from)} – ${formatDay(e.period.to)}`}
          testId="stat-earned"
        />
        <Stat
          label={`Orders, last ${o.period.days} days`}
          value={String(o.ordersInPeriod)}
          hint={`${o.orderCounts.finished} finished · ${o.orderCounts.failed} failed`}
          testId="stat-orders"
        />
      </div>

      <Card className="mt-6" aria-labelledby="earnings-title">
        <CardHeader
          id="earnings-title"
          title="Earnings by day"
          description="Profit credited when an order finished."
          actions={
            <div className="flex items-center gap-2">
              <label htmlFor={viewId} className="text-sm text-zinc-600">
                Show
              </label>
              <select
                id={viewId}
                value={chartView}
                onChange={(e) => setView(e.target.value)}
                className="rounded-md border border-zinc-300 bg-white py-1.5 pr-8 pl-2 text-sm"
              >
                <option value="usd">All currencies, in USD</option>
                {e.currencies.map((c) => (
                  <option key={c.ticker} value={c.ticker}>
                    {c.symbol} ({c.name})
                  </option>
                ))}
              </select>
            </div>
          }
        />
        <div className="px-2 py-4 sm:px-4">
          {e.days.some((d) => d.totalUsd !== "0" || Object.keys(d.amounts).length) ? (
            <EarningsChart days={e.days} tickers={tickers} view={chartView} />
          ) : (
            <EmptyState title="No earnings in this period yet">
              Profit appears here when orders created with your API keys finish.{" "}
              <Link className="font-medium text-indigo-700 hover:underline" href="/dashboard/docs">
                Make your first order
              </Link>
              .
            </EmptyState>
          )}
          {e.earned.length ? (
            <details className="mt-2 px-2 text-sm">
              <summary className="text-zinc-600">Earnings in this period as a table</summary>
              <div className="mt-2 overflow-x-auto">
                <table className="w-full text-left tabular">
                  <thead className="text-zinc-500">
                    <tr>
                      <th className="py-1 pr-4 font-medium">Day (UTC)</th>
                      {e.earned.map((x) => (
                        <th key={x.currency} className="py-1 pr-4 font-medium">
                          {x.currency.toUpperCase()}
                        </th>
                      ))}
                      <th className="py-1 font-medium">USD</th>
                    </tr>
                  </thead>
                  <tbody>
                    {e.days
                      .filter((d) => Object.keys(d.amounts).length)
                      .map((d) => (
                        <tr key={d.date} className="border-t border-zinc-100">
                          <td className="py-1 pr-4">{formatDay(d.date)}</td>
                          {e.earned.map((x) => (
                            <td key={x.currency} className="py-1 pr-4">
                              {d.amounts[x.currency] ?? "0"}
                            </td>
                          ))}
                          <td className="py-1">{formatUsd(d.totalUsd)}</td>
                        </tr>
                      ))}
                  </tbody>
                </table>
              </div>
            </details>
          ) : null}
        </div>
      </Card>

      <div className="mt-6 grid gap-6 lg:grid-cols-3">
        <Card className="lg:col-span-2" aria-labelledby="balances-title">
          <CardHeader
            id="balances-title"
            title="Profit by currency"
            description="Pending becomes available when the order finishes; a failed order reverses it."
            actions={
              canExportLedger ? (
                <a
                  href="/dashboard/export/ledger"
                  download
                  className="text-sm font-medium whitespace-nowrap text-indigo-700 hover:underline"
                  data-testid="export-ledger"
                >
                  Ledger CSV
                </a>
              ) : null
            }
          />
          {o.balances.length ? (
            <>
              <ul className="divide-y divide-zinc-100 sm:hidden">
                {o.balances.map((b) => (
                  <li key={b.currency} className="px-4 py-3" data-testid={`balance-${b.currency}`}>
                    <CurrencyName
                      ticker={b.currency}
                      name={o.currencies.find((c) => c.ticker === b.currency)?.name}
                      color={currencyColor(tickers.indexOf(b.currency))}
                    />
                    <dl className="mt-2 grid grid-cols-2 gap-2 text-sm">
                      <div>
                        <dt className="text-zinc-500">Available</dt>
                        <dd className="tabular font-medium" data-testid="available">
                          {displayAmount(b.available)}
                        </dd>
                        <dd className="text-xs text-zinc-500">{formatUsd(b.availableUsd)}</dd>
                      </div>
                      <div>
                        <dt className="text-zinc-500">Pending</dt>
                        <dd className="tabular">{displayAmount(b.pending)}</dd>
                        <dd className="text-xs text-zinc-500">{formatUsd(b.pendingUsd)}</dd>
                      </div>
                    </dl>
                  </li>
                ))}
              </ul>
              <div className="hidden overflow-x-auto sm:block">
                <table className="w-full text-left text-sm tabular">
                  <thead className="bg-zinc-50 text-zinc-500">
                    <tr>
                      <th scope="col" className="px-5 py-2 font-medium">
                        Currency
                      </th>
                      <th scope="col" className="px-5 py-2 text-right font-medium">
                        Available
                      </th>
                      <th scope="col" className="px-5 py-2 text-right font-medium">
                        Pending
                      </th>
                      <th scope="col" className="px-5 py-2 text-right font-medium">
                        Total in USD
                      </th>
                    </tr>
                  </thead>
                  <tbody className="divide-y divide-zinc-100">
                    {o.balances.map((b) => (
                      <tr key={b.currency} data-testid={`balance-row-${b.currency}`}>
                        <td className="px-5 py-2.5">
                          <CurrencyName
                            ticker={b.currency}
                            name={o.currencies.find((c) => c.ticker === b.currency)?.name}
                            color={currencyColor(tickers.indexOf(b.currency))}
                          />
                        </td>
                        <td className="px-5 py-2.5 text-right font-medium" data-testid="available">
                          {displayAmount(b.available)}
                        </td>
                        <td className="px-5 py-2.5 text-right text-zinc-600">{displayAmount(b.pending)}</td>
                        <td className="px-5 py-2.5 text-right text-zinc-600">{usdSum(b.availableUsd, b.pendingUsd)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          ) : (
            <EmptyState title="No profit yet">Set a markup in Settings, then create orders with one of your API keys.</EmptyState>
          )}
        </Card>

        <Card aria-labelledby="states-title">
          <CardHeader id="states-title" title="Orders by state" description={`Created in the last ${o.period.days} days`} />
          <ul className="divide-y divide-zinc-100">
            {ORDER_STATES.map((s) => (
              <li key={s}>
                <Link
                  href={`/dashboard/orders?status=${s}`}
                  className="flex items-center justify-between px-4 py-2.5 text-sm hover:bg-zinc-50 sm:px-5"
                  data-testid={`count-${s}`}
                >
                  <StatusBadge status={s} />
                  <span className={cx("tabular font-medium", o.orderCounts[s] ? "text-zinc-900" : "text-zinc-400")}>
                    {o.orderCounts[s]}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      </div>
      <ChannelsCard days={days} initial={{ days: initial.overview.period.days, stats: initial.channels }} />
    </>
  );
}

/** Sum of two USD values for display, exact (lib/money/usd.ts). */
function usdSum(a: string | null, b: string | null): string {
  if (a === null || b === null) return "—";
  return formatUsd(formatAmount(new D(a).plus(b)));
}

function CurrencyName({ ticker, name, color }: { ticker: string; name?: string; color: string }) {
  return (
    <span className="inline-flex items-center gap-2">
      <span aria-hidden className="size-2.5 rounded-full" style={{ background: color }} />
      <span className="font-medium">{ticker.toUpperCase()}</span>
      {name && name.toUpperCase() !== ticker.toUpperCase() ? <span className="text-zinc-500">{name}</span> : null}
    </span>
  );
}

function Stat({ label, value, hint, testId }: { label: string; value: string; hint: string; testId: string }) {
  return (
    <div className="rounded-lg border border-zinc-200 bg-white p-4 shadow-sm" data-testid={testId}>
      <p className="text-xs font-medium text-zinc-500 sm:text-sm">{label}</p>
      <p className="mt-1 text-xl font-semibold tracking-tight tabular sm:text-2xl">{value}</p>
      <p className="mt-1 text-xs text-zinc-500">{hint}</p>
    </div>
  );
}

function PeriodPicker({ value, onChange }: { value: PeriodDays; onChange: (d: PeriodDays) => void }) {
  return (
    <fieldset className="flex items-center gap-2">
      <legend className="sr-only">Period</legend>
      <div className="inline-flex rounded-md bg-zinc-100 p-0.5">
        {PERIODS.map((d) => (
          <label
            key={d}
            className={cx(
              "cursor-pointer rounded px-3 py-1.5 text-sm font-medium has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-indigo-600",
              value === d ? "bg-white text-zinc-900 shadow-sm" : "text-zinc-600 hover:text-zinc-900",
            )}
          >
            <input type="radio" name="period" value={d} checked={value === d} onChange={() => onChange(d)} className="sr-only" />
            {d} days
          </label>
        ))}
      </div>
    </fieldset>
  );
}
