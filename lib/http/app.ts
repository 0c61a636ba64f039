import { Hono } from "hono";
import { AppError } from "@/lib/errors";
import { openApiDocument } from "./openapi";
import { emptyResponse, errorResponse, json } from "./respond";
import { type ApiHandler, apiRoute, type RequestEnv } from "./route";
import { getCurrencies } from "./v1/currencies";
import { getEstimateHandler } from "./v1/estimate";
import { getExchange, postExchange } from "./v1/exchange";
import { getSandboxEngineCalls, postSandboxDeposit, postSandboxEngine } from "./v1/sandbox";

// The v1 API on Hono: a light router in front of Web-standard handlers, served at
// /api/v1 and at the /v1 alias. server.ts hands these paths here and the rest to Next.

type Method = "GET" | "POST";
interface RouteDef {
  method: Method;
  path: string;
  handler: ApiHandler;
}

const ROUTES: RouteDef[] = [
  { method: "GET", path: "/currencies", handler: getCurrencies },
  { method: "GET", path: "/estimate", handler: getEstimateHandler },
  { method: "POST", path: "/exchange", handler: postExchange },
  { method: "GET", path: "/exchange/:id", handler: getExchange },
  { method: "POST", path: "/sandbox/exchange/:id/deposit", handler: postSandboxDeposit },
  { method: "GET", path: "/sandbox/exchange/:id/engine-calls", handler: getSandboxEngineCalls },
  { method: "POST", path: "/sandbox/engine", handler: postSandboxEngine },
  { method: "GET", path: "/openapi.json", handler: async () => json(openApiDocument()) },
];

const toRegex = (path: string) => new RegExp(`^${path.replace(/:[a-z]+/g, "[^/]+")}/?$`);
const PATTERNS = ROUTES.map((r) => ({ ...r, re: toRegex(r.path) }));

/** Anything else under the prefix: 405 for a known path, 404 otherwise, rate limited like the rest. */
function unmatched(req: Request, env: RequestEnv, where: { rel: string; allowed: Method[] }) {
  return apiRoute(async () => {
    if (where.allowed.length) {
      const allow = [...new Set([...where.allowed, "OPTIONS"])].join(", ");
      throw new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed here; use ${where.allowed.join(" or ")}.`, undefined, {
        Allow: allow,
      });
    }
    throw new AppError("NOT_FOUND", `No route ${req.method} ${where.rel}.`);
  })(req, env);
}

const PREFLIGHT_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
  "Access-Control-Allow-Headers": "X-API-Key, Content-Type, Idempotency-Key",
  "Access-Control-Max-Age": "600",
};

export const API_PREFIXES = ["/api/v1", "/v1"] as const;

/** The client IP of a request, from the adapter's env (server.ts passes lib/http/client-ip.ts). */
export type ClientIp = (req: Request, env: unknown) => string;

export function createApiApp(ipOf: ClientIp) {
  const app = new Hono();

  app.get("/healthz", () => json({ status: "ok" }));

  for (const prefix of API_PREFIXES) {
    const v1 = new Hono();
    // CORS preflight. (Not hono/cors: it re-wraps every response, which pushes
    // @hono/node-server off its fast path and costs ~40% of throughput.)
    v1.options("*", () => emptyResponse(204, PREFLIGHT_HEADERS));
    for (const r of ROUTES) {
      const run = (c: { req: { raw: Request; param: () => Record<string, string> }; env: unknown }) => {
        const env: RequestEnv = { ip: ipOf(c.req.raw, c.env), params: c.req.param() };
        return r.handler(c.req.raw, env);
      };
      if (r.method === "GET") v1.get(r.path, run);
      else v1.post(r.path, run);
    }
    // Anything else under the prefix: 405 for a known path, 404 otherwise, in the error shape.
    v1.all("*", (c) => {
      const rel = c.req.path.slice(prefix.length) || "/";
      const allowed = PATTERNS.filter((p) => p.re.test(rel)).map((p) => p.method);
      return unmatched(c.req.raw, { ip: ipOf(c.req.raw, c.env), params: {} }, { rel: `${prefix}${rel}`, allowed });
    });
    app.route(prefix, v1);
  }
  app.onError((e) => errorResponse(e));
  app.notFound(() => errorResponse(new AppError("NOT_FOUND", "Not found.")));
  return app;
}
