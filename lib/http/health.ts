import "server-only";
import crypto from "node:crypto";
import { type Db, providerOf } from "@/lib/db/client";
import { migrationNames } from "@/lib/db/migrate";
import { SERVICE_INSTANCE_ID } from "@/lib/instance";
import { listHeartbeats } from "@/lib/jobs/heartbeat";
import { rateLimitStoreState } from "@/lib/ratelimit/limiter";

// Readiness (/readyz), apart from liveness (/healthz): may a load balancer send traffic here?
// Yes when the database answers, every migration this build ships is applied, the worker in
// this process (if any) is not stuck, and the process is not shutting down. The rate-limit
// store's state is reported ("degraded" while Redis is away) without making it unready. Workers in their
// own processes are listed from their heartbeats, for the operator; they do not make this
// instance unready (it still serves reads and takes orders that wait for them).

export interface ReadinessInput {
  db: Db;
  /** The worker in this process, or null when WORKER_IN_PROCESS=false. */
  worker: { fresh: () => boolean } | null;
  draining: boolean;
  /**
   * The operator asked (METRICS_TOKEN as the bearer token): workers by their full id, which
   * names their host and PID. Anyone else gets an opaque id per worker (issue 48).
   */
  detail?: boolean;
}

/** A worker's id as the public sees it: stable, and naming no host or PID. */
const opaqueId = (id: string) => `w-${crypto.createHash("sha256").update(id).digest("hex").slice(0, 12)}`;

/** Clients whose database had every migration: applied migrations stay applied. */
const migrated = new WeakSet<Db>();

async function pendingMigrations(db: Db): Promise<string[]> {
  if (migrated.has(db)) return [];
  const rows = await db.$queryRawUnsafe<{ migration_name: string }[]>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  const done = new Set(rows.map((r) => r.migration_name));
  const pending = migrationNames(providerOf(db)).filter((n) => !done.has(n));
  if (pending.length === 0) migrated.add(db);
  return pending;
}

export async function readiness(input: ReadinessInput): Promise<{ ready: boolean; body: Record<string, unknown> }> {
  // Shutting down: say so at once, without asking the database (a balancer polls this).
  if (input.draining)
    return { ready: false, body: { status: "not_ready", instance: SERVICE_INSTANCE_ID, checks: { shutdown: "draining" } } };
  const checks: Record<string, unknown> = {};
  let ready = true;
  try {
    await input.db.$queryRawUnsafe("SELECT 1");
    checks.database = "ok";
    const pending = await pendingMigrations(input.db);
    checks.migrations = pending.length ? { pending } : "ok";
    if (pending.length) ready = false;
    checks.workers = (await listHeartbeats(input.db)).map((w) => ({
      id: input.detail ? w.id : opaqueId(w.id),
      inProcess: w.inProcess,
      ageSeconds: Math.round(w.ageSeconds),
      fresh: w.fresh,
    }));
  } catch {
    // The error may name the database's address or user: logged nowhere public, answered as a word.
    checks.database = "unreachable";
    ready = false;
  }
  // Redis away: still ready (the limits are counted per process meanwhile), but said so.
  checks.rateLimitStore = rateLimitStoreState();
  if (input.worker) {
    const fresh = input.worker.fresh();
    checks.worker = fresh ? "ok" : "stale";
    if (!fresh) ready = false;
  } else checks.worker = "not_in_process";
  return { ready, body: { status: ready ? "ready" : "not_ready", instance: SERVICE_INSTANCE_ID, checks } };
}
