import "server-only";
import crypto from "node:crypto";
import { type Dec, formatAmount } from "./decimal";

// The spec shows amounts as JSON numbers; JSON.stringify of a JS number would go through a
// binary float. A JsonNumber carries the exact decimal text and stringifyJson prints it
// as a bare number. (JSON.rawJSON would do this natively but needs Node 21+.)
export class JsonNumber {
  constructor(readonly text: string) {}
  toJSON() {
    return MARK + this.text + MARK;
  }
}

const MARK = `__num_${crypto.randomBytes(8).toString("hex")}__`;
const MARK_RE = new RegExp(`"${MARK}(-?[0-9.]+)${MARK}"`, "g");

export const num = (x: Dec | string): JsonNumber => new JsonNumber(typeof x === "string" ? x : formatAmount(x));
export const numOrNull = (x: string | null | undefined): JsonNumber | null => (x == null ? null : new JsonNumber(x));

export function stringifyJson(value: unknown): string {
  return JSON.stringify(value).replace(MARK_RE, "$1");
}
