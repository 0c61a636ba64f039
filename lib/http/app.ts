import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError } from "@/lib/errors";
import { SERVICE_INSTANCE_ID } from "@/lib/instance";
import { getBrandLogoHandler } from "./brand";
import { CONSOLE_ROUTES } from "./console/routes";
import {
  getAddressCheck,
  getHostedCurrencies,
  getHostedEstimate,
  getHostedOrderStatus,
  postHostedOrder,
  postHostedRefundAddress,
  postHostedSandboxDeposit,
} from "./hosted";
import { hostedOpenApiDocument, openApiDocument } from "./openapi";
import { type ApiRequest, apiRequestOf } from "./request";
import { emptyReply, errorReply, json, type Reply, type ReplyStream } from "./respond";
import { apiRoute, type RequestEnv, type RouteSpec } from "./route";
import { getCurrencies } from "./v1/currencies";
import { getEstimateHandler } from "./v1/estimate";
import { getExchangeEvents } from "./v1/events";
import { getExchange, postExchange, postRefundAddress } from "./v1/exchange";
import { getRangeHandler } from "./v1/range";
import { getSandboxEngineCalls, postSandboxDeposit, postSandboxEngine } from "./v1/sandbox";

// The one router of the JSON APIs, served straight on Node's request and response (server.ts
// hands these paths here and the rest to Next): the v1 API at /api/v1 and its /v1 alias, the
// hosted page's and the widget's API at /api/hosted (docs/widgets.md), and /healthz. No web
// framework: one table of routes, matched by method and a regular expression, each run through
// the one wrapper (lib/http/route.ts, apiRoute) with the auth its entry names. Hono with its
// Node adapter (a Web Request per request: Headers, an AbortSignal, a body stream) took more
// time per /estimate than the estimate itself (bench/README.md).

type Method = "GET" | "POST";

/** An API: where it is served, the prefix its metrics labels use, and whether other sites may call it (CORS). */
interface Api {
  prefixes: readonly string[];
  label: string;
  cors: boolean;
  /** How a request to a path no route of it serves is answered (its 404 or 405): the API's usual caller. */
  auth: RouteSpec["auth"];
}

const V1_API: Api = { prefixes: ["/api/v1", "/v1"], label: "/api/v1", cors: true, auth: "apiKey" };
/** Same-origin only (auth "page"): no CORS, so no preflight either. */
const HOSTED_API: Api = { prefixes: ["/api/hosted"], label: "/api/hosted", cors: false, auth: "page" };
/** The operator's console (lib/http/console): same-origin only, a console session per request. */
const CONSOLE_API: Api = { prefixes: ["/api/console"], label: "/api/console", cors: false, auth: "operator" };
const APIS = [V1_API, HOSTED_API, CONSOLE_API];

interface RouteDef extends RouteSpec {
  api: Api;
  method: Method;
  path: string;
}

const V1 = { api: V1_API, auth: "apiKey" } as const;
const HOSTED = { api: HOSTED_API, auth: "page" } as const;

const ROUTES: RouteDef[] = [
  { ...V1, method: "GET", path: "/currencies", handler: getCurrencies },
  { ...V1, method: "GET", path: "/estimate", handler: getEstimateHandler },
  { ...V1, method: "GET", path: "/range", handler: getRangeHandler },
  { ...V1, method: "POST", path: "/exchange", handler: postExchange, creation: true },
  { ...V1, method: "GET", path: "/exchange/:id", handler: getExchange },
  { ...V1, method: "GET", path: "/exchange/:id/events", handler: getExchangeEvents },
  { ...V1, method: "POST", path: "/exchange/:id/refund-address", handler: postRefundAddress },
  { ...V1, method: "POST", path: "/sandbox/exchange/:id/deposit", handler: postSandboxDeposit },
  { ...V1, method: "GET", path: "/sandbox/exchange/:id/engine-calls", handler: getSandboxEngineCalls },
  { ...V1, method: "POST", path: "/sandbox/engine", handler: postSandboxEngine },
  { api: V1_API, auth: "none", method: "GET", path: "/openapi.json", handler: async () => ({ body: openApiDocument() }) },
  { ...HOSTED, method: "GET", path: "/currencies", handler: getHostedCurrencies },
  { ...HOSTED, method: "GET", path: "/estimate", handler: getHostedEstimate },
  { ...HOSTED, method: "GET", path: "/address", handler: getAddressCheck },
  { ...HOSTED, method: "POST", path: "/orders", handler: postHostedOrder, creation: true },
  { ...HOSTED, method: "GET", path: "/orders/:id", handler: getHostedOrderStatus },
  { ...HOSTED, method: "POST", path: "/orders/:id/deposit", handler: postHostedSandboxDeposit },
  { ...HOSTED, method: "GET", path: "/brand/:id/logo", handler: getBrandLogoHandler },
  { ...HOSTED, method: "POST", path: "/orders/:id/refund-address", handler: postHostedRefundAddress },
  { api: HOSTED_API, auth: "none", method: "GET", path: "/openapi.json", handler: async () => ({ body: hostedOpenApiDocument() }) },
  ...CONSOLE_ROUTES.map((r): RouteDef => ({ ...r, api: CONSOLE_API, auth: r.auth ?? "operator" })),
];

/** The templates a keyed v1 request is logged under (lib/request-log), for the Requests page's route filter. */
export function loggedRouteTemplates(): string[] {
  return [...ROUTES.filter((r) => r.auth === "apiKey").map((r) => `${r.api.label}${r.path}`), "unmatched"];
}

/** "/exchange/:id" matches "/exchange/abc" and "/exchange/abc/", capturing the id. */
const toRegex = (path: string) => new RegExp(`^${path.replace(/\./g, "\\.").replace(/:[a-z]+/g, "([^/]+)")}/?$`);
const PATTERNS = ROUTES.map((r) => ({
  ...r,
  re: toRegex(r.path),
  names: [...r.path.matchAll(/:([a-z]+)/g)].map((m) => m[1]),
  // The request log (lib/request-log) keeps the template, as the metrics label does.
  run: apiRoute({ ...r, logAs: `${r.api.label}${r.path}` }),
}));

/** Anything else under an API's prefix: 405 for a known path, 404 otherwise, through the wrapper like the rest. */
function unmatched(api: Api, req: ApiRequest, env: RequestEnv, where: { rel: string; allowed: Method[] }) {
  return apiRoute({
    // The console's unknown paths answer 404 without asking who calls (its routes each need a permission).
    auth: api.auth === "operator" ? "page" : api.auth,
    logAs: "unmatched",
    handler: async () => {
      if (where.allowed.length) {
        // OPTIONS only where it is answered: the preflight of an API other sites may call.
        const allow = [...new Set([...where.allowed, ...(api.cors ? ["OPTIONS"] : [])])].join(", ");
        throw new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed here; use ${where.allowed.join(" or ")}.`, undefined, {
          Allow: allow,
        });
      }
      throw new AppError("NOT_FOUND", `No route ${req.method} ${where.rel}.`);
    },
  })(req, env);
}

// The v1 API's browser policy (docs/api.md, Browsers): any site may read (GET) and may write
// (POST) with an API key; a write without a key is not offered to other sites. A keyless POST
// with a JSON body needs a preflight, and the preflight of one without X-API-Key is refused, so
// no page can create keyless orders from its visitors' browsers and spend their IP's quota. The
// server refuses such a POST again when it arrives anyway (apiRoute: crossSiteKeyless).
const PREFLIGHT_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  // Last-Event-ID: an EventSource reconnecting to the live status stream sends it (lib/http/v1/events.ts).
  "Access-Control-Allow-Headers": "X-API-Key, Content-Type, Idempotency-Key, If-None-Match, Last-Event-ID",
  "Access-Control-Max-Age": "600",
};
const READ_PREFLIGHT_HEADERS = { ...PREFLIGHT_HEADERS, "Access-Control-Allow-Methods": "GET, OPTIONS" };

/** The preflight's answer: reads for anyone, writes only when the request will carry an API key. */
function preflight(r: ApiRequest): Reply {
  const method = (r.header("access-control-request-method") ?? "").trim().toUpperCase();
  if (method === "" || method === "GET" || method === "HEAD") return emptyReply(204, READ_PREFLIGHT_HEADERS);
  const asked = (r.header("access-control-request-headers") ?? "").toLowerCase().split(",");
  if (asked.some((h) => h.trim() === "x-api-key")) return emptyReply(204, PREFLIGHT_HEADERS);
  // A refusal with no Access-Control-* header: the browser does not send the request.
  const refusal = errorReply(
    new AppError("FORBIDDEN_ORIGIN", "Other sites may call this API's POST endpoints only with an X-API-Key (docs/api.md, Browsers)."),
  );
  for (const name of Object.keys(refusal.headers)) if (name.startsWith("Access-Control-")) delete refusal.headers[name];
  return refusal;
}

const isHealthz = (path: string) => path === "/healthz" || path === "/healthz/";

/**
 * Where a method and a (routed) path go: the API and its prefix, the path under it, with the
 * route that serves it and its captures (HEAD is served as GET), or no route; null when the
 * path is under no API's prefix. The router and the metrics label both ask this.
 */
function findRoute(method: string, path: string) {
  let api: Api | undefined;
  let prefix: string | undefined;
  for (const a of APIS) {
    prefix = a.prefixes.find((p) => path === p || path.startsWith(`${p}/`));
    if (prefix) {
      api = a;
      break;
    }
  }
  if (!api || !prefix) return null;
  const rel = path.slice(prefix.length) || "/";
  const asGet = method === "GET" || method === "HEAD";
  for (const route of PATTERNS) {
    if (route.api !== api || (route.method !== method && !(asGet && route.method === "GET"))) continue;
    const match = route.re.exec(rel);
    if (match) return { api, prefix, rel, route, match };
  }
  return { api, prefix, rel, route: null, match: null };
}

/**
 * The metrics label of an API path: its route template ("/api/v1/exchange/:id",
 * "/api/hosted/orders/:id"), never the raw path (an order id per series would grow without
 * bound). Paths no route matches: "unmatched".
 */
export function apiRouteLabel(method: string, pathname: string): string {
  const path = routedPath(pathname);
  if (isHealthz(path)) return "/healthz";
  const route = findRoute(method, path)?.route;
  return route ? `${route.api.label}${route.path}` : "unmatched";
}

/** A path as routed: percent-decoded where it decodes (as "/api/v1/%63urrencies" was always served). */
function routedPath(path: string): string {
  if (!path.includes("%")) return path;
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

const notFound = () => errorReply(new AppError("NOT_FOUND", "Not found."));

/** The reply to a request server.ts handed to the API. */
async function route(req: IncomingMessage, ipOf: (req: IncomingMessage) => string): Promise<Reply> {
  const r = apiRequestOf(req);
  const path = routedPath(r.path);
  if (isHealthz(path))
    return r.method === "GET" || r.method === "HEAD" ? json({ status: "ok", instance: SERVICE_INSTANCE_ID }) : notFound();
  const hit = findRoute(r.method, path);
  if (!hit) return notFound();
  // CORS preflight, for any path under the prefix of an API other sites may call.
  if (r.method === "OPTIONS" && hit.api.cors) return preflight(r);
  if (hit.route) {
    const { route, match } = hit;
    const params: Record<string, string> = {};
    route.names.forEach((name, i) => {
      params[name] = match[i + 1];
    });
    return route.run(r, { ip: ipOf(req), params });
  }
  // Anything else under the prefix: 405 for a known path, 404 otherwise, in the error shape.
  const allowed = PATTERNS.filter((p) => p.api === hit.api && p.re.test(hit.rel)).map((p) => p.method);
  return unmatched(hit.api, r, { ip: ipOf(req), params: {} }, { rel: `${hit.prefix}${hit.rel}`, allowed });
}

/**
 * Writes a reply in one writeHead + end. A body refused as too large was not read to its
 * end: the rest is read and dropped while the answer goes out (closeAfterAnswer).
 */
function send(req: IncomingMessage, res: ServerResponse, reply: Reply, common: Record<string, string> | undefined) {
  if (res.headersSent || res.destroyed) return reply.stream?.cancel(); // an error after the answer went out, or the client is gone
  // Object.assign, not a spread: V8 builds { ...a, ...b } property by property (9 µs here, Object.assign 0.5).
  res.writeHead(reply.status, common ? Object.assign({}, common, reply.headers) : reply.headers);
  if (reply.stream) return stream(req, res, reply.stream);
  res.end(reply.body ?? undefined);
  if (reply.status === 413 && !req.complete) closeAfterAnswer(req, res);
}

/**
 * A streamed reply's body, after its head (Server-Sent Events): written as the stream gives it,
 * each piece at once (the stream's own heartbeats keep an idle one alive). A HEAD request gets
 * the head alone.
 */
function stream(req: IncomingMessage, res: ServerResponse, body: ReplyStream) {
  if (req.method === "HEAD") {
    res.end();
    return body.cancel();
  }
  res.flushHeaders();
  body.start({
    write: (text) => void res.write(text),
    end: () => void res.end(),
    onClose: (fn) => void res.once("close", fn),
  });
}

/**
 * After answering a request whose body was not read (a 413): the rest of the body is read
 * and dropped, and our side of the connection closes once the answer is out. Closing at
 * once, with the client's data unread, would reset the connection and the client could lose
 * the answer itself; after 5 s the connection goes anyway.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse) {
  req.resume();
  const close = () => {
    req.socket.end();
    setTimeout(() => req.socket.destroy(), 5000).unref();
  };
  if (res.writableFinished) close();
  else res.once("finish", close);
}

/**
 * The request listener of the API and /healthz; `ipOf` gives the client IP (lib/http/client-ip.ts,
 * as server.ts configures it). `common`: headers every answer carries (server.ts: X-Request-Id),
 * written in the same writeHead as the reply's own.
 */
export function createApiHandler(ipOf: (req: IncomingMessage) => string) {
  return (req: IncomingMessage, res: ServerResponse, common?: Record<string, string>): void => {
    route(req, ipOf).then(
      (reply) => send(req, res, reply, common),
      (e: unknown) => send(req, res, errorReply(e, {}, req.headers["x-request-id"] as string | undefined), common),
    );
  };
}
