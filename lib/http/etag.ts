import "server-only";
import crypto from "node:crypto";

/** A strong entity tag of a response body: the first 160 bits of its SHA-256, base64url. */
// crypto.hash, the one-shot form: on every status read, and a Hash object per call cost about
// three times as much (11 µs of a SQLite status read's CPU under load, bench/README.md).
export const etagOf = (text: string): string => `"${crypto.hash("sha256", text, "base64url").slice(0, 27)}"`;

/**
 * Whether an If-None-Match header names this tag (RFC 9110 13.1.2: weak comparison, a list of
 * tags, or `*`).
 */
export function noneMatchHits(header: string | null, etag: string): boolean {
  if (header === null) return false;
  if (header.trim() === "*") return true;
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => bare(t) === bare(etag));
}
