import type { IncomingMessage } from "node:http";
import http from "node:http";
import { getRequestListener } from "@hono/node-server";
import {
  AppError,
  clientIpOf,
  createApiApp,
  errorAnswer,
  getConfig,
  getDb,
  getLogger,
  migrate,
  projectRoot,
  startWorker,
} from "@reseller/lib";
import next from "next";

// One process, one port: the v1 API and /healthz go to a light Hono router (Next's own
// server costs ~25x more per request), every other path to Next's request handler (the
// dashboard and next-auth). The order worker runs here too unless WORKER_IN_PROCESS=false.
// The service layer comes from "@reseller/lib" (lib/dist/index.mjs), the same file the
// dashboard loads: one instance of every lib module in the process (README, Architecture).

// Everything under /api except next-auth is the JSON API's: unknown paths there answer in
// the API's error shape, not with the dashboard's HTML 404.
const API_PATH = /^\/(?:api(?!\/auth(?:[/?]|$))|v1|healthz)(?:[/?]|$)/;

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
    const notFound = errorAnswer(new AppError("NOT_FOUND", "This instance serves the API only."), "server.ts");
    const body = JSON.stringify(notFound.body);
    nextHandler = async (_req, res) => void res.writeHead(notFound.status, { "content-type": "application/json; charset=utf-8" }).end(body);
  }

  const api = createApiApp((_req, env) => clientIpOf((env as { incoming: IncomingMessage }).incoming, cfg.TRUST_PROXY));
  // The adapter's default would replace the global Request and Response with its own
  // classes (which Next's route handlers reject); the API does not need them (see send() in
  // lib/http/app.ts).
  const apiListener = getRequestListener(api.fetch, { overrideGlobalObjects: false });

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
