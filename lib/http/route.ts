import "server-only";
import type { z } from "zod";
import { getAppOrigin } from "@/lib/auth/origin";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { authenticateApiKey, type Caller } from "@/lib/keys/api-keys";
import { type LimitState, limitKeylessCreation, limitRequest, rateLimitHeaders } from "@/lib/ratelimit/limiter";
import type { ApiRequest } from "./request";
import { errorReply, json, type Reply } from "./respond";

// The one wrapper every v1 endpoint goes through: identify the caller (API key or client
// IP), apply the tier's limits, run the handler, and shape every outcome, success or
// failure, with the rate-limit headers. Handlers take an ApiRequest and give a Reply.

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
}

export interface ApiResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** For creations: false when no new order was made (an idempotent replay). */
  created?: boolean;
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

export function apiRoute(fn: (ctx: ApiContext) => Promise<ApiResult>, opts: { creation?: boolean } = {}): ApiHandler {
  return async (req, env) => {
    let limits: LimitState[] = [];
    let refund: (() => Promise<void>) | null = null;
    try {
      const key = req.header("x-api-key");
      let caller: Caller | null = null;
      if (key !== null) {
        try {
          // A cached key comes back as it is: no await, no turn of the microtask queue.
          const found = authenticateApiKey(getDb(), key.trim());
          caller = found instanceof Promise ? await found : found;
        } catch (e) {
          // Bad keys still count against the IP's budget, so guessing keys is rate limited too.
          limits = await limitRequest({ kind: "ip", ip: env.ip });
          throw e;
        }
      }
      limits = await limitRequest(caller ? { kind: "key", apiKeyId: caller.apiKeyId } : { kind: "ip", ip: env.ip });
      if (!caller && crossSiteKeyless(req))
        throw new AppError("FORBIDDEN_ORIGIN", "A POST from another site needs an X-API-Key (docs/api.md, Browsers).");
      if (opts.creation && !caller) {
        const daily = await limitKeylessCreation(env.ip, limits);
        limits = daily.states;
        refund = daily.refund;
      }
      const scope = caller ? `reseller:${caller.resellerId}` : `ip:${env.ip}`;
      const result = await fn({ req, env, caller, scope });
      if (refund && result.created === false) await refund();
      return json(result.body, result.status ?? 200, Object.assign(rateLimitHeaders(limits), result.headers));
    } catch (e) {
      if (refund) await refund();
      // server.ts sets X-Request-Id on every request: an unexpected error's log line carries it.
      return errorReply(e, rateLimitHeaders(limits), req.header("x-request-id"));
    }
  };
}
