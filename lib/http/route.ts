import "server-only";
import type { z } from "zod";
import { getAppOrigin } from "@/lib/auth/origin";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { authenticateApiKey, type Caller } from "@/lib/keys/api-keys";
import { can, type OperatorAction } from "@/lib/operators/roles";
import { OPERATOR_COOKIE, type OperatorSession, operatorOfSession } from "@/lib/operators/sessions";
import { type LimitState, limitKeylessCreation, limitRequest, rateLimitHeaders } from "@/lib/ratelimit/limiter";
import { logRequest } from "@/lib/request-log/log";
import { maskPath } from "@/lib/request-log/mask";
import type { ApiRequest } from "./request";
import { errorReply, json, type Reply, type ReplyStream, streamed } from "./respond";

// The one wrapper every endpoint of the v1 and hosted APIs goes through (lib/http/app.ts
// applies it to each route of its table): identify the caller as the route's `auth` says,
// apply the tier's limits, run the handler, and shape every outcome, success or failure,
// with the rate-limit headers. Handlers take an ApiContext and give an ApiResult.

export interface RequestEnv {
  ip: string;
  params: Record<string, string>;
}

export type ApiHandler = (req: ApiRequest, env: RequestEnv) => Promise<Reply>;

export interface ApiContext {
  req: ApiRequest;
  env: RequestEnv;
  caller: Caller | null;
  /** Who the caller is, for idempotency keys and sandbox switches. */
  scope: string;
  /** The console's routes (auth "operator"): the signed-in operator's session. */
  operator: OperatorSession | null;
}

export interface ApiResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** For creations: false when no new order was made (an idempotent replay). */
  created?: boolean;
  /**
   * A streamed answer (text/event-stream): `body` is then its content type, and the stream is
   * written after the head, which carries the rate-limit headers as any answer's.
   */
  stream?: ReplyStream;
}

/** What a route does once its caller is known and within its limits. */
export type RouteHandler = (ctx: ApiContext) => Promise<ApiResult>;

/**
 * Who may call a route, and how the caller is known:
 * - "apiKey" (the v1 API): an optional X-API-Key, its limits and markup; without one, the
 *   client IP's keyless tier, and no keyless POST from another site (crossSiteKeyless).
 * - "page" (the hosted page's API): only the app's own pages (fromOwnPage), on the client IP's
 *   keyless tier; no key is read. Its answers carry no CORS headers (no other site may read
 *   them) and are not stored by caches unless the handler says otherwise.
 * - "operator" (the operator's console API, lib/http/console): only the app's own pages, with
 *   a current console session (its cookie) whose role may do the route's `permission`; the
 *   client IP's limits. No CORS, never cached.
 * - "none" (the OpenAPI documents): anyone, without limits.
 */
export type RouteAuth = "apiKey" | "page" | "operator" | "none";

export interface RouteSpec {
  auth: RouteAuth;
  /** Creates an order: a keyless caller's daily orders count it (refunded when it fails or replays). */
  creation?: boolean;
  /** auth "operator": what the operator's role must allow (lib/operators/roles.ts). */
  permission?: OperatorAction;
  handler: RouteHandler;
  /**
   * auth "apiKey": the route's template as the request log keeps it (/api/v1/exchange/:id, or
   * "unmatched"); each request made with an API key is logged under it (lib/request-log).
   */
  logAs?: string;
}

export function parseWith<S extends z.ZodType>(schema: S, data: unknown): z.infer<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  const first = issues[0];
  throw new AppError("INVALID_REQUEST", first.path ? `${first.path}: ${first.message}` : first.message, { issues });
}

/**
 * A POST without an API key sent by a browser from another site (its Origin names another
 * origin, or "null"). Browsers refuse to send one after the preflight (lib/http/app.ts); this
 * refuses it when it comes anyway (an old browser, a cached preflight, a form), so a foreign
 * page cannot spend its visitors' keyless quota. Clients that are not browsers send no Origin.
 */
function crossSiteKeyless(req: ApiRequest): boolean {
  if (req.method !== "POST") return false;
  const origin = req.header("origin");
  if (origin !== null && origin !== getAppOrigin().origin) return true;
  return req.header("sec-fetch-site") === "cross-site";
}

/** Whether the request comes from a page of the app itself, as the browser says. */
export function fromOwnPage(req: ApiRequest): boolean {
  const site = req.header("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = req.header("origin");
  return origin !== null && origin === getAppOrigin().origin;
}

/** Without the CORS headers json() puts on every answer: no other site may read it. */
function withoutCors(r: Reply): Reply {
  delete r.headers["Access-Control-Allow-Origin"];
  delete r.headers["Access-Control-Expose-Headers"];
  return r;
}

/** A cookie's value from the Cookie header, or null. */
export function cookieOf(req: ApiRequest, name: string): string | null {
  const header = req.header("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * The console's caller (already known to come from the app's own pages): signed in, and allowed
 * `permission`. A signed-in operator's requests count against a budget of its own (the key
 * tier's, RATE_LIMIT_KEY_PER_MINUTE), not its IP's keyless one, which the console's polling
 * pages would use up beside the shoppers of a shared address; a request without a session
 * counts against its IP, so guessing cookies is limited too.
 */
async function identifyOperator(
  req: ApiRequest,
  env: RequestEnv,
  permission: OperatorAction | undefined,
  counted: (l: LimitState[]) => void,
): Promise<OperatorSession> {
  const session = await operatorOfSession(getDb(), cookieOf(req, OPERATOR_COOKIE));
  counted(await limitRequest(session ? { kind: "key", apiKeyId: `operator:${session.operator.id}` } : { kind: "ip", ip: env.ip }));
  if (!session) throw new AppError("UNAUTHORIZED", "Sign in to the console first.");
  if (!permission || !can(session.operator.role, permission))
    throw new AppError("FORBIDDEN", `Your role (${session.operator.role}) may not do this.`, { permission: permission ?? null });
  return session;
}

/** The caller (null: keyless) and the limits its request counted against. */
async function identify(
  req: ApiRequest,
  env: RequestEnv,
  auth: RouteAuth,
  counted: (l: LimitState[]) => void,
  known: { caller: Caller | null },
): Promise<Caller | null> {
  if (auth === "none") return null;
  if (auth === "page" || auth === "operator") {
    if (!fromOwnPage(req))
      throw new AppError("FORBIDDEN_ORIGIN", "This API answers the exchange page's own requests only; use the v1 API.");
    // The console's requests are counted once its caller is known (identifyOperator).
    if (auth === "page") counted(await limitRequest({ kind: "ip", ip: env.ip }));
    return null;
  }
  const key = req.header("x-api-key");
  let caller: Caller | null = null;
  if (key !== null) {
    try {
      // A cached key comes back as it is: no await, no turn of the microtask queue.
      const found = authenticateApiKey(getDb(), key.trim());
      caller = found instanceof Promise ? await found : found;
      // Known before its limits are counted: a request refused by them (429) is the key's too.
      known.caller = caller;
    } catch (e) {
      // Bad keys still count against the IP's budget, so guessing keys is rate limited too.
      counted(await limitRequest({ kind: "ip", ip: env.ip }));
      throw e;
    }
  }
  counted(await limitRequest(caller ? { kind: "key", apiKeyId: caller.apiKeyId } : { kind: "ip", ip: env.ip }));
  if (!caller && crossSiteKeyless(req))
    throw new AppError("FORBIDDEN_ORIGIN", "A POST from another site needs an X-API-Key (docs/api.md, Browsers).");
  return caller;
}

/**
 * A keyed request's row for the request log (lib/request-log): queued in memory here, written
 * later in a batch, off the request path. Its latency is the wrapper's: from the routed
 * request to its answer made (the body read and the handler included; not the network).
 */
function logKeyed(req: ApiRequest, caller: Caller, route: string, reply: Reply, error: unknown, started: number, at: number) {
  // A function: with the log off (REQUEST_LOG_ENABLED=false) the row is never made.
  logRequest(() => ({
    resellerId: caller.resellerId,
    keyId: caller.apiKeyId,
    at,
    method: req.method,
    route,
    path: maskPath(req.path),
    status: reply.status,
    errorCode: error === null ? null : error instanceof AppError ? error.code : "INTERNAL_ERROR",
    latencyMs: Math.round(performance.now() - started),
    requestId: req.header("x-request-id") ?? "",
  }));
}

export function apiRoute(spec: RouteSpec): ApiHandler {
  const { auth, creation, handler, permission } = spec;
  const page = auth === "page" || auth === "operator";
  const shape = page ? withoutCors : (r: Reply) => r;
  const logAs = auth === "apiKey" ? (spec.logAs ?? null) : null;
  return async (req, env) => {
    let limits: LimitState[] = [];
    let refund: (() => Promise<void>) | null = null;
    const known: { caller: Caller | null } = { caller: null };
    const started = logAs === null ? 0 : performance.now();
    const at = logAs === null ? 0 : Date.now();
    let error: unknown = null;
    let reply: Reply;
    try {
      const caller = await identify(
        req,
        env,
        auth,
        (l) => {
          limits = l;
        },
        known,
      );
      if (creation && !caller) {
        const daily = await limitKeylessCreation(env.ip, limits);
        limits = daily.states;
        refund = daily.refund;
      }
      const operator =
        auth === "operator"
          ? await identifyOperator(req, env, permission, (l) => {
              limits = l;
            })
          : null;
      const scope = caller ? `reseller:${caller.resellerId}` : operator ? `operator:${operator.operator.id}` : `ip:${env.ip}`;
      const result = await handler({ req, env, caller, scope, operator });
      if (refund && result.created === false) await refund();
      const headers: Record<string, string> = page ? { "Cache-Control": "no-store" } : {};
      Object.assign(headers, rateLimitHeaders(limits), result.headers);
      reply = shape(
        result.stream
          ? streamed(result.stream, String(result.body), result.status ?? 200, headers)
          : json(result.body, result.status ?? 200, headers),
      );
    } catch (e) {
      if (refund) await refund();
      error = e;
      // server.ts sets X-Request-Id on every request: an unexpected error's log line carries it.
      const headers = page ? { "Cache-Control": "no-store" } : {};
      reply = shape(errorReply(e, Object.assign(headers, rateLimitHeaders(limits)), req.header("x-request-id")));
    }
    if (logAs !== null && known.caller !== null) logKeyed(req, known.caller, logAs, reply, error, started, at);
    return reply;
  };
}
