import type { IncomingMessage } from "node:http";
import http from "node:http";
import { getRequestListener } from "@hono/node-server";
import next from "next";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { createApiApp } from "@/lib/http/app";
import { clientIpOf } from "@/lib/http/client-ip";
import { setResponseClass } from "@/lib/http/respond";
import { getLogger } from "@/lib/log";
import { projectRoot } from "@/lib/root";
import { startWorker } from "@/lib/worker/run-worker";

// One process, one port: the v1 API and /healthz go to a light Hono router (Next's own
// server costs ~25x more per request), every other path to Next's request handler (the
// dashboard and next-auth). The order worker runs here too unless WORKER_IN_PROCESS=false.

// Everything under /api except next-auth is the JSON API's: unknown paths there answer in
// the API's error shape, not with the dashboard's HTML 404.
const API_PATH = /^\/(?:api(?!\/auth(?:[/?]|$))|v1|healthz)(?:[/?]|$)/;

/**
 * @hono/node-server's listener with its lightweight Response, without leaving that class
 * as the global Response (Next's route handlers reject it): see setResponseClass.
 */
function fastApiListener(fetch: Parameters<typeof getRequestListener>[0]) {
  const NativeRequest = globalThis.Request;
  const NativeResponse = globalThis.Response;
  const listener = getRequestListener(fetch); // installs the lightweight Request/Response globally
  setResponseClass(globalThis.Response);
  Object.defineProperty(globalThis, "Request", { value: NativeRequest, writable: true, configurable: true });
  Object.defineProperty(globalThis, "Response", { value: NativeResponse, writable: true, configurable: true });
  return listener;
}

async function main() {
  const cfg = getConfig();
  const log = getLogger();
  const { applied } = await migrate(cfg.DATABASE_URL);
  if (applied.length) log.info({ applied }, "database migrated");

  let nextHandler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
  if (cfg.SERVE_DASHBOARD) {
    const dev = process.env.NODE_ENV !== "production";
    const nextApp = next({ dev, dir: projectRoot(), hostname: "localhost", port: cfg.PORT });
    await nextApp.prepare();
    nextHandler = nextApp.getRequestHandler();
  } else {
    const notFound = new Response(JSON.stringify({ error: { code: "NOT_FOUND", message: "This instance serves the API only." } }));
    const body = await notFound.text();
    nextHandler = async (_req, res) => void res.writeHead(404, { "content-type": "application/json" }).end(body);
  }

  const api = createApiApp((_req, env) => clientIpOf((env as { incoming: IncomingMessage }).incoming, cfg.TRUST_PROXY));
  const apiListener = fastApiListener(api.fetch);

  const server = http.createServer((req, res) => {
    if (API_PATH.test(req.url ?? "/")) return void apiListener(req, res);
    // Next only sees the client IP we vouch for (the socket's, or X-Forwarded-For behind TRUST_PROXY).
    req.headers["x-client-ip"] = clientIpOf(req, cfg.TRUST_PROXY);
    void nextHandler(req, res);
  });
  server.keepAliveTimeout = 65_000;

  const worker = cfg.WORKER_IN_PROCESS ? startWorker(getDb(), { pollMs: cfg.WORKER_POLL_MS }) : null;

  await new Promise<void>((resolve) => server.listen(cfg.PORT, cfg.HOST, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : cfg.PORT;
  log.info(
    { port, database: cfg.databaseProvider, engine: cfg.ENGINE, worker: Boolean(worker) },
    `listening on http://localhost:${port} (API: http://localhost:${port}/api/v1)`,
  );

  const shutdown = async (signal: string) => {
    log.info({ signal }, "shutting down");
    server.close();
    await worker?.stop();
    await getDb().$disconnect();
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
