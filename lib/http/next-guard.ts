import "server-only";
import fs from "node:fs";
import path from "node:path";
import { AppError } from "@/lib/errors";
import type { Logger } from "@/lib/log";

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

/**
 * The end user's pages (/x/<reseller>, /w/<widget>, /o/<order>): their forms are React form
 * actions (app/_hosted/actions.ts), which a browser posts as multipart/form-data, with
 * JavaScript (a Next-Action header) or without it (a plain form post to the page).
 */
export const HOSTED_PAGE_PATH = /^\/[xwo]\/[^/?#]+\/?(?:[?#]|$)/;

const isMultipart = (contentType: string | undefined) => (contentType ?? "").toLowerCase().startsWith("multipart/form-data");

/** Why a server-action request's body is not one this app sends, or null when it is. */
export function serverActionBodyProblem(contentType: string | undefined, body: Buffer, url = "/"): string | null {
  // A hosted page's form: multipart, decoded by React's own form decoder.
  if (HOSTED_PAGE_PATH.test(url) && isMultipart(contentType)) return null;
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

/** What nextRequestRefusal reads of a request (Node's IncomingMessage has it). */
interface NextBoundRequest {
  method?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The host Next compares a server action's Origin with: the first X-Forwarded-Host entry,
 * else Host (node_modules/next/dist/server/app-render/action-handler.js, parseHostHeader).
 */
function actionHost(headers: NextBoundRequest["headers"]): string | undefined {
  const forwarded = first(headers["x-forwarded-host"])?.split(",")[0]?.trim();
  return forwarded || first(headers.host);
}

/**
 * The end user's pages send no Referer (Referrer-Policy: no-referrer: their URLs hold the order's
 * secret), and under that policy a browser sends `Origin: null` with a same-origin POST, which
 * Next's CSRF check refuses. For such a form post to a hosted page, when the browser itself says
 * the request comes from the same origin (Sec-Fetch-Site, which no page can set), the request's
 * Origin is put back as the origin Next compares with (the Host). Anything else is left as sent
 * (a foreign origin, or "null" without Sec-Fetch-Site, stays refused).
 */
export function vouchForHostedOrigin(req: NextBoundRequest): void {
  if (req.method !== "POST" || !HOSTED_PAGE_PATH.test(req.url ?? "/")) return;
  if (first(req.headers.origin) !== "null" || first(req.headers["sec-fetch-site"]) !== "same-origin") return;
  const host = actionHost(req.headers);
  if (host) req.headers.origin = `http://${host}`;
}

/**
 * Why server.ts answers a request for Next itself, with a 4xx, where Next would fail with a
 * 500 and a stack in the log; null to hand it on:
 * - a path that does not percent-decode;
 * - a write to a page that is not a server action: the dashboard posts only actions (with a
 *   Next-Action header); Next would try any other multipart or form POST as a no-JavaScript
 *   form action and fail to parse a malformed one. The one exception: the end user's pages
 *   (HOSTED_PAGE_PATH), whose forms work without JavaScript, take a multipart form post;
 * - a server action from a foreign Origin: Next refuses it (CSRF) by throwing. The check is
 *   Next's own, so nothing it would accept is refused here.
 */
export function nextRequestRefusal(req: NextBoundRequest): AppError | null {
  const url = req.url ?? "/";
  if (!pathDecodes(url)) return new AppError("INVALID_REQUEST", "The path is not valid percent-encoding.");
  const method = req.method ?? "GET";
  if (method === "GET" || method === "HEAD" || method === "OPTIONS" || /^\/api\/auth(?:[/?]|$)/.test(url)) return null;
  const hostedForm = HOSTED_PAGE_PATH.test(url) && method === "POST" && isMultipart(first(req.headers["content-type"]));
  if (first(req.headers["next-action"]) === undefined && !hostedForm)
    return new AppError("METHOD_NOT_ALLOWED", `The dashboard's pages take GET, not ${method}.`, undefined, { Allow: "GET, HEAD" });
  const origin = first(req.headers.origin);
  if (origin === undefined) return null; // Next lets an action without Origin through (no browser sends one so)
  let originHost: string | null = null;
  try {
    originHost = origin === "null" ? null : new URL(origin).host;
  } catch {
    /* not a URL: refused below */
  }
  if (originHost === null || originHost !== actionHost(req.headers))
    return new AppError("FORBIDDEN_ORIGIN", "Dashboard actions are only taken from the dashboard's own pages.");
  return null;
}

/**
 * The server actions of the production build (the ids in .next's server-reference manifest), or
 * null when there is no such manifest (an API-only instance, development: Next rebuilds actions
 * as files change, so the check is left to Next there).
 */
export function loadServerActionIds(root: string): Set<string> | null {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(root, ".next/server/server-reference-manifest.json"), "utf8"));
    return new Set([...Object.keys(m.node ?? {}), ...Object.keys(m.edge ?? {})]);
  } catch {
    return null;
  }
}

/**
 * A server-action request naming an id this build does not have (a tab open across a deploy,
 * or anyone's POST with a made-up Next-Action): answered as Next answers it (404, the header its
 * client router reads, the same body), without Next's warning and stack trace per request. The
 * log gets one line at most per minute, with how many came since the last one (issue 48).
 */
export function unknownActionResponder(log: Logger, everyMs = 60_000) {
  let lastLogged = Number.NEGATIVE_INFINITY;
  let unlogged = 0;
  return (res: { writeHead(status: number, headers: Record<string, string | number>): { end(body: string): void } }) => {
    unlogged++;
    const now = Date.now();
    if (now - lastLogged >= everyMs) {
      log.warn({ count: unlogged }, "server action requests with an unknown id (another deployment's page, or made up) answered 404");
      lastLogged = now;
      unlogged = 0;
    }
    const body = "Server Action unavailable.";
    res
      .writeHead(404, {
        "x-nextjs-action-not-found": "1",
        "content-type": "text/plain; charset=utf-8",
        "content-length": Buffer.byteLength(body),
      })
      .end(body);
  };
}
