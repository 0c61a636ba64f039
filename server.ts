import {
  apiOnlyHandler,
  connectEngineStore,
  connectRateLimitStore,
  createAppServer,
  ensureAuthSecret,
  getConfig,
  getDb,
  getLogger,
  listen,
  listenForMetrics,
  loadServerActionIds,
  migrate,
  type NextHandler,
  projectRoot,
  restoreNativeDate,
  shutDown,
  startProcessKeyCache,
  startWorker,
} from "@reseller/lib";
import next from "next";

// One process, one port: the v1 API and /healthz, /readyz and /metrics, and Next's request
// handler for every other path (the dashboard and next-auth); lib/http/server.ts is that
// server. The order worker runs here too unless WORKER_IN_PROCESS=false. The service layer
// comes from "@reseller/lib" (lib/dist/index.mjs), the same file the dashboard loads: one
// instance of every lib module in the process (docs/architecture.md). This file only wires
// the parts together, in order, and shuts them down gracefully on a signal (docs/deploy.md).

/** Next's request handler for the dashboard, or the API-only instance's 404. */
async function nextHandler(cfg: ReturnType<typeof getConfig>): Promise<NextHandler> {
  if (!cfg.SERVE_DASHBOARD) return apiOnlyHandler();
  const dev = process.env.NODE_ENV !== "production";
  const nextApp = next({ dev, dir: projectRoot(), hostname: "localhost", port: cfg.PORT });
  await nextApp.prepare();
  const handler: NextHandler = nextApp.getRequestHandler();
  // Next wrapped the global Date for a build-time check this app does not use (lib/native-date.ts).
  restoreNativeDate();
  return handler;
}

async function main() {
  const cfg = getConfig();
  const log = getLogger();
  const { applied } = await migrate(cfg.DATABASE_URL);
  if (applied.length) log.info({ applied }, "database migrated");
  await connectRateLimitStore(3000);
  // ENGINE=providers with REDIS_URL: the shared quote cache, connected before the first estimate.
  await connectEngineStore(5000);
  // The cache of API keys (lib/keys/key-cache.ts), its LISTEN connection or Redis subscription
  // made before the first keyed request (until it is, keys are read from the database).
  await startProcessKeyCache(3000);
  // The session secret is made here, at start, never by `next build` (lib/auth/secret.ts).
  if (cfg.SERVE_DASHBOARD) ensureAuthSecret();
  if (cfg.sandboxEnabled)
    log.warn(
      { engine: cfg.ENGINE },
      "SANDBOX IS ON: the simulated engine; anyone with a keyless order's id can report its deposit. Set SANDBOX=false or ENGINE=providers for real money",
    );

  const next = await nextHandler(cfg);
  const worker = cfg.WORKER_IN_PROCESS ? startWorker(getDb(), { pollMs: cfg.WORKER_POLL_MS, inProcess: true }) : null;
  // In production the build's server actions are known: an unknown id is answered before Next (lib/http/next-guard.ts).
  const serverActions = cfg.SERVE_DASHBOARD && process.env.NODE_ENV === "production" ? loadServerActionIds(projectRoot()) : null;
  const { server, state } = createAppServer({ cfg, log, next, worker, serverActions });
  const port = await listen(server, cfg.PORT, cfg.HOST);
  const metricsServer = await listenForMetrics(cfg);
  log.info(
    { port, database: cfg.databaseProvider, engine: cfg.ENGINE, worker: Boolean(worker), metricsPort: cfg.METRICS_PORT || port },
    `listening on http://localhost:${port} (API: http://localhost:${port}/api/v1)`,
  );

  const stop = (signal: string) => void shutDown(signal, { cfg, log, server, state, metricsServer, worker });
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
