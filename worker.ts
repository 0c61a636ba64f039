import { getConfig, getDb, getLogger, migrate, startWorker } from "@reseller/lib";

// The order worker as its own process (run the app with WORKER_IN_PROCESS=false). Several
// may run at once against one database: each order is worked on under a claim (lib/worker).
async function main() {
  const cfg = getConfig();
  await migrate(cfg.DATABASE_URL);
  const w = startWorker(getDb(), { pollMs: cfg.WORKER_POLL_MS });
  getLogger().info({ pollMs: cfg.WORKER_POLL_MS, database: cfg.databaseProvider }, "worker started");
  const stop = async () => {
    await w.stop();
    await getDb().$disconnect();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop());
  process.once("SIGINT", () => void stop());
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
