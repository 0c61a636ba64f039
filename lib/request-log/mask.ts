import "server-only";

// The path a request log row keeps (lib/request-log): what was called, never an address, a
// secret or a body in full. Pure functions.
//
// - The query string is dropped (an estimate's or a range's parameters can hold an address).
// - Any path segment longer than MASK_OVER characters keeps its first 6 and last 4, around an
//   ellipsis: a payout address, a transaction hash, or anything else long a client put in the
//   path. Order ids (24 characters) are shortened too, on purpose: one rule for every segment,
//   with no list of "safe" shapes to keep up to date. The reseller still recognises an order by
//   its ends (the Orders page searches by an id's beginning), the row's route template says what
//   kind of thing it was, and its request id finds the rest in the reseller's own logs.
// - At most MAX_SEGMENTS segments and MAX_PATH characters are kept (a path made long on purpose).

/** A segment longer than this is shortened. */
export const MASK_OVER = 16;
const MAX_SEGMENTS = 12;
const MAX_PATH = 200;
const ELLIPSIS = "…";

/** A segment as the log keeps it: itself when short, else its first 6 and last 4 characters around an ellipsis. */
export function maskSegment(segment: string): string {
  if (segment.length <= MASK_OVER) return segment;
  // No surrogate: one UTF-16 unit per character, so slices are characters (an order id, an
  // address: the common long segment; the spread below was most of maskPath's cost for them).
  if (!hasSurrogate(segment)) return `${segment.slice(0, 6)}${ELLIPSIS}${segment.slice(-4)}`;
  // By code points, so a shortened segment never splits a character in two.
  const chars = [...segment];
  if (chars.length <= MASK_OVER) return segment;
  return `${chars.slice(0, 6).join("")}${ELLIPSIS}${chars.slice(-4).join("")}`;
}

function hasSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) if ((s.charCodeAt(i) & 0xf800) === 0xd800) return true;
  return false;
}

/**
 * Whether maskPath keeps `target` as it is: the common case (every route of the API but a long
 * id or address), checked in one pass that allocates nothing. It is on every keyed request's
 * path: the general case's split, code-point spread and join were half of what the log cost
 * the request path (a CPU profile of bench/production.mjs).
 */
function keptAsIs(target: string): boolean {
  if (target.length > MAX_PATH) return false;
  let parts = 1;
  let run = 0;
  for (let i = 0; i < target.length; i++) {
    const c = target.charCodeAt(i);
    if (c === 47 /* / */) {
      if (++parts > MAX_SEGMENTS + 1) return false;
      run = 0;
    } else if (c === 63 /* ? */ || c === 35 /* # */ || ++run > MASK_OVER) return false; // (UTF-16 units: at most MASK_OVER of them is at most MASK_OVER characters)
  }
  return true;
}

/** The path of a request target as the log keeps it: no query string, long segments shortened, bounded. */
export function maskPath(target: string): string {
  if (keptAsIs(target)) return target;
  // The rule: the path before any ? or #, split at "/", its first MAX_SEGMENTS + 1 segments
  // masked and joined, "/…" when there were more. Walked in one pass (no split, map, join):
  // every GET /exchange/{id} comes here, its id being longer than MASK_OVER.
  let end = target.length;
  for (let i = 0; i < end; i++) {
    const c = target.charCodeAt(i);
    if (c === 63 /* ? */ || c === 35 /* # */) end = i;
  }
  let out = "";
  let start = 0;
  for (let n = 0; ; n++) {
    if (n > MAX_SEGMENTS) {
      out += `/${ELLIPSIS}`;
      break;
    }
    let slash = target.indexOf("/", start);
    if (slash === -1 || slash > end) slash = end;
    out += n ? `/${maskSegment(target.slice(start, slash))}` : maskSegment(target.slice(start, slash));
    if (slash === end) break;
    start = slash + 1;
  }
  if (out.length > MAX_PATH) out = `${out.slice(0, MAX_PATH - 1)}${ELLIPSIS}`;
  return out;
}
