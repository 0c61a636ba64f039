import { closeDb, createApp, listenForMetrics } from "@reseller/lib";

// The order worker as its own process (run the app with WORKER_IN_PROCESS=false). Several
// may run at once against one database: each order is worked on under a claim (lib/worker).
// Each reports its heartbeat in the database (the app's /readyz and /metrics list them) and,
// with METRICS_PORT set, serves its own /metrics there. It reads the environment, builds the
// app (lib/app/create-app.ts) and installs it as the process's app.
async function main() {
  const app = createApp({ settings: process.env, name: "worker" }).install();
  const cfg = app.config;
  const log = app.log();
  await app.migrate();
  const w = app.startWorker({ inProcess: false });
  const metricsServer = await listenForMetrics(cfg);
  log.info({ pollMs: cfg.WORKER_POLL_MS, database: cfg.databaseProvider, worker: w.heartbeat.id }, "worker started");
  let stopping = false;
  // SIGTERM: finish the pass under way (its steps complete, their claims are released), then close the database.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "worker shutting down: finishing its pass");
    setTimeout(() => {
      log.error("shutdown deadline passed; exiting with a pass unfinished");
      process.exit(1);
    }, cfg.SHUTDOWN_TIMEOUT_MS);
    metricsServer?.close();
    await w.stop();
    await closeDb();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
