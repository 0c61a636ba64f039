"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useId } from "react";
import { queryKeys } from "@/app/dashboard/query-keys";
import { fetchRead } from "@/app/dashboard/read";
import { formatDateTimeSeconds } from "@/components/format";
import { Alert, Button, Card, cx, EmptyState, PageHeader, TextLink } from "@/components/ui";
import { type RequestLogPage, STATUS_CLASSES, type StatusClassName } from "@/lib/dashboard/types";

/** The page's filters, as the URL and the read hold them (times as ISO). */
export interface RequestFilters {
  status?: StatusClassName;
  route?: string;
  key?: string;
  from?: string;
  to?: string;
}

const NAMES = ["status", "route", "key", "from", "to"] as const;

const toQuery = (f: RequestFilters) => {
  const u = new URLSearchParams();
  for (const k of NAMES) if (f[k]) u.set(k, f[k] as string);
  return u.toString();
};

/** An ISO time as a datetime-local input shows it (the browser's time zone), and back. */
const toLocalInput = (iso?: string) => {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocalInput = (v: string) => (v && !Number.isNaN(Date.parse(v)) ? new Date(v).toISOString() : undefined);

const statusTone = (status: number) =>
  status >= 500 ? "bg-rose-50 text-rose-800" : status >= 400 ? "bg-amber-50 text-amber-800" : "bg-emerald-50 text-emerald-800";

export function RequestsView({ initial, initialFilters }: { initial: RequestLogPage; initialFilters: RequestFilters }) {
  const router = useRouter();
  const pathname = usePathname();
  const sp = useSearchParams();
  const status = sp.get("status");
  const filters: RequestFilters = {
    status: (STATUS_CLASSES as readonly string[]).includes(status ?? "") ? (status as StatusClassName) : undefined,
    route: sp.get("route") || undefined,
    key: sp.get("key") || undefined,
    from: fromLocalInput(sp.get("from") ?? ""),
    to: fromLocalInput(sp.get("to") ?? ""),
  };
  const qs = toQuery(filters);
  const log = useInfiniteQuery({
    queryKey: queryKeys.requests(qs),
    queryFn: ({ pageParam, signal }) => fetchRead("requests", { ...filters, older: pageParam || undefined }, signal),
    initialPageParam: "",
    getNextPageParam: (last: RequestLogPage) => last.older ?? undefined,
    initialData: qs === toQuery(initialFilters) ? { pages: [initial], pageParams: [""] } : undefined,
  });
  const go = (f: Partial<RequestFilters>) => {
    const next = toQuery({ ...filters, ...f });
    router.replace(next ? `${pathname}?${next}` : pathname, { scroll: false });
  };
  const pages = log.data?.pages ?? [];
  const rows = pages.flatMap((p) => p.items);
  const options = pages[0]?.filters ?? initial.filters;
  const ids = { status: useId(), route: useId(), key: useId(), from: useId(), to: useId() };
  const field = "mt-1 block w-full rounded-md border border-zinc-300 bg-white py-2 pl-3 text-sm";

  return (
    <>
      <PageHeader
        title="Requests"
        description={
          <>
            Every call to the API made with one of your keys, newest first, kept for 30 days by default: its status, error code and time
            taken. Paths are shown without their query string, long parts shortened. Quote the request id to support; see the{" "}
            <TextLink href="/dashboard/docs">API docs</TextLink> for the error codes.
          </>
        }
        actions={
          <Button variant="secondary" size="sm" onClick={() => void log.refetch()} disabled={log.isFetching}>
            {log.isFetching ? "Refreshing…" : "Refresh"}
          </Button>
        }
      />
      <Card>
        <search>
          <form className="grid gap-3 border-b border-zinc-100 px-4 py-3 sm:grid-cols-5 sm:px-5" onSubmit={(e) => e.preventDefault()}>
            <div>
              <label htmlFor={ids.status} className="block text-sm font-medium text-zinc-700">
                Status
              </label>
              <select
                id={ids.status}
                value={filters.status ?? ""}
                onChange={(e) => go({ status: (e.target.value || undefined) as StatusClassName | undefined })}
                className={cx(field, "pr-8")}
                data-testid="requests-status-filter"
              >
                <option value="">All</option>
                {STATUS_CLASSES.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label htmlFor={ids.route} className="block text-sm font-medium text-zinc-700">
                Route
              </label>
              <select
                id={ids.route}
                value={filters.route ?? ""}
                onChange={(e) => go({ route: e.target.value || undefined })}
                className={cx(field, "pr-8")}
              >
                <option value="">All routes</option>
                {options.routes.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label htmlFor={ids.key} className="block text-sm font-medium text-zinc-700">
                Key
              </label>
              <select
                id={ids.key}
                value={filters.key ?? ""}
                onChange={(e) => go({ key: e.target.value || undefined })}
                className={cx(field, "pr-8")}
              >
                <option value="">All keys</option>
                {options.keys.map((k) => (
                  <option key={k.id} value={k.id}>
                    {k.name} ({k.prefix}…){k.revoked ? ", revoked" : ""}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label htmlFor={ids.from} className="block text-sm font-medium text-zinc-700">
                From
              </label>
              <input
                id={ids.from}
                type="datetime-local"
                value={toLocalInput(filters.from)}
                onChange={(e) => go({ from: fromLocalInput(e.target.value) })}
                className={cx(field, "pr-2")}
              />
            </div>
            <div>
              <label htmlFor={ids.to} className="block text-sm font-medium text-zinc-700">
                Until
              </label>
              <input
                id={ids.to}
                type="datetime-local"
                value={toLocalInput(filters.to)}
                onChange={(e) => go({ to: fromLocalInput(e.target.value) })}
                className={cx(field, "pr-2")}
              />
            </div>
          </form>
        </search>
        {log.isError ? (
          <div className="px-4 py-3">
            <Alert>Could not load the requests: {log.error.message}</Alert>
          </div>
        ) : null}
        {rows.length === 0 && log.hasNextPage ? (
          // A page reads a bounded part of the log (lib/request-log/list.ts): a rare filter can
          // find nothing in the newest part and still have matches further back.
          <EmptyState title="No matches among the most recent requests">Search further back with More.</EmptyState>
        ) : rows.length === 0 ? (
          <EmptyState title={qs ? "No requests match these filters" : "No requests yet"}>
            Requests made with your API keys appear here within seconds.
          </EmptyState>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <thead className="bg-zinc-50 text-xs text-zinc-500 uppercase">
                <tr>
                  <th className="px-4 py-2">Time</th>
                  <th className="px-4 py-2">Request</th>
                  <th className="px-4 py-2">Status</th>
                  <th className="px-4 py-2">Error</th>
                  <th className="px-4 py-2 text-right">Latency</th>
                  <th className="px-4 py-2">Key</th>
                  <th className="px-4 py-2">Request id</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-100">
                {rows.map((r) => (
                  <tr key={r.id} data-testid="request-row" data-status={r.status}>
                    <td className="px-4 py-2 whitespace-nowrap">{formatDateTimeSeconds(r.at)}</td>
                    <td className="px-4 py-2">
                      <span className="font-mono text-xs font-semibold">{r.method}</span>{" "}
                      <span className="font-mono text-xs break-all" title={r.route}>
                        {r.path}
                      </span>
                    </td>
                    <td className="px-4 py-2">
                      <span className={cx("rounded px-2 py-0.5 font-mono text-xs", statusTone(r.status))}>{r.status}</span>
                    </td>
                    <td className="px-4 py-2 font-mono text-xs">{r.errorCode ?? "–"}</td>
                    <td className="px-4 py-2 text-right tabular-nums">{r.latencyMs} ms</td>
                    <td className="px-4 py-2 whitespace-nowrap">
                      {r.key ? (
                        <>
                          {r.key.name} <span className="font-mono text-xs text-zinc-500">{r.key.prefix}…</span>
                        </>
                      ) : (
                        "–"
                      )}
                    </td>
                    <td className="px-4 py-2 font-mono text-xs break-all">{r.requestId}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {log.hasNextPage ? (
          <div className="flex justify-center border-t border-zinc-100 px-4 py-3">
            <Button variant="secondary" size="sm" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage}>
              {log.isFetchingNextPage ? "Loading…" : "More"}
            </Button>
          </div>
        ) : null}
      </Card>
    </>
  );
}
