import { apiOnlyHandler, createApp, loadServerActionIds, type NextHandler, projectRoot, restoreNativeDate, shutDown } from "@reseller/lib";
import next from "next";

// One process, one port: the v1 API and /healthz, /readyz and /metrics, and Next's request
// handler for every other path (the dashboard and next-auth); lib/http/server.ts is that
// server. The order worker runs here too unless WORKER_IN_PROCESS=false. The service layer
// comes from "@reseller/lib" (lib/dist/index.mjs), the same file the dashboard loads: one
// instance of every lib module in the process (docs/architecture.md). This file reads the
// environment, builds the app (lib/app/create-app.ts) and installs it as the process's app
// (the dashboard's pages find it so), starts it, and shuts it down gracefully on a signal
// (docs/deploy.md).

async function main() {
  const app = createApp({ settings: process.env, name: "server" }).install();
  const cfg = app.config;
  const log = app.log();
  let handler: NextHandler = apiOnlyHandler();
  let serverActions: Set<string> | null = null;
  if (cfg.SERVE_DASHBOARD) {
    const dev = process.env.NODE_ENV !== "production";
    const nextApp = next({ dev, dir: projectRoot(), hostname: "localhost", port: cfg.PORT });
    await nextApp.prepare();
    handler = nextApp.getRequestHandler();
    // Next wrapped the global Date for a build-time check this app does not use (lib/native-date.ts).
    restoreNativeDate();
    // In production the build's server actions are known: an unknown id is answered before Next (lib/http/next-guard.ts).
    if (!dev) serverActions = loadServerActionIds(projectRoot());
  }
  // Migrations, the rate-limit store, the engine's shared store, the key cache and its feed,
  // the session secret (made here, at start, never by `next build`: lib/auth/secret.ts), the
  // worker, the listener.
  const started = await app.start({ next: cfg.SERVE_DASHBOARD ? handler : undefined, serverActions });
  log.info(
    {
      port: started.port,
      database: cfg.databaseProvider,
      engine: cfg.ENGINE,
      worker: Boolean(started.worker),
      metricsPort: cfg.METRICS_PORT || started.port,
    },
    `listening on http://localhost:${started.port} (API: http://localhost:${started.port}/api/v1)`,
  );

  const stop = (signal: string) =>
    void shutDown(signal, {
      cfg,
      log,
      server: started.server,
      state: started.state,
      metricsServer: started.metricsServer,
      worker: started.worker,
    });
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
