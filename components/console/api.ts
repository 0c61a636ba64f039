"use client";

import { type QueryKey, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

// The console's conversation with its API (/api/console, lib/http/console): reads are
// react-query GETs, writes are POSTs that refresh the reads they change. The browser sends the
// session cookie (http-only, op_session) and the Origin / Sec-Fetch-Site the API requires.
// A lost or missing session (401) sends the browser to the console's sign-in page, back here after.

export class ConsoleError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export const signInPath = (back?: string) =>
  back && back !== "/console" ? `/console/signin?next=${encodeURIComponent(back)}` : "/console/signin";

function toSignIn() {
  // The sign-in page shows its own refusals (a wallet that is no operator).
  if (typeof window === "undefined" || window.location.pathname.startsWith("/console/signin")) return;
  window.location.assign(signInPath(window.location.pathname + window.location.search));
}

async function answer<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (res.ok) return body as T;
  const err = (body as { error?: { code?: string; message?: string } } | null)?.error;
  if (res.status === 401) toSignIn();
  throw new ConsoleError(err?.message ?? `The server answered ${res.status}.`, err?.code ?? `HTTP_${res.status}`, res.status);
}

export async function consoleGet<T>(path: string): Promise<T> {
  const res = await fetch(`/api/console${path}`, { credentials: "same-origin", headers: { accept: "application/json" } });
  return answer<T>(res);
}

export async function consolePost<T>(path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/api/console${path}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body ?? {}),
  });
  return answer<T>(res);
}

/** A query string of the non-empty values. */
export function qs(params: Record<string, string | number | null | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : "";
}

/** A console read: its key is the path itself, so a write refreshes reads by path prefix. */
export function useConsoleQuery<T>(path: string, opts: { enabled?: boolean; refetchInterval?: number } = {}) {
  return useQuery<T, ConsoleError>({
    queryKey: ["console", path],
    queryFn: () => consoleGet<T>(path),
    enabled: opts.enabled ?? true,
    refetchInterval: opts.refetchInterval,
    retry: (n, e) => e.status >= 500 && n < 1,
  });
}

/**
 * A console write: POST `path(vars)` with `body(vars)`, then every read whose path starts with
 * one of `refresh` is fetched again (and the queue, which most writes change).
 */
export function useConsoleAction<V, T = unknown>(opts: {
  path: (v: V) => string;
  body?: (v: V) => unknown;
  refresh: string[];
  onDone?: (data: T, v: V) => void;
}) {
  const refresh = useRefresh();
  return useMutation<T, ConsoleError, V>({
    mutationFn: (v) => consolePost<T>(opts.path(v), opts.body ? opts.body(v) : v),
    onSuccess: async (data, v) => {
      await refresh(opts.refresh);
      opts.onDone?.(data, v);
    },
  });
}

/** Fetches again every console read whose path starts with one of `prefixes` (and the queue and the audit log, which most writes change). */
export function useRefresh() {
  const client = useQueryClient();
  return (prefixes: string[]) => {
    const all = [...prefixes, "/queue", "/audit"];
    return client.invalidateQueries({
      predicate: (q) => {
        const k = q.queryKey as QueryKey;
        return k[0] === "console" && typeof k[1] === "string" && all.some((p) => (k[1] as string).startsWith(p));
      },
    });
  };
}

/**
 * A keyset list: the first page at `path`, and "more" pages with `cursorParam`=the last
 * answer's `next`. `items` picks the list out of an answer ({orders: [...]}, {events: [...]}).
 */
export function useConsoleList<T>(path: string, items: string, cursorParam = "cursor") {
  const q = useInfiniteQuery<Record<string, unknown>, ConsoleError>({
    queryKey: ["console", path],
    initialPageParam: null as unknown,
    queryFn: ({ pageParam }) =>
      consoleGet<Record<string, unknown>>(
        pageParam === null || pageParam === undefined
          ? path
          : `${path}${path.includes("?") ? "&" : "?"}${cursorParam}=${encodeURIComponent(String(pageParam))}`,
      ),
    getNextPageParam: (last) => (last.next === null || last.next === undefined || last.next === "" ? undefined : last.next),
    retry: (n, e) => e.status >= 500 && n < 1,
  });
  const rows = (q.data?.pages ?? []).flatMap((p) => (Array.isArray(p[items]) ? (p[items] as T[]) : []));
  return { ...q, rows, first: q.data?.pages[0] };
}
