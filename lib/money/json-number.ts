import "server-only";
import { LosslessNumber, stringify } from "lossless-json";
import { D, type Dec, formatAmount, MAX_SIGNIFICANT_DIGITS } from "./decimal";

// The spec shows amounts as JSON numbers. A JavaScript number would pass through a binary
// float; a LosslessNumber (lossless-json) carries the exact decimal text, and stringifyJson
// prints it as a bare JSON number.

/**
 * An amount as a JSON number, written from its exact decimal. Amounts keep to 15
 * significant digits (docs/api.md, Amounts); a longer one is a bug upstream and fails here
 * rather than reaching a client that would round it.
 */
export function num(x: Dec | string): LosslessNumber {
  const d = new D(x); // a copy of a Dec: the one path, for a string and a Dec alike
  if (d.sd() > MAX_SIGNIFICANT_DIGITS)
    throw new Error(`amount ${formatAmount(d)} has more than ${MAX_SIGNIFICANT_DIGITS} significant digits`);
  return new LosslessNumber(formatAmount(d));
}

export const numOrNull = (x: string | null | undefined): LosslessNumber | null => (x == null ? null : num(x));

/** JSON text of a response body: like JSON.stringify, with amounts (LosslessNumber) as exact numbers. */
export function stringifyJson(value: unknown): string {
  return stringify(value) ?? "null";
}
