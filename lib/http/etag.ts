import "server-only";
import crypto from "node:crypto";

/** A strong entity tag of a response body: the first 160 bits of its SHA-256, base64url. */
export const etagOf = (text: string): string => `"${crypto.createHash("sha256").update(text).digest("base64url").slice(0, 27)}"`;

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
