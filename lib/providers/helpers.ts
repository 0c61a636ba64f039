import "server-only";
import type { Dec } from "@/lib/money/decimal";
import { ProviderError } from "./http";
import type { MappedStatus, ProviderQuote } from "./types";

// What every adapter does alike, as small functions (not a base class: each adapter stays a
// plain reading of its provider's contract): the status lookup, the deposit range check, and
// the checks of what a created exchange and a firm quote must carry. The HTTP call wrapper is
// http.ts's `call`.

/** A status not in the map: logged by the engine, never final, the order keeps its state. */
const UNKNOWN: MappedStatus = { state: "exchanging", reason: "unknown", final: false };

/** The provider's status string mapped to ours; one the map does not name reads as unknown. */
export function mapStatus(statuses: Readonly<Record<string, MappedStatus>>, status: string): MappedStatus {
  return Object.hasOwn(statuses, status) ? statuses[status] : UNKNOWN;
}

/** Refuses an amount outside the pair's stated range, passing the range on (the currency list's limits, the client's error). */
export function checkRange(provider: string, amount: Dec, min: Dec | null, max: Dec | null, message?: string): void {
  if (min && amount.lt(min)) throw new ProviderError(provider, "amount_too_low", message ?? "below the pair's minimum", { min, max });
  if (max && amount.gt(max)) throw new ProviderError(provider, "amount_too_high", message ?? "above the pair's maximum", { min, max });
}

/**
 * The fields a created exchange must carry (its id, its deposit address...), all present; else
 * the answer is unusable ("exchange created without id or payinAddress"), an outage.
 */
export function created<K extends string>(provider: string, what: string, fields: Record<K, string | null>): Record<K, string> {
  const names = Object.keys(fields);
  if (Object.values(fields).some((v) => v === null)) {
    const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names[0];
    throw new ProviderError(provider, "unavailable", `${what} created without ${list}`);
  }
  return fields as Record<K, string>;
}

/** The firm quote's id a fixed-rate exchange is made from; without one it cannot be made. */
export function quoteIdOf(provider: string, quote: ProviderQuote, needs: string): string {
  if (!quote.quoteId) throw new ProviderError(provider, "rejected", needs);
  return quote.quoteId;
}

/** A date the provider wrote (ISO text), or null. */
export const dateOrNull = (iso: string | null): Date | null => (iso ? new Date(iso) : null);
