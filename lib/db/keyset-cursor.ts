import { AppError } from "@/lib/errors";

// A keyset page's cursor (newest first by time, then id): the last row's time and id, opaque to
// the client (base64url of a JSON pair). One codec for every list that pages this way (the
// console's orders and withdrawals, the request log).

export interface KeysetCursor<Id extends string | number = string> {
  at: Date;
  id: Id;
}

export const encodeKeysetCursor = (c: KeysetCursor<string | number>): string =>
  Buffer.from(JSON.stringify([c.at.toISOString(), c.id])).toString("base64url");

/**
 * The cursor a list gave, or INVALID_REQUEST (422) for anything else; `isId` says which ids the
 * list's rows have (a string pattern, a positive integer), so a forged id never reaches a query.
 */
export function decodeKeysetCursor<Id extends string | number>(text: string, isId: (id: unknown) => id is Id): KeysetCursor<Id> {
  try {
    const [at, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown[];
    const date = new Date(String(at));
    if (typeof at === "string" && !Number.isNaN(date.getTime()) && isId(id)) return { at: date, id };
  } catch {
    // not JSON: answered below
  }
  throw new AppError("INVALID_REQUEST", "cursor: not a cursor this list gave");
}
