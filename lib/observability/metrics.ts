import "server-only";
import crypto from "node:crypto";
import http from "node:http";
import client from "prom-client";
import { type Config, getConfig } from "@/lib/config";
import { dbPoolStats, getDb } from "@/lib/db/client";
import { groupCommitStats } from "@/lib/db/pg-group-commit";
import { listHeartbeats } from "@/lib/jobs/heartbeat";
import { getLogger } from "@/lib/log";
import { slot } from "@/lib/scope";
import { createReconcileCache, type ReconcileReport, reconcileGaugeValues } from "./reconcile-gauges";
import { createOrderCounter, createWebhookDeliveryCounter } from "./state-counts";

// Prometheus metrics (prom-client), served as text at /metrics by server.ts (and by
// worker.ts on METRICS_PORT). The registry, its counters and histograms are per process (a
// process is what Prometheus scrapes; several in-process test apps share them); the gauges about
// orders, the worker queue and worker heartbeats are read from the database at scrape time,
// so every instance reports the same figures for them (docs/deploy.md, Metrics).

const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

const httpRequests = new client.Counter({
  name: "http_requests_total",
  help: "HTTP requests answered, by method, route (its template, not the raw path) and status.",
  labelNames: ["method", "route", "status"] as const,
  registers: [registry],
});

const httpDuration = new client.Histogram({
  name: "http_request_duration_seconds",
  help: "Time from a request's arrival to its response's last byte, by method, route and status.",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const requestLogRows = new client.Counter({
  name: "request_log_rows_total",
  help: "Keyed v1 requests for the request log (lib/request-log): written, or dropped (buffer_full: more than REQUEST_LOG_BUFFER_MAX rows waited; write_failed: the batch's write failed).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

const rateLimitRejections = new client.Counter({
  name: "rate_limit_rejections_total",
  help: "Requests refused by a rate limit, by policy (minute, day, signin) and tier (key, ip).",
  labelNames: ["policy", "tier"] as const,
  registers: [registry],
});

/** Runs a scrape-time read; a failing one leaves its gauge empty instead of failing the scrape. */
const safely = (what: string, fn: () => Promise<void>) => async () => {
  try {
    await fn();
  } catch (e) {
    getLogger().warn({ err: e, metric: what }, "metric not collected");
  }
};

// What the gauges keep per app (lib/scope.ts; a scrape runs in its app's scope): the counters
// made at the first scrape (the config is read then), and the registered reconciliation.
const appGauges = slot(() => ({
  countOrders: null as ReturnType<typeof createOrderCounter> | null,
  countDeliveries: null as ReturnType<typeof createWebhookDeliveryCounter> | null,
  reconcileSource: null as (() => Promise<ReconcileReport>) | null,
  reconcileCache: null as ReturnType<typeof createReconcileCache> | null,
}));
const finalMaxAgeMs = () => getConfig().METRICS_FINAL_COUNTS_SECONDS * 1000;

new client.Gauge({
  name: "orders",
  help: "Orders in the database, by state. Open states are counted at every scrape; finished and failed at most every METRICS_FINAL_COUNTS_SECONDS.",
  labelNames: ["state"] as const,
  registers: [registry],
  async collect() {
    await safely("orders", async () => {
      const g = appGauges();
      g.countOrders ??= createOrderCounter({ finalMaxAgeMs: finalMaxAgeMs() });
      const counts = await g.countOrders(getDb());
      this.reset();
      for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
    })();
  },
});

new client.Gauge({
  name: "worker_lag_seconds",
  help: "How long the oldest due worker step has been waiting (0 when none is due).",
  registers: [registry],
  async collect() {
    await safely("worker_lag_seconds", async () => {
      const now = new Date();
      const oldest = await getDb().order.findFirst({
        where: {
          payinAddress: { not: null },
          status: { in: ["waiting", "confirming", "exchanging", "sending"] },
          nextActionAt: { lte: now },
        },
        orderBy: { nextActionAt: "asc" },
        select: { nextActionAt: true },
      });
      this.set(oldest?.nextActionAt ? Math.max(0, (now.getTime() - oldest.nextActionAt.getTime()) / 1000) : 0);
    })();
  },
});

new client.Gauge({
  name: "withdrawals",
  help: "Withdrawals in the database, by status (queued, processing, sent: the queue; confirmed, failed).",
  labelNames: ["status"] as const,
  registers: [registry],
  async collect() {
    await safely("withdrawals", async () => {
      const rows = await getDb().withdrawal.groupBy({ by: ["status"], _count: { _all: true } });
      this.reset();
      for (const r of rows) this.set({ status: r.status }, r._count._all);
    })();
  },
});

new client.Gauge({
  name: "webhook_deliveries",
  help: "Webhook deliveries in the database, by status (pending: the queue, counted at every scrape; succeeded and failed at most every METRICS_FINAL_COUNTS_SECONDS).",
  labelNames: ["status"] as const,
  registers: [registry],
  async collect() {
    await safely("webhook_deliveries", async () => {
      const g = appGauges();
      g.countDeliveries ??= createWebhookDeliveryCounter({ finalMaxAgeMs: finalMaxAgeMs() });
      const counts = await g.countDeliveries(getDb());
      this.reset();
      for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    })();
  },
});

new client.Gauge({
  name: "webhook_lag_seconds",
  help: "How long the oldest pending webhook delivery has been due (0 when none is).",
  registers: [registry],
  async collect() {
    await safely("webhook_lag_seconds", async () => {
      const now = new Date();
      const oldest = await getDb().webhookDelivery.findFirst({
        where: { status: "pending", nextAttemptAt: { lte: now } },
        orderBy: { nextAttemptAt: "asc" },
        select: { nextAttemptAt: true },
      });
      this.set(oldest?.nextAttemptAt ? Math.max(0, (now.getTime() - oldest.nextAttemptAt.getTime()) / 1000) : 0);
    })();
  },
});

new client.Gauge({
  name: "worker_heartbeat_age_seconds",
  help: "Seconds since each order worker (in an app process or alone) last started a pass.",
  labelNames: ["worker", "in_process"] as const,
  registers: [registry],
  async collect() {
    await safely("worker_heartbeat_age_seconds", async () => {
      const rows = await listHeartbeats(getDb());
      this.reset();
      for (const w of rows) this.set({ worker: w.id, in_process: String(w.inProcess) }, w.ageSeconds);
    })();
  },
});

new client.Gauge({
  name: "db_pool_connections",
  help: "This process's PostgreSQL pool: connections by state (total, idle, waiting clients, max). Absent on SQLite.",
  labelNames: ["state"] as const,
  registers: [registry],
  collect() {
    const s = dbPoolStats();
    this.reset();
    if (!s) return;
    this.set({ state: "total" }, s.total);
    this.set({ state: "idle" }, s.idle);
    this.set({ state: "waiting" }, s.waiting);
    this.set({ state: "max" }, s.max);
  },
});

new client.Counter({
  name: "db_group_commit_statements_total",
  help: "This process's PostgreSQL statements that commit in groups (a reseller's order openings, lib/db/pg-group-commit.ts), by how they ran: alone (nothing of their rows in flight), grouped (in one commit with others that waited), retried_alone (their group failed: run again alone). Absent on SQLite.",
  labelNames: ["how"] as const,
  registers: [registry],
  collect() {
    this.reset();
    if (!dbPoolStats()) return;
    this.inc({ how: "alone" }, groupCommitStats.alone);
    this.inc({ how: "grouped" }, groupCommitStats.batched);
    this.inc({ how: "retried_alone" }, groupCommitStats.retriedAlone);
  },
});

// Reconciliation (npm run cli -- reconcile, docs/ledger.md): run at scrape time at most every
// METRICS_RECONCILE_SECONDS, one run shared by the three gauges and by concurrent scrapes.
// The reconciliation lives in a layer above (lib/withdrawals/reconcile.ts); the processes register it.
/** What the reconciliation gauges run: registered at start by the app server and the worker (registerReconcileGauges). */
export function setReconcileSource(run: () => Promise<ReconcileReport>) {
  const g = appGauges();
  g.reconcileSource = run;
  g.reconcileCache = null;
}
const reconciled = async () => {
  const g = appGauges();
  const run = g.reconcileSource;
  if (!run) throw new Error("no reconciliation registered");
  g.reconcileCache ??= createReconcileCache({ maxAgeMs: getConfig().METRICS_RECONCILE_SECONDS * 1000, run });
  return reconcileGaugeValues(await g.reconcileCache());
};

new client.Gauge({
  name: "reconcile_differences",
  help: "Differences the reconciliation finds, by check (treasury: the books against the chain; solvency: owed to resellers against the treasury; commission): 0 when the books agree. At most METRICS_RECONCILE_SECONDS old.",
  labelNames: ["check"] as const,
  registers: [registry],
  async collect() {
    await safely("reconcile_differences", async () => {
      const v = await reconciled();
      this.reset();
      for (const d of v.differences) this.set({ check: d.check }, d.value);
    })();
  },
});

new client.Gauge({
  name: "reconcile_treasury_difference",
  help: "Per treasury account compared with the chain (PAYOUT_SENDER=evm): the hot wallet's balance on chain minus the books', in units of the asset.",
  labelNames: ["account"] as const,
  registers: [registry],
  async collect() {
    await safely("reconcile_treasury_difference", async () => {
      const v = await reconciled();
      this.reset();
      for (const t of v.treasury) this.set({ account: t.account }, t.value);
    })();
  },
});

new client.Gauge({
  name: "reconcile_solvency_usd",
  help: "The solvency line in USD at live prices: what resellers are owed (available + reserved) and what the treasury holds.",
  labelNames: ["side"] as const,
  registers: [registry],
  async collect() {
    await safely("reconcile_solvency_usd", async () => {
      const v = await reconciled();
      this.reset();
      for (const x of v.solvency) this.set({ side: x.side }, x.value);
    })();
  },
});

// The hot wallet's balance per chain and payout asset, as the withdrawal worker last read it
// (lib/withdrawals/health.ts): set by the processes that run the worker, every minute.
const hotWalletBalance = new client.Gauge({
  name: "hot_wallet_balance",
  help: "The payout hot wallet's balance per chain and asset, in units of the asset (read by the withdrawal worker about every minute).",
  labelNames: ["chain_id", "asset"] as const,
  registers: [registry],
});
const hotWalletLow = new client.Gauge({
  name: "hot_wallet_low",
  help: "1 when the payout hot wallet's balance of the asset is below its PAYOUT_LOW_BALANCE threshold, else 0.",
  labelNames: ["chain_id", "asset"] as const,
  registers: [registry],
});
const hotWalletThreshold = new client.Gauge({
  name: "hot_wallet_low_balance_threshold",
  help: "The PAYOUT_LOW_BALANCE threshold of each chain and asset that has one, in units of the asset.",
  labelNames: ["chain_id", "asset"] as const,
  registers: [registry],
});

/** One reading of the hot wallet (amounts as decimal text; a gauge is a float, so this is for alerting, not accounting). */
export function recordHotWalletBalance(r: { chainId: number; asset: string; balance: string; threshold: string | null; low: boolean }) {
  const labels = { chain_id: String(r.chainId), asset: r.asset };
  hotWalletBalance.set(labels, Number(r.balance));
  hotWalletLow.set(labels, r.low ? 1 : 0);
  if (r.threshold !== null) hotWalletThreshold.set(labels, Number(r.threshold));
}

/** The hot wallet gauges as /metrics shows them (tests). */
export async function hotWalletMetricsText(): Promise<string> {
  return (
    await Promise.all(
      ["hot_wallet_balance", "hot_wallet_low", "hot_wallet_low_balance_threshold"].map((n) => registry.getSingleMetricAsString(n)),
    )
  ).join("\n");
}

/**
 * The counter and histogram children of each (method, route, status), made once: a child keeps
 * its label set's hash, which prom-client otherwise computes (sorting the names) on every call.
 * Bounded: Node's parser admits only known methods, routes are templates, statuses are ours.
 */
const requestSeries = new Map<string, { count: client.Counter.Internal; duration: client.Histogram.Internal<string> }>();

/** One answered request (server.ts calls this when the response is done). */
export function observeRequest(method: string, route: string, status: number, seconds: number) {
  const key = `${method} ${route} ${status}`;
  let series = requestSeries.get(key);
  if (!series) {
    const labels = { method, route, status: String(status) };
    series = { count: httpRequests.labels(labels), duration: httpDuration.labels(labels) };
    requestSeries.set(key, series);
  }
  series.count.inc();
  series.duration.observe(seconds);
}

/** Request log rows written, or dropped and why (lib/request-log/buffer.ts). */
export function countRequestLogRows(outcome: "written" | "buffer_full" | "write_failed", n: number) {
  requestLogRows.inc({ outcome }, n);
}

export function countRateLimitRejection(policy: string, tier: "key" | "ip") {
  rateLimitRejections.inc({ policy, tier });
}

const sha = (s: string) => crypto.createHash("sha256").update(s).digest();

/** Whether the request carries METRICS_TOKEN as its bearer token (false when no token is set). */
export function hasOperatorToken(req: http.IncomingMessage): boolean {
  const token = getConfig().METRICS_TOKEN;
  if (!token) return false;
  const sent = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
  return crypto.timingSafeEqual(sha(sent), sha(token));
}

/** Answers a scrape of /metrics: the text exposition, or 401 without the METRICS_TOKEN bearer token when one is set. */
export async function serveMetrics(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (getConfig().METRICS_TOKEN) {
    if (!hasOperatorToken(req)) {
      res.writeHead(401, { "content-type": "text/plain; charset=utf-8", "www-authenticate": "Bearer" }).end("metrics need a token\n");
      return;
    }
  }
  const body = await registry.metrics();
  res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" }).end(body);
}

/**
 * The separate /metrics listener on METRICS_PORT (not on PORT), listening; null when
 * METRICS_PORT is unset. The worker process (worker.ts) serves its metrics only here.
 */
export async function listenForMetrics(cfg: Pick<Config, "METRICS_PORT" | "HOST">): Promise<http.Server | null> {
  if (!cfg.METRICS_PORT) return null;
  const server = http.createServer((req, res) => (req.url === "/metrics" ? void serveMetrics(req, res) : void res.writeHead(404).end()));
  await new Promise<void>((resolve) => server.listen(cfg.METRICS_PORT, cfg.HOST, resolve));
  return server;
}
