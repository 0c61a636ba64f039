"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { displayAmount, formatUsd } from "@/components/format";
import { Card, CardHeader, EmptyState } from "@/components/ui";
import type { ChannelStat, ChannelStats } from "@/lib/dashboard/types";

const TYPE: Record<ChannelStat["type"], string> = { key: "API key", widget: "Widget", page: "Exchange page" };

/**
 * Orders, volume and profit per channel (each API key, widget, and the hosted page) over the
 * Overview's period: the busiest channels one by one, the rest in one row (lib/dashboard/channels.ts).
 */
export function ChannelsCard({ days, initial }: { days: number; initial: { days: number; stats: ChannelStats } }) {
  const q = useQuery({
    queryKey: queryKeys.channels(days),
    queryFn: ({ signal }) => fetchRead("channels", { days }, signal),
    initialData: days === initial.days ? initial.stats : undefined,
    placeholderData: keepPreviousData,
    refetchInterval: 10_000,
  });
  const rows = q.data?.channels ?? [];
  const others = q.data?.others ?? null;
  return (
    <Card className="mt-6" aria-labelledby="channels-title">
      <CardHeader
        id="channels-title"
        title="Channels"
        description={`Orders created, volume of the finished ones and profit credited in the last ${days} days, per API key, widget and your exchange page`}
      />
      {rows.length === 0 ? (
        <EmptyState title="No channels yet">Create an API key or a widget.</EmptyState>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="bg-zinc-50 text-zinc-500">
              <tr>
                <th scope="col" className="px-4 py-2 font-medium sm:px-5">
                  Channel
                </th>
                <th scope="col" className="px-3 py-2 text-right font-medium">
                  Markup
                </th>
                <th scope="col" className="px-3 py-2 text-right font-medium">
                  Orders
                </th>
                <th scope="col" className="px-3 py-2 text-right font-medium">
                  Volume
                </th>
                <th scope="col" className="px-4 py-2 text-right font-medium sm:px-5">
                  Profit
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-100">
              {rows.map((r) => (
                <tr key={r.channel} data-testid="channel-row" data-channel={r.channel}>
                  <td className="px-4 py-2.5 sm:px-5">
                    <Link
                      href={`/dashboard/orders?channel=${encodeURIComponent(r.channel)}`}
                      className="font-medium text-indigo-700 hover:underline"
                    >
                      {r.label}
                    </Link>
                    <span className="block text-xs text-zinc-500">{TYPE[r.type]}</span>
                  </td>
                  <td className="px-3 py-2.5 text-right tabular whitespace-nowrap">{r.markupBps} bps</td>
                  <td className="px-3 py-2.5 text-right tabular" data-testid="channel-orders">
                    {r.orders}
                    <span className="block text-xs text-zinc-500">{r.finished} finished</span>
                  </td>
                  <td className="px-3 py-2.5 text-right tabular whitespace-nowrap">{formatUsd(r.volumeUsd)}</td>
                  <td className="px-4 py-2.5 text-right tabular sm:px-5" data-testid="channel-profit">
                    <span className="font-medium">{formatUsd(r.profitUsd)}</span>
                    {r.profit.map((p) => (
                      <span key={p.currency} className="block text-xs text-zinc-500">
                        {displayAmount(p.amount)} {p.currency.toUpperCase()}
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
              {others ? (
                <tr data-testid="channel-others">
                  <td className="px-4 py-2.5 sm:px-5">
                    <span className="font-medium">
                      {others.channels.toLocaleString("en-US")} other channel{others.channels === 1 ? "" : "s"}
                    </span>
                    <span className="block text-xs text-zinc-500">Together</span>
                  </td>
                  <td className="px-3 py-2.5 text-right tabular whitespace-nowrap text-zinc-400">–</td>
                  <td className="px-3 py-2.5 text-right tabular" data-testid="channel-others-orders">
                    {others.orders}
                    <span className="block text-xs text-zinc-500">{others.finished} finished</span>
                  </td>
                  <td className="px-3 py-2.5 text-right tabular whitespace-nowrap">{formatUsd(others.volumeUsd)}</td>
                  <td className="px-4 py-2.5 text-right tabular sm:px-5">
                    <span className="font-medium">{formatUsd(others.profitUsd)}</span>
                    {others.profit.map((p) => (
                      <span key={p.currency} className="block text-xs text-zinc-500">
                        {displayAmount(p.amount)} {p.currency.toUpperCase()}
                      </span>
                    ))}
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
