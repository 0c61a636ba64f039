import type { RequestLogRow } from "./buffer";

// A request log batch's entries (the ApiRequestBatch table's "entries" column) as compact JSON:
// one array per request, newest first. Positional on purpose: the keys of an object per entry
// would be most of the bytes. Pure functions, shared by the writer, the list and the tests.
//
//   [atMs, keyId, method, route, path, status, errorCode, latencyMs, requestId]

/** An entry as the list reads it back (the reseller is the batch's). */
export interface RequestLogEntry {
  at: number;
  keyId: string;
  method: string;
  route: string;
  path: string;
  status: number;
  errorCode: string | null;
  latencyMs: number;
  requestId: string;
}

/** An entry as stored. */
export type Encoded = [number, string, string, string, string, number, string | null, number, string];

/** The entries' JSON, in the order given (the writer gives them newest first). */
export function encodeEntries(rows: readonly RequestLogRow[]): string {
  const out: Encoded[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    out[i] = [r.at, r.keyId, r.method, r.route, r.path, r.status, r.errorCode, r.latencyMs, r.requestId];
  }
  return JSON.stringify(out);
}

/**
 * Whether a stored entry has the shape encodeEntries writes. The column is only ever written by
 * encodeEntries (and the migration that made it, in the same shape); an entry of another shape
 * is skipped by the list rather than shown wrong.
 */
export const isEncoded = (e: unknown): e is Encoded =>
  Array.isArray(e) &&
  e.length === 9 &&
  typeof e[0] === "number" &&
  typeof e[1] === "string" &&
  typeof e[2] === "string" &&
  typeof e[3] === "string" &&
  typeof e[4] === "string" &&
  typeof e[5] === "number" &&
  (typeof e[6] === "string" || e[6] === null) &&
  typeof e[7] === "number" &&
  typeof e[8] === "string";

/** A batch's stored entries, unchecked (isEncoded tells each one's shape); none when the text is not a JSON array. */
export function parseEntries(json: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

export const entryOf = (e: Encoded): RequestLogEntry => ({
  at: e[0],
  keyId: e[1],
  method: e[2],
  route: e[3],
  path: e[4],
  status: e[5],
  errorCode: e[6],
  latencyMs: e[7],
  requestId: e[8],
});

/** A batch's entries, at their positions (a page's cursor names a position); an entry of another shape is null. */
export function decodeEntries(json: string): (RequestLogEntry | null)[] {
  return parseEntries(json).map((e) => (isEncoded(e) ? entryOf(e) : null));
}
