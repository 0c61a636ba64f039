import "server-only";
import http from "node:http";
import type net from "node:net";
import { widgetFrameAncestors } from "@/lib/channels/channels";
import type { Config } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { hostedPageFound } from "@/lib/hosted/page";
import type { Logger } from "@/lib/log";
import { hasOperatorToken, observeRequest, serveMetrics } from "@/lib/observability/metrics";
import { runInScope, type Scope } from "@/lib/scope";
import { registerReconcileGauges } from "@/lib/withdrawals/reconcile";
import { apiRouteLabel, closeAfterAnswer, createApiHandler } from "./app";
import { clientIpOf } from "./client-ip";
import { readiness } from "./health";
import { answerHostedNotFound } from "./hosted-404";
import { answerError, type NextHandler, readBodyForNext, refuseTooLarge, replay } from "./next-bridge";
import {
  HOSTED_PAGE_PATH,
  nextRequestRefusal,
  pathDecodes,
  serverActionBodyProblem,
  unknownActionResponder,
  vouchForHostedOrigin,
} from "./next-guard";
import { requestIdOf } from "./request-id";

// The process's one port (server.ts wires it): the v1 API and /healthz go to lib/http/app.ts,
// a router on Node's own request and response (Next's server costs ~25x more per request);
// /readyz and /metrics are answered here; every other path goes to Next's request handler
// (the dashboard and next-auth). Around all of them: a request id on every request, metrics,
// and the bookkeeping of a graceful shutdown (lib/http/shutdown.ts).

/** A widget's page (/w/<widget id>), whose frame-ancestors come from the widget's allowed sites. */
const WIDGET_PATH = /^\/w\/([1-9A-HJ-NP-Za-km-z]{1,64})\/?(?:[?#]|$)/;
/**
 * The Widgets page's actions may carry the brand's logo (at most 64 KB, as base64 in the JSON
 * arguments: app/dashboard/actions.ts, setBrandAction), so they may be this large whatever
 * MAX_BODY_BYTES says; every other request keeps MAX_BODY_BYTES.
 */
const BRAND_ACTION_PATH = /^\/dashboard\/widgets\/?(?:[?#]|$)/;
const BRAND_ACTION_BODY_BYTES = 96 * 1024;

// Everything under /api except next-auth is the JSON API's: unknown paths there answer in
// the API's error shape, not with the dashboard's HTML 404.
const API_PATH = /^\/(?:api(?!\/auth(?:[/?]|$))|v1|healthz)(?:[/?]|$)/;

/** Whether a Host header names an onion service (the request came over Tor to it). */
const onionHost = (host: string | undefined) => /\.onion(?::\d+)?$/i.test(host ?? "");

/** What the listener and the shutdown share. */
export interface ServerState {
  /** Shutting down: /readyz answers 503. */
  draining: boolean;
  /** The listener is closed: every answer closes its connection. */
  listenerClosed: boolean;
  inFlight: number;
  /** Each open connection: how many requests it has in flight, and when it was last busy. */
  sockets: Map<net.Socket, { busy: number; lastActive: number }>;
}

/** The metrics label of any path: API route templates, or one label per kind of dashboard path. */
function routeLabel(method: string, url: string): string {
  const q = url.indexOf("?");
  const pathname = q === -1 ? url : url.slice(0, q);
  if (API_PATH.test(pathname)) return apiRouteLabel(method, pathname);
  if (pathname === "/readyz" || pathname === "/metrics") return pathname;
  if (pathname.startsWith("/_next/")) return "/_next";
  if (pathname.startsWith("/api/auth")) return "/api/auth";
  return "dashboard";
}

export interface AppServerParts {
  cfg: Config;
  log: Logger;
  /** Next's request handler (the dashboard, next-auth), or apiOnlyHandler(). */
  next: NextHandler;
  /** The worker in this process (its liveness makes /readyz), or null when WORKER_IN_PROCESS=false. */
  worker: { fresh: () => boolean } | null;
  /** The production build's server-action ids (lib/http/next-guard.ts, loadServerActionIds); null: Next checks them. */
  serverActions?: Set<string> | null;
  /** The app every request belongs to (lib/scope.ts); the installed one needs none. */
  scope?: Scope;
}

/** The HTTP server of the app's port, not yet listening, and the state its shutdown reads. */
export function createAppServer({ cfg, log, next, worker, serverActions = null, scope }: AppServerParts): {
  server: http.Server;
  state: ServerState;
} {
  registerReconcileGauges();
  const state: ServerState = { draining: false, listenerClosed: false, inFlight: 0, sockets: new Map() };
  const apiListener = createApiHandler((req) => clientIpOf(req, cfg.TRUST_PROXY));
  const logRequests = log.isLevelEnabled("debug");
  const answerUnknownAction = unknownActionResponder(log);
  // HSTS when the public origin is https (the TLS proxy in front answers for this origin).
  const hsts = new URL(cfg.APP_URL ?? "http://localhost").protocol === "https:" ? "max-age=31536000; includeSubDomains" : null;

  const server = http.createServer(
    {
      // Slow clients cannot hold a connection for minutes (Node's defaults: 60 s and 300 s).
      headersTimeout: cfg.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: cfg.HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(1000, cfg.HTTP_HEADERS_TIMEOUT_MS),
    },
    scope ? (req, res) => runInScope(scope, () => onRequest(req, res)) : (req, res) => onRequest(req, res),
  );

  function onRequest(req: http.IncomingMessage, res: http.ServerResponse) {
    const started = performance.now();
    const reqId = requestIdOf(req.headers["x-request-id"]);
    // Set on the request too: the API's error log lines read it from there.
    req.headers["x-request-id"] = reqId;
    // Headers every answer carries. The API writes them with its own in one writeHead: set
    // here with setHeader, they sent every API answer's headers through Node's slower merge.
    const common: Record<string, string> = { "X-Request-Id": reqId };
    if (hsts) common["Strict-Transport-Security"] = hsts;
    // Listener closed: answer, then close the connection, so the client opens its next one elsewhere.
    if (state.listenerClosed) common.Connection = "close";
    state.inFlight++;
    const conn = state.sockets.get(req.socket);
    if (conn) conn.busy++;
    res.once("close", () => {
      state.inFlight--;
      if (conn) {
        conn.busy--;
        conn.lastActive = performance.now();
      }
      const method = req.method ?? "GET";
      const route = routeLabel(method, req.url ?? "/");
      const status = res.writableFinished ? res.statusCode : 499; // 499: the client went away first
      const seconds = (performance.now() - started) / 1000;
      observeRequest(method, route, status, seconds);
      if (logRequests) log.debug({ reqId, method, route, status, ms: Math.round(seconds * 1e4) / 10 }, "request");
    });
    const url = req.url ?? "/";
    // A request target that is not a path ("*", an absolute URL): Next fails on it with a 500.
    // "OPTIONS *" asks what the server as a whole supports.
    if (url[0] !== "/") {
      for (const name in common) res.setHeader(name, common[name]);
      if (url === "*" && req.method === "OPTIONS") return void res.writeHead(204, { Allow: "GET, HEAD, POST, OPTIONS" }).end();
      return answerError(res, new AppError("INVALID_REQUEST", "The request target must be a path beginning with /."));
    }
    if (API_PATH.test(url)) return apiListener(req, res, common);
    for (const name in common) res.setHeader(name, common[name]);
    if (url === "/readyz") {
      void readiness({ db: getDb(), worker, draining: state.draining, detail: hasOperatorToken(req) }).then(({ ready, body }) =>
        res
          .writeHead(ready ? 200 : 503, {
            "content-type": "application/json; charset=utf-8",
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          })
          .end(JSON.stringify(body)),
      );
      return;
    }
    if (url === "/metrics" && !cfg.METRICS_PORT) return void serveMetrics(req, res);
    // The end user's pages offer the onion service to Tor Browser (docs/deploy.md, Onion service),
    // unless the request already came to it.
    if (cfg.ONION_ADDRESS && HOSTED_PAGE_PATH.test(url) && !onionHost(req.headers.host))
      res.setHeader("Onion-Location", `http://${cfg.ONION_ADDRESS}${url}`);
    // Next only sees the client IP we vouch for (the socket's, or X-Forwarded-For behind TRUST_PROXY).
    req.headers["x-client-ip"] = clientIpOf(req, cfg.TRUST_PROXY);
    // A widget's page may be framed by the sites its reseller listed: proxy.ts puts this
    // header in the CSP's frame-ancestors. Next sees it only as set here.
    delete req.headers["x-frame-ancestors"];
    // An end user's page that names nothing (an unknown reseller, widget or order, a wrong
    // secret): the hosted 404, which needs no JavaScript (lib/http/hosted-404.ts).
    if ((req.method === "GET" || req.method === "HEAD") && HOSTED_PAGE_PATH.test(url) && pathDecodes(url)) {
      void hostedPageFound(getDb(), url).then(
        (found) => (found ? afterHostedCheck(req, res, url) : answerHostedNotFound(req, res)),
        (e: unknown) => {
          log.error({ err: e }, "hosted page lookup failed");
          answerError(res, new AppError("INTERNAL_ERROR", "Internal error."));
        },
      );
      return;
    }
    afterHostedCheck(req, res, url);
  }

  function afterHostedCheck(req: http.IncomingMessage, res: http.ServerResponse, url: string) {
    const widget = WIDGET_PATH.exec(url);
    if (!widget) return toNext(req, res);
    void widgetFrameAncestors(getDb(), widget[1]).then(
      (ancestors) => {
        req.headers["x-frame-ancestors"] = ancestors;
        toNext(req, res);
      },
      (e: unknown) => {
        log.error({ err: e }, "widget frame-ancestors lookup failed");
        answerError(res, new AppError("INTERNAL_ERROR", "Internal error."));
      },
    );
  }

  /** A request for Next: refused when Next would fail on it, its body read within the limit, then Next's handler. */
  function toNext(req: http.IncomingMessage, res: http.ServerResponse) {
    // A hosted page's own form post, sent with `Origin: null` under its no-referrer policy.
    vouchForHostedOrigin(req);
    // Garbage that Next would answer with a 500 and a stack trace: refused here (lib/http/next-guard.ts).
    const refusal = nextRequestRefusal(req);
    if (refusal) return answerError(res, refusal);
    const action = req.method === "POST" && req.headers["next-action"] !== undefined;
    const declared = req.headers["content-length"];
    const limit =
      action && BRAND_ACTION_PATH.test(req.url ?? "") ? Math.max(cfg.MAX_BODY_BYTES, BRAND_ACTION_BODY_BYTES) : cfg.MAX_BODY_BYTES;
    // First: a declared size over the limit is refused before anything reads the body.
    if (Number(declared) > limit) return refuseTooLarge(req, res, limit);
    if (action && serverActions && !serverActions.has(String(req.headers["next-action"]))) {
      answerUnknownAction(res);
      // A body of declared size (within the limit) is read and dropped so the connection stays
      // usable; one of no declared size could be endless: the connection closes after the answer.
      if (declared === undefined) closeAfterAnswer(req, res);
      else req.resume();
      return;
    }
    if (!action && !req.headers["transfer-encoding"] && (declared === undefined || declared === "0")) return void next(req, res);
    void readBodyForNext(req, res, limit, log).then((body) => {
      if (!body) return void (res.headersSent || res.destroy());
      const problem = action ? serverActionBodyProblem(req.headers["content-type"], body, req.url) : null;
      if (problem) return answerError(res, new AppError("INVALID_REQUEST", problem));
      return next(replay(req, body), res);
    });
  }
  server.keepAliveTimeout = 65_000;
  server.maxConnections = cfg.HTTP_MAX_CONNECTIONS;
  server.on("connection", (socket: net.Socket) => {
    state.sockets.set(socket, { busy: 0, lastActive: performance.now() });
    socket.once("close", () => state.sockets.delete(socket));
  });
  return { server, state };
}

/** Starts `server` listening; resolves with the port it got (PORT=0 picks a free one). */
export async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    // A port already taken (EADDRINUSE) rejects; a program then exits with the error.
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === "object" && address ? address.port : port;
}
