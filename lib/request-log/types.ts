// The request log's shapes as the dashboard shows them (plain data: dates as ISO strings).
// Imported by client code: no server-only imports here.

/** The Requests page's status filter: a class of statuses, stored as status / 100. */
export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx"] as const;
export type StatusClassName = (typeof STATUS_CLASSES)[number];

export interface RequestLogView {
  /** `<batch>.<index>`: the entry's place in the log (lib/request-log/list.ts). */
  id: string;
  /** When the request arrived (ISO). */
  at: string;
  method: string;
  /** The route's template (/api/v1/exchange/:id), or "unmatched". */
  route: string;
  /** The path as called, without its query string, long segments shortened (docs/dashboard.md). */
  path: string;
  status: number;
  errorCode: string | null;
  latencyMs: number;
  requestId: string;
  /** The key the request was made with (its name and prefix), null if it no longer exists. */
  key: { id: string; name: string; prefix: string } | null;
}

export interface RequestLogPage {
  items: RequestLogView[];
  /** The cursor of the next (older) page, null on the last. */
  older: string | null;
  /** What the filters offer: the logged route templates and the reseller's keys (newest first, at most 100). */
  filters: { routes: string[]; keys: { id: string; name: string; prefix: string; revoked: boolean }[] };
}
