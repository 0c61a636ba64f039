import "server-only";
import { z } from "zod";
import { getAppOrigin } from "@/lib/auth/origin";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import {
  checkAddress,
  createHostedOrder,
  getHostedOrder,
  hostedCurrencies,
  hostedEstimate,
  hostedSandboxDeposit,
} from "@/lib/hosted/hosted";
import { stringifyJson } from "@/lib/money/json-number";
import { pollAfterSeconds } from "@/lib/orders/poll-hint";
import { type LimitState, limitKeylessCreation, limitRequest, rateLimitHeaders } from "@/lib/ratelimit/limiter";
import { etagOf, noneMatchHits } from "./etag";
import type { ApiRequest } from "./request";
import { emptyReply, errorReply, json, RawJson, type Reply, readJsonBody } from "./respond";
import { parseWith } from "./route";

// The hosted page's and the widget's own JSON API, under /api/hosted (docs/widgets.md). It is
// for those pages only: a request must come from the app's own origin (Sec-Fetch-Site:
// same-origin, or without it an Origin header naming APP_URL), answers carry no CORS headers,
// and every request counts against the client IP's limits of the keyless tier (orders against
// its daily orders). No key or secret of the reseller is ever needed or shown: the page names
// its reseller or widget by public id, and the order's status needs the link's own secret.

export const HOSTED_PREFIX = "/api/hosted";

interface HostedCtx {
  req: ApiRequest;
  ip: string;
  params: Record<string, string>;
}
type HostedHandler = (ctx: HostedCtx) => Promise<{ status?: number; body: unknown; headers?: Record<string, string> }>;

/** Whether the request comes from a page of the app itself, as the browser says. */
export function fromOwnPage(req: ApiRequest): boolean {
  const site = req.header("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = req.header("origin");
  return origin !== null && origin === getAppOrigin().origin;
}

/** Without the v1 API's CORS headers: no other site may read these answers. */
function withoutCors(r: Reply): Reply {
  delete r.headers["Access-Control-Allow-Origin"];
  delete r.headers["Access-Control-Expose-Headers"];
  return r;
}

const reply = (body: unknown, status: number, headers: Record<string, string>): Reply =>
  withoutCors(status === 304 ? emptyReply(304, headers) : json(body, status, headers));

function hostedRoute(fn: HostedHandler, opts: { creation?: boolean } = {}) {
  return async (ctx: HostedCtx): Promise<Reply> => {
    let limits: LimitState[] = [];
    let refund: (() => Promise<void>) | null = null;
    const base = { "Cache-Control": "no-store" };
    try {
      if (!fromOwnPage(ctx.req))
        throw new AppError("FORBIDDEN_ORIGIN", "This API answers the exchange page's own requests only; use the v1 API.");
      limits = await limitRequest({ kind: "ip", ip: ctx.ip });
      if (opts.creation) {
        const daily = await limitKeylessCreation(ctx.ip, limits);
        limits = daily.states;
        refund = daily.refund;
      }
      const result = await fn(ctx);
      return reply(result.body, result.status ?? 200, Object.assign(base, rateLimitHeaders(limits), result.headers));
    } catch (e) {
      if (refund) await refund();
      return withoutCors(errorReply(e, Object.assign(base, rateLimitHeaders(limits)), ctx.req.header("x-request-id")));
    }
  };
}

const id = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{1,64}$/, "is not an id");
const selector = { r: id.optional(), w: id.optional() };
const amount = z.string().trim().min(1).max(64);
const estimateQuery = z
  .object({
    ...selector,
    from: z.string().min(1).max(20),
    to: z.string().min(1).max(20),
    amount: amount.optional(),
    toAmount: amount.optional(),
    rateType: z.enum(["floating", "fixed"]).default("floating"),
  })
  .refine((q) => (q.amount === undefined) !== (q.toAmount === undefined), { message: "Give either amount or toAmount", path: ["amount"] });
const addressQuery = z.object({
  currency: z.string().min(1).max(20),
  address: z.string().max(200),
  extraId: z.string().max(100).optional(),
});
const optionalText = z.string().max(200).nullish();
const orderBody = z
  .object({
    ...selector,
    from: z.string().min(1).max(20),
    to: z.string().min(1).max(20),
    amount: amount.optional(),
    toAmount: amount.optional(),
    rateType: z.enum(["floating", "fixed"]).default("floating"),
    address: z.string().min(1).max(200),
    extraId: optionalText,
    refundAddress: optionalText,
    refundExtraId: optionalText,
  })
  .strict()
  .refine((q) => (q.amount === undefined) !== (q.toAmount === undefined), { message: "Give either amount or toAmount", path: ["amount"] })
  .refine((q) => q.toAmount === undefined || q.rateType === "fixed", {
    message: "An amount to receive needs a fixed rate",
    path: ["rateType"],
  });

const queryOf = (req: ApiRequest) => Object.fromEntries(req.query.entries());
/** A JSON number in the body is read from its exact text (lossless-json), as a decimal string. */
const exactStrings = (body: unknown) =>
  body && typeof body === "object" && !Array.isArray(body)
    ? Object.fromEntries(
        Object.entries(body).map(([k, v]) => [k, v !== null && typeof v === "object" && "isLosslessNumber" in v ? String(v) : v]),
      )
    : body;

const tokenOf = (req: ApiRequest) => req.header("x-order-token");

const getCurrencies = hostedRoute(async () => ({
  body: { currencies: hostedCurrencies() },
  headers: { "Cache-Control": "private, max-age=60" },
}));

const getEstimate = hostedRoute(async ({ req, ip }) => {
  const q = parseWith(estimateQuery, queryOf(req));
  return {
    body: await hostedEstimate(getDb(), {
      sel: { reseller: q.r, widget: q.w },
      from: q.from,
      to: q.to,
      amount: q.amount,
      toAmount: q.toAmount,
      rateType: q.rateType,
      clientIp: ip,
    }),
  };
});

const getAddressCheck = hostedRoute(async ({ req }) => ({ body: checkAddress(parseWith(addressQuery, queryOf(req))) }));

const postOrder = hostedRoute(
  async ({ req, ip }) => {
    const b = parseWith(orderBody, exactStrings(await readJsonBody(req, getConfig().MAX_BODY_BYTES)));
    const { token, order } = await createHostedOrder(getDb(), {
      sel: { reseller: b.r, widget: b.w },
      input: {
        from: b.from,
        to: b.to,
        amount: b.amount,
        toAmount: b.toAmount,
        rateType: b.rateType,
        address: b.address,
        extraId: b.extraId,
        refundAddress: b.refundAddress,
        refundExtraId: b.refundExtraId,
      },
      clientIp: ip,
    });
    return { status: 201, body: { token, statusPath: `/o/${order.id}#t=${token}`, order } };
  },
  { creation: true },
);

/** The status: ETag (If-None-Match answers 304 while nothing changed) and Poll-After, as GET /exchange/{id}. */
const getOrder = hostedRoute(async ({ req, params }) => {
  const { order, view } = await getHostedOrder(getDb(), { orderId: params.id ?? "", token: tokenOf(req) });
  const text = stringifyJson(view);
  const etag = etagOf(text);
  const headers: Record<string, string> = { ETag: etag, "Cache-Control": "private, no-cache" };
  const poll = pollAfterSeconds(order);
  if (poll !== null) headers["Poll-After"] = String(poll);
  if (noneMatchHits(req.header("if-none-match"), etag)) return { status: 304, body: null, headers };
  return { body: new RawJson(text), headers };
});

const postSandboxDeposit = hostedRoute(async ({ req, params }) => ({
  body: await hostedSandboxDeposit(getDb(), { orderId: params.id ?? "", token: tokenOf(req) }),
}));

const ROUTES: { method: string; re: RegExp; handler: (ctx: HostedCtx) => Promise<Reply>; label: string }[] = [
  { method: "GET", re: /^\/currencies\/?$/, handler: getCurrencies, label: "/currencies" },
  { method: "GET", re: /^\/estimate\/?$/, handler: getEstimate, label: "/estimate" },
  { method: "GET", re: /^\/address\/?$/, handler: getAddressCheck, label: "/address" },
  { method: "POST", re: /^\/orders\/?$/, handler: postOrder, label: "/orders" },
  { method: "GET", re: /^\/orders\/([0-9a-zA-Z]{1,64})\/?$/, handler: getOrder, label: "/orders/:id" },
  { method: "POST", re: /^\/orders\/([0-9a-zA-Z]{1,64})\/deposit\/?$/, handler: postSandboxDeposit, label: "/orders/:id/deposit" },
];

export const isHostedPath = (path: string) => path === HOSTED_PREFIX || path.startsWith(`${HOSTED_PREFIX}/`);

function match(method: string, path: string) {
  const rel = path.slice(HOSTED_PREFIX.length) || "/";
  const asGet = method === "GET" || method === "HEAD";
  for (const r of ROUTES) {
    if (r.method !== method && !(asGet && r.method === "GET")) continue;
    const m = r.re.exec(rel);
    if (m) return { route: r, id: m[1] };
  }
  return null;
}

/** The metrics label of a hosted path: its template, never the raw path. */
export function hostedRouteLabel(method: string, path: string): string {
  const hit = match(method, path);
  return hit ? `${HOSTED_PREFIX}${hit.route.label}` : "unmatched";
}

/** The reply to a request under /api/hosted. */
export async function routeHosted(req: ApiRequest, path: string, ip: string): Promise<Reply> {
  const hit = match(req.method, path);
  if (!hit) {
    const known = ROUTES.some((r) => r.re.test(path.slice(HOSTED_PREFIX.length) || "/"));
    return withoutCors(
      errorReply(
        known
          ? new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed here.`)
          : new AppError("NOT_FOUND", `No route ${req.method} ${path}.`),
      ),
    );
  }
  return hit.route.handler({ req, ip, params: hit.id ? { id: hit.id } : {} });
}
