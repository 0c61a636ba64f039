import type { DashboardReadName, DashboardReads } from "@/lib/dashboard/types";

// The one way the dashboard's react-query hooks read: a GET of /dashboard/api/<name>
// (lib/dashboard/reads.ts), typed by the map the server is held to (DashboardReads). Plain
// GETs run side by side and survive a deploy, where server actions ran one at a time and
// queued the writes behind the polls. Server actions (app/dashboard/actions.ts) are for writes.

/** The read's URL: each query value as text (true as "1"; false, undefined and "" left out). */
export function readUrl<K extends DashboardReadName>(name: K, query: DashboardReads[K]["query"]): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query as Record<string, string | number | boolean | undefined>)) {
    if (v === undefined || v === false || v === "") continue;
    params.set(k, v === true ? "1" : String(v));
  }
  const qs = params.toString();
  return `/dashboard/api/${name}${qs ? `?${qs}` : ""}`;
}

/**
 * Reads `name` for react-query: its data, or an Error with the message to show. A lost
 * session (401) sends the browser to the sign-in page, back here after.
 */
export async function fetchRead<K extends DashboardReadName>(
  name: K,
  query: DashboardReads[K]["query"],
  signal?: AbortSignal,
): Promise<DashboardReads[K]["result"]> {
  const res = await fetch(readUrl(name, query), { headers: { accept: "application/json" }, cache: "no-store", signal });
  if (res.status === 401) {
    window.location.assign(`/signin?callbackUrl=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }
  const body: unknown = await res.json().catch(() => null);
  if (res.ok) return body as DashboardReads[K]["result"];
  const message = (body as { error?: { message?: unknown } } | null)?.error?.message;
  throw new Error(typeof message === "string" ? message : `The dashboard could not be read (HTTP ${res.status}).`);
}
