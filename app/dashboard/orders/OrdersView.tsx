"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useId, useState } from "react";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { displayAmount, formatDateTime, shortId } from "@/components/format";
import { Alert, Button, Card, EmptyState, PageHeader, StatusBadge, TextLink } from "@/components/ui";
import type { ChannelOption, OrderList } from "@/lib/dashboard/types";
import { ID_PREFIX_MIN } from "@/lib/domain/order-ids";
import { ORDER_STATES } from "@/lib/domain/order-states";
import { bpsToPercent } from "@/lib/money/decimal";

interface Params {
  status: string;
  q: string;
  /** A channel (key:<id>, widget:<id>, page), or "" for all. */
  channel: string;
  /** The page's cursor (lib/dashboard/orders.ts): older than `after`, newer than `before`, or the oldest page; "" / false for none. */
  after: string;
  before: string;
  oldest: boolean;
}

const FIRST_PAGE = { after: "", before: "", oldest: false };

const toQuery = (p: Params) => {
  const u = new URLSearchParams();
  if (p.status) u.set("status", p.status);
  if (p.q) u.set("q", p.q);
  if (p.channel) u.set("channel", p.channel);
  if (p.after) u.set("after", p.after);
  else if (p.before) u.set("before", p.before);
  else if (p.oldest) u.set("oldest", "1");
  return u.toString();
};

export function OrdersView({ initial, initialParams, channels }: { initial: OrderList; initialParams: Params; channels: ChannelOption[] }) {
  const router = useRouter();
  const pathname = usePathname();
  const sp = useSearchParams();
  const params: Params = {
    status: sp.get("status") && (ORDER_STATES as readonly string[]).includes(sp.get("status")!) ? sp.get("status")! : "",
    q: sp.get("q") ?? "",
    channel: channels.some((c) => c.value === sp.get("channel")) ? (sp.get("channel") as string) : "",
    after: sp.get("after") ?? "",
    before: sp.get("before") ?? "",
    oldest: sp.get("oldest") === "1",
  };
  const qs = toQuery(params);
  // The export has every page of the filtered list.
  const exportQs = toQuery({ ...params, ...FIRST_PAGE });
  const isInitial = qs === toQuery(initialParams);
  const list = useQuery({
    queryKey: queryKeys.orders(qs),
    queryFn: ({ signal }) => fetchRead("orders", params, signal),
    initialData: isInitial ? initial : undefined,
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
  });
  const [search, setSearch] = useState(params.q);
  useEffect(() => setSearch(params.q), [params.q]);
  const go = (p: Partial<Params>) => {
    const next = toQuery({ ...params, ...FIRST_PAGE, ...p });
    router.replace(next ? `${pathname}?${next}` : pathname, { scroll: false });
  };
  const statusId = useId();
  const channelId = useId();
  const searchId = useId();
  const data = list.data;

  return (
    <>
      <PageHeader
        title="Orders"
        description="Orders created with your API keys, widgets and exchange page, newest first. The list refreshes on its own."
        actions={
          <a
            href={`/dashboard/export/orders${exportQs ? `?${exportQs}` : ""}`}
            download
            className="inline-flex items-center rounded-md border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium text-zinc-700 shadow-sm hover:bg-zinc-50"
            data-testid="export-orders"
          >
            Export CSV
          </a>
        }
      />
      <Card>
        <search>
          <form
            className="flex flex-col gap-3 border-b border-zinc-100 px-4 py-3 sm:flex-row sm:items-end sm:px-5"
            onSubmit={(e) => {
              e.preventDefault();
              go({ q: search.trim() });
            }}
          >
            <div>
              <label htmlFor={statusId} className="block text-sm font-medium text-zinc-700">
                State
              </label>
              <select
                id={statusId}
                value={params.status}
                onChange={(e) => go({ status: e.target.value })}
                className="mt-1 block w-full rounded-md border border-zinc-300 bg-white py-2 pr-8 pl-3 text-sm sm:w-44"
              >
                <option value="">All states</option>
                {ORDER_STATES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label htmlFor={channelId} className="block text-sm font-medium text-zinc-700">
                Channel
              </label>
              <select
                id={channelId}
                value={params.channel}
                onChange={(e) => go({ channel: e.target.value })}
                className="mt-1 block w-full rounded-md border border-zinc-300 bg-white py-2 pr-8 pl-3 text-sm sm:w-52"
                data-testid="channel-filter"
              >
                <option value="">All channels</option>
                {channels.map((c) => (
                  <option key={c.value} value={c.value}>
                    {c.label}
                  </option>
                ))}
              </select>
            </div>
            <div className="flex-1">
              <label htmlFor={searchId} className="block text-sm font-medium text-zinc-700">
                Order id
              </label>
              <div className="mt-1 flex gap-2">
                <input
                  id={searchId}
                  type="search"
                  value={search}
                  onChange={(e) => setSearch(e.target.value)}
                  placeholder="Full id or its beginning"
                  autoComplete="off"
                  spellCheck={false}
                  className="block w-full min-w-0 rounded-md border border-zinc-300 px-3 py-2 font-mono text-sm placeholder:font-sans placeholder:text-zinc-400"
                />
                <Button type="submit" variant="secondary">
                  Search
                </Button>
              </div>
            </div>
          </form>
        </search>

        {list.isError ? (
          <div className="px-4 py-3">
            <Alert>Could not load orders: {list.error.message}</Alert>
          </div>
        ) : null}

        {data?.searchTooShort ? (
          <div className="px-4 py-3">
            <Alert>Type at least {ID_PREFIX_MIN} characters of the order id.</Alert>
          </div>
        ) : null}

        {!data ? (
          <EmptyState title="Loading orders…" />
        ) : data.items.length === 0 ? (
          params.status || params.q || params.channel ? (
            <EmptyState title="No orders match">
              <button
                type="button"
                className="font-medium text-indigo-700 hover:underline"
                onClick={() => go({ status: "", q: "", channel: "" })}
              >
                Clear the filters
              </button>
            </EmptyState>
          ) : (
            <EmptyState title="No orders yet">
              Orders appear here as soon as your app creates them with one of your keys. See the{" "}
              <TextLink href="/dashboard/docs">quick start</TextLink>.
            </EmptyState>
          )
        ) : (
          <>
            <ul className="divide-y divide-zinc-100 md:hidden" aria-label="Orders">
              {data.items.map((o) => (
                <li key={o.id} data-testid="order-row" data-order-id={o.id}>
                  <Link href={`/dashboard/orders/${o.id}`} className="block px-4 py-3 hover:bg-zinc-50">
                    <div className="flex items-center justify-between gap-2">
                      <span className="font-mono text-sm font-medium text-indigo-700">{shortId(o.id)}</span>
                      <StatusBadge status={o.status} />
                    </div>
                    <p className="mt-1 text-sm tabular">
                      {displayAmount(o.fromAmount, o.fromCurrency)} → {displayAmount(o.toAmount, o.toCurrency)}
                    </p>
                    <p className="mt-1 flex flex-wrap justify-between gap-x-3 text-xs text-zinc-500">
                      <span>{formatDateTime(o.createdAt)}</span>
                      <span className="tabular">
                        Profit{" "}
                        <span className={o.status === "failed" ? "text-zinc-400 line-through" : "font-medium text-zinc-700"}>
                          {displayAmount(o.profit, o.toCurrency)}
                        </span>
                      </span>
                    </p>
                  </Link>
                </li>
              ))}
            </ul>
            <div className="hidden overflow-x-auto md:block">
              <table className="w-full text-left text-sm tabular">
                <caption className="sr-only">Orders</caption>
                <thead className="bg-zinc-50 whitespace-nowrap text-zinc-500">
                  <tr>
                    <th scope="col" className="px-3 py-2 first:pl-5 last:pr-5 font-medium">
                      Order
                    </th>
                    <th scope="col" className="px-3 py-2 first:pl-5 last:pr-5 font-medium">
                      Created
                    </th>
                    <th scope="col" className="px-3 py-2 first:pl-5 last:pr-5 text-right font-medium">
                      Customer sends
                    </th>
                    <th scope="col" className="px-3 py-2 first:pl-5 last:pr-5 text-right font-medium">
                      Customer receives
                    </th>
                    <th scope="col" className="px-3 py-2 first:pl-5 last:pr-5 text-right font-medium">
                      Markup
                    </th>
                    <th scope="col" className="px-3 py-2 first:pl-5 last:pr-5 text-right font-medium">
                      Profit
                    </th>
                    <th scope="col" className="px-3 py-2 first:pl-5 last:pr-5 font-medium">
                      State
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-zinc-100">
                  {data.items.map((o) => (
                    <tr key={o.id} data-testid="order-row" data-order-id={o.id} className="hover:bg-zinc-50">
                      <td className="px-3 py-2.5 first:pl-5 last:pr-5">
                        <Link
                          href={`/dashboard/orders/${o.id}`}
                          className="font-mono font-medium whitespace-nowrap text-indigo-700 hover:underline"
                          title={o.id}
                        >
                          {shortId(o.id)}
                        </Link>
                      </td>
                      <td className="px-3 py-2.5 first:pl-5 last:pr-5 whitespace-nowrap text-zinc-600">{formatDateTime(o.createdAt)}</td>
                      <td className="px-3 py-2.5 first:pl-5 last:pr-5 text-right whitespace-nowrap">
                        {displayAmount(o.fromAmount, o.fromCurrency)}
                      </td>
                      <td className="px-3 py-2.5 first:pl-5 last:pr-5 text-right whitespace-nowrap">
                        {displayAmount(o.toAmount, o.toCurrency)}
                      </td>
                      <td className="px-3 py-2.5 first:pl-5 last:pr-5 text-right text-zinc-600">{bpsToPercent(o.markupBps)}</td>
                      <td
                        className={`px-3 py-2.5 first:pl-5 last:pr-5 text-right font-medium whitespace-nowrap ${o.status === "failed" ? "text-zinc-400 line-through" : ""}`}
                      >
                        {o.status === "failed" ? <span className="sr-only">Reversed: </span> : null}
                        {displayAmount(o.profit, o.toCurrency)}
                      </td>
                      <td className="px-3 py-2.5 first:pl-5 last:pr-5">
                        <StatusBadge status={o.status} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <nav
              aria-label="Pages"
              className="flex flex-wrap items-center justify-between gap-2 border-t border-zinc-100 px-4 py-3 text-sm sm:px-5"
            >
              <p className="text-zinc-600" aria-live="polite" data-testid="orders-total">
                {data.totalCapped
                  ? `More than ${data.total.toLocaleString("en-US")} orders`
                  : `${data.total.toLocaleString("en-US")} order${data.total === 1 ? "" : "s"}`}
              </p>
              <div className="flex gap-2">
                <Button variant="secondary" size="sm" disabled={!data.newer} onClick={() => go({})}>
                  Newest
                </Button>
                <Button variant="secondary" size="sm" disabled={!data.newer} onClick={() => go({ before: data.newer ?? "" })}>
                  Previous
                </Button>
                <Button variant="secondary" size="sm" disabled={!data.older} onClick={() => go({ after: data.older ?? "" })}>
                  Next
                </Button>
                <Button variant="secondary" size="sm" disabled={!data.older} onClick={() => go({ oldest: true })}>
                  Oldest
                </Button>
              </div>
            </nav>
          </>
        )}
      </Card>
    </>
  );
}
