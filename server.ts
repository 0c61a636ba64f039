import type { IncomingMessage } from "node:http";
import http from "node:http";
import net from "node:net";
import {
  AppError,
  apiRouteLabel,
  clientIpOf,
  closeAfterAnswer,
  closeDb,
  connectRateLimitStore,
  createApiHandler,
  ensureAuthSecret,
  errorAnswer,
  getConfig,
  getDb,
  getLogger,
  migrate,
  nextRequestRefusal,
  observeRequest,
  projectRoot,
  readiness,
  requestIdOf,
  restoreNativeDate,
  serveMetrics,
  serverActionBodyProblem,
  startWorker,
} from "@reseller/lib";
import next from "next";

// One process, one port: the v1 API and /healthz go to lib/http/app.ts, a router on Node's
// own request and response (Next's server costs ~25x more per request), every other path to Next's request handler (the
// dashboard and next-auth). The order worker runs here too unless WORKER_IN_PROCESS=false.
// The service layer comes from "@reseller/lib" (lib/dist/index.mjs), the same file the
// dashboard loads: one instance of every lib module in the process (docs/architecture.md, One copy of the service layer).
// Around both: a request id on every request, metrics, /readyz, and a graceful shutdown
// (docs/deploy.md).

// Everything under /api except next-auth is the JSON API's: unknown paths there answer in
// the API's error shape, not with the dashboard's HTML 404.
const API_PATH = /^\/(?:api(?!\/auth(?:[/?]|$))|v1|healthz)(?:[/?]|$)/;

/** Shutting down: how long a keep-alive connection may stay idle before it is closed. */
const IDLE_GRACE_MS = 1_000;

type Log = ReturnType<typeof getLogger>;

function answer(res: http.ServerResponse, e: AppError, extra: Record<string, string> = {}) {
  const a = errorAnswer(e, "server.ts");
  const body = JSON.stringify(a.body);
  res.writeHead(a.status, {
    ...a.headers,
    ...extra,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

const tooLarge = (max: number) => new AppError("PAYLOAD_TOO_LARGE", `The body is larger than ${max} bytes.`);

/** Refuses a body over the limit (413) without holding more than the limit in memory (see closeAfterAnswer). */
function refuseTooLarge(req: IncomingMessage, res: http.ServerResponse, max: number) {
  answer(res, tooLarge(max));
  closeAfterAnswer(req, res);
}

/**
 * Reads a request body for Next (the dashboard, next-auth), enforcing MAX_BODY_BYTES as it
 * streams in: Next would otherwise buffer any size (a 200 MB sign-in POST was held whole).
 * Returns the body, or null when the request was answered (413) or the client went away
 * (logged at debug: a client's doing, not a server error).
 */
function readBodyForNext(req: IncomingMessage, res: http.ServerResponse, max: number, log: Log): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (v: Buffer | null) => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      resolve(v);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        refuseTooLarge(req, res, max);
        return settle(null);
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => settle(Buffer.concat(chunks)));
    const gone = () => {
      if (settled || req.complete) return;
      log.debug({ url: req.url, received: size }, "client went away before sending its whole request body");
      settle(null);
    };
    req.once("aborted", gone);
    req.once("error", gone);
    req.once("close", gone);
  });
}

/** A request that replays an already-read body (same socket, method, URL and headers). */
function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const r = new http.IncomingMessage(req.socket);
  r.method = req.method;
  r.url = req.url;
  r.httpVersion = req.httpVersion;
  r.httpVersionMajor = req.httpVersionMajor;
  r.httpVersionMinor = req.httpVersionMinor;
  const headers = { ...req.headers, "content-length": String(body.length) };
  delete headers["transfer-encoding"];
  r.headers = headers;
  r.rawHeaders = Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v.flatMap((x) => [k, x]) : [k, String(v)]));
  r.complete = true;
  if (body.length) r.push(body);
  r.push(null);
  return r;
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

async function main() {
  const cfg = getConfig();
  const log = getLogger();
  const { applied } = await migrate(cfg.DATABASE_URL);
  if (applied.length) log.info({ applied }, "database migrated");
  await connectRateLimitStore(3000);
  // The session secret is made here, at start, never by `next build` (lib/auth/secret.ts).
  if (cfg.SERVE_DASHBOARD) ensureAuthSecret();
  if (cfg.sandboxEnabled)
    log.warn(
      { engine: cfg.ENGINE },
      "SANDBOX IS ON: the simulated engine; anyone with a keyless order's id can report its deposit. Set SANDBOX=false or ENGINE=providers for real money",
    );

  let nextHandler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
  if (cfg.SERVE_DASHBOARD) {
    const dev = process.env.NODE_ENV !== "production";
    const nextApp = next({ dev, dir: projectRoot(), hostname: "localhost", port: cfg.PORT });
    await nextApp.prepare();
    nextHandler = nextApp.getRequestHandler();
    // Next wrapped the global Date for a build-time check this app does not use (lib/native-date.ts).
    restoreNativeDate();
  } else {
    const notFound = errorAnswer(new AppError("NOT_FOUND", "This instance serves the API only."), "server.ts");
    const body = JSON.stringify(notFound.body);
    nextHandler = async (_req, res) => void res.writeHead(notFound.status, { "content-type": "application/json; charset=utf-8" }).end(body);
  }

  const apiListener = createApiHandler((req) => clientIpOf(req, cfg.TRUST_PROXY));

  const worker = cfg.WORKER_IN_PROCESS ? startWorker(getDb(), { pollMs: cfg.WORKER_POLL_MS, inProcess: true }) : null;
  let draining = false;
  let listenerClosed = false;
  let inFlight = 0;
  // Each open connection: how many requests it has in flight, and when it was last busy.
  const sockets = new Map<net.Socket, { busy: number; lastActive: number }>();
  const logRequests = log.isLevelEnabled("debug");
  // HSTS when the public origin is https (the TLS proxy in front answers for this origin).
  const hsts = new URL(cfg.APP_URL ?? "http://localhost").protocol === "https:" ? "max-age=31536000; includeSubDomains" : null;

  const server = http.createServer(
    {
      // Slow clients cannot hold a connection for minutes (Node's defaults: 60 s and 300 s).
      headersTimeout: cfg.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: cfg.HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(1000, cfg.HTTP_HEADERS_TIMEOUT_MS),
    },
    (req, res) => {
      const started = performance.now();
      const reqId = requestIdOf(req.headers["x-request-id"]);
      // Set on the request too: the API's error log lines read it from there.
      req.headers["x-request-id"] = reqId;
      // Headers every answer carries. The API writes them with its own in one writeHead: set
      // here with setHeader, they sent every API answer's headers through Node's slower merge.
      const common: Record<string, string> = { "X-Request-Id": reqId };
      if (hsts) common["Strict-Transport-Security"] = hsts;
      // Listener closed: answer, then close the connection, so the client opens its next one elsewhere.
      if (listenerClosed) common.Connection = "close";
      inFlight++;
      const conn = sockets.get(req.socket);
      if (conn) conn.busy++;
      res.once("close", () => {
        inFlight--;
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
        return answer(res, new AppError("INVALID_REQUEST", "The request target must be a path beginning with /."));
      }
      if (API_PATH.test(url)) return apiListener(req, res, common);
      for (const name in common) res.setHeader(name, common[name]);
      if (url === "/readyz") {
        void readiness({ db: getDb(), worker, draining }).then(({ ready, body }) =>
          res
            .writeHead(ready ? 200 : 503, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" })
            .end(JSON.stringify(body)),
        );
        return;
      }
      if (url === "/metrics" && !cfg.METRICS_PORT) return void serveMetrics(req, res);
      // Next only sees the client IP we vouch for (the socket's, or X-Forwarded-For behind TRUST_PROXY).
      req.headers["x-client-ip"] = clientIpOf(req, cfg.TRUST_PROXY);
      // Garbage that Next would answer with a 500 and a stack trace: refused here (lib/http/next-guard.ts).
      const refusal = nextRequestRefusal(req);
      if (refusal) return answer(res, refusal);
      const action = req.method === "POST" && req.headers["next-action"] !== undefined;
      const declared = req.headers["content-length"];
      if (!action && !req.headers["transfer-encoding"] && (declared === undefined || declared === "0")) return void nextHandler(req, res);
      if (Number(declared) > cfg.MAX_BODY_BYTES) return refuseTooLarge(req, res, cfg.MAX_BODY_BYTES);
      void readBodyForNext(req, res, cfg.MAX_BODY_BYTES, log).then((body) => {
        if (!body) return void (res.headersSent || res.destroy());
        const problem = action ? serverActionBodyProblem(req.headers["content-type"], body) : null;
        if (problem) return answer(res, new AppError("INVALID_REQUEST", problem));
        return nextHandler(replay(req, body), res);
      });
    },
  );
  server.keepAliveTimeout = 65_000;
  server.maxConnections = cfg.HTTP_MAX_CONNECTIONS;
  server.on("connection", (socket: net.Socket) => {
    sockets.set(socket, { busy: 0, lastActive: performance.now() });
    socket.once("close", () => sockets.delete(socket));
  });

  const metricsServer = cfg.METRICS_PORT
    ? http.createServer((req, res) => (req.url === "/metrics" ? void serveMetrics(req, res) : void res.writeHead(404).end()))
    : null;

  await new Promise<void>((resolve) => server.listen(cfg.PORT, cfg.HOST, resolve));
  if (metricsServer) await new Promise<void>((resolve) => metricsServer.listen(cfg.METRICS_PORT, cfg.HOST, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : cfg.PORT;
  log.info(
    { port, database: cfg.databaseProvider, engine: cfg.ENGINE, worker: Boolean(worker), metricsPort: cfg.METRICS_PORT || port },
    `listening on http://localhost:${port} (API: http://localhost:${port}/api/v1)`,
  );

  // Graceful shutdown: /readyz turns 503 (requests are still served as usual); after
  // SHUTDOWN_DRAIN_DELAY_MS the listener closes (new connections are refused); requests in flight are answered, each with Connection: close;
  // keep-alive connections left idle are closed after a grace second without a request; the worker
  // finishes its pass (its steps complete and their claims are released); then the database
  // closes. Past SHUTDOWN_TIMEOUT_MS the process exits anyway, with status 1.
  const shutdown = async (signal: string) => {
    if (draining) return;
    draining = true;
    log.info({ signal, inFlight }, "shutting down: draining requests and the worker's pass");
    const workerDone = worker?.stop();
    setTimeout(() => {
      log.error({ inFlight }, "shutdown deadline passed; exiting with work unfinished");
      process.exit(1);
    }, cfg.SHUTDOWN_TIMEOUT_MS);
    // Behind a balancer: keep serving as usual while it notices /readyz is 503; closing the listener while it still sends would reset the connections the kernel
    // has accepted but Node has not yet taken.
    if (cfg.SHUTDOWN_DRAIN_DELAY_MS) await new Promise((r) => setTimeout(r, cfg.SHUTDOWN_DRAIN_DELAY_MS));
    // net.Server's close, not http.Server's: that one also drops idle keep-alive connections
    // at once, which resets a request a client is sending on one at that moment.
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    listenerClosed = true;
    metricsServer?.close();
    // A keep-alive connection is closed by its next answer (Connection: close). One that
    // stays idle is closed only after IDLE_GRACE_MS without a request: closing it at once
    // would reset a request its client may be sending at that very moment.
    while (sockets.size) {
      const now = performance.now();
      for (const [socket, c] of sockets) if (c.busy === 0 && now - c.lastActive > IDLE_GRACE_MS) socket.destroy();
      await new Promise((r) => setTimeout(r, 20));
    }
    await closed;
    await workerDone;
    await closeDb();
    log.info("shut down cleanly");
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
