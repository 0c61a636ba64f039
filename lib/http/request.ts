import "server-only";
import type { IncomingMessage } from "node:http";

/**
 * What a v1 handler reads of a request: its method, path, query, headers and body chunks.
 * Node's IncomingMessage is adapted as it is (apiRequestOf), rather than turned into a Web
 * Request: building one (Headers, an AbortSignal, a ReadableStream over the body) cost more
 * than the /estimate handler's own work (bench/README.md).
 */
export interface ApiRequest {
  readonly method: string;
  /** The path as sent, without the query ("/api/v1/exchange/abc"). */
  readonly path: string;
  readonly query: URLSearchParams;
  /** A header by its lower-case name (repeated ones joined with ", "), or null. */
  header(name: string): string | null;
  /** Whether the request announces a body (a Content-Length other than 0, or chunked). */
  readonly hasBody: boolean;
  /** The body's chunks as they arrive; throws when the client goes away mid-body. */
  chunks(): AsyncIterable<Uint8Array>;
}

export function apiRequestOf(req: IncomingMessage): ApiRequest {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  let query: URLSearchParams | undefined;
  const length = req.headers["content-length"];
  return {
    method: req.method ?? "GET",
    path: q === -1 ? url : url.slice(0, q),
    get query() {
      query ??= new URLSearchParams(q === -1 ? "" : url.slice(q + 1));
      return query;
    },
    header(name) {
      const v = req.headers[name];
      return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
    },
    hasBody: (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined,
    // Stopping early must not destroy the request: that would reset the connection before
    // the client reads the answer (a 413 for a body too large, see lib/http/app.ts).
    chunks: () => req.iterator({ destroyOnReturn: false }),
  };
}
