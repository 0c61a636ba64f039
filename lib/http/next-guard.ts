import "server-only";

// Checks on what server.ts hands to Next (the dashboard), for garbage that Next itself would
// answer with a 500 and a stack trace in the log: a path that does not percent-decode, and
// server-action calls whose arguments React's decoder chokes on. The dashboard calls its
// actions only with plain values (app/dashboard/call-action.ts): React's encodeReply
// sends those as a text/plain JSON list, where a string that starts with "$" is escaped as
// "$$..." and a few values JSON lacks have their own "$" words. Anything else (multipart
// forms, references to other chunks, promises, server references) is never sent by this
// dashboard, so it is refused before React decodes it.

/** The "$" strings encodeReply writes for plain values (escaped strings, undefined, dates, special numbers, bigints). */
const PLAIN_SPECIAL = /^\$(?:\$|undefined$|NaN$|Infinity$|-Infinity$|-0$|D|n-?\d+$)/;

function isPlain(v: unknown, depth: number): boolean {
  if (depth > 32) return false;
  if (typeof v === "string") return !v.startsWith("$") || PLAIN_SPECIAL.test(v);
  if (Array.isArray(v)) return v.every((x) => isPlain(x, depth + 1));
  if (v !== null && typeof v === "object") return Object.values(v).every((x) => isPlain(x, depth + 1));
  return true;
}

/** Why a server-action request's body is not one this dashboard sends, or null when it is. */
export function serverActionBodyProblem(contentType: string | undefined, body: Buffer): string | null {
  if (!(contentType ?? "").toLowerCase().startsWith("text/plain")) return "A dashboard action takes its arguments as text/plain JSON.";
  let args: unknown;
  try {
    args = JSON.parse(body.toString("utf8"));
  } catch {
    return "The action's arguments are not valid JSON.";
  }
  if (!Array.isArray(args)) return "The action's arguments must be a list.";
  return isPlain(args, 0) ? null : "The action's arguments hold values this dashboard never sends.";
}

/** False when the URL's path does not percent-decode (Next would fail on it with a 500). */
export function pathDecodes(url: string): boolean {
  const q = url.indexOf("?");
  try {
    decodeURIComponent(q === -1 ? url : url.slice(0, q));
    return true;
  } catch {
    return false;
  }
}
