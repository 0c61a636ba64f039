import "server-only";
import crypto from "node:crypto";
import os from "node:os";
import type { Db } from "@/lib/db/client";
import { leaseMs } from "./lease";

// Every order worker, in the app process or alone (dist/worker.mjs), says it is alive: it
// writes its row in WorkerHeartbeat at the start of a pass, at most every BEAT_MS. A pass can
// wait on engine calls for up to half a lease, so a beat older than a lease plus three beat
// intervals means the loop is stuck or the process is gone. /readyz and /metrics read them.

const BEAT_MS = 5_000;

/** How old a heartbeat may be before its worker counts as stale. */
export const heartbeatStaleMs = () => leaseMs() + 3 * BEAT_MS;

export interface Heartbeat {
  id: string;
  /** The last pass that started (ms since the epoch); 0 before the first. */
  lastPassAt: number;
  beat(db: Db, now: Date): Promise<void>;
  remove(db: Db): Promise<void>;
}

export function newHeartbeat(opts: { inProcess: boolean }): Heartbeat {
  const id = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString("hex")}`;
  const startedAt = new Date();
  let written = 0;
  const hb: Heartbeat = {
    id,
    lastPassAt: 0,
    async beat(db, now) {
      hb.lastPassAt = now.getTime();
      if (now.getTime() - written < BEAT_MS) return;
      written = now.getTime();
      const row = { host: os.hostname(), pid: process.pid, inProcess: opts.inProcess, startedAt, beatAt: now };
      await db.workerHeartbeat.upsert({ where: { id }, create: { id, ...row }, update: { beatAt: now } });
      // Rows of workers gone for a day are history, not news.
      await db.workerHeartbeat.deleteMany({ where: { beatAt: { lt: new Date(now.getTime() - 86_400_000) } } });
    },
    async remove(db) {
      await db.workerHeartbeat.deleteMany({ where: { id } });
    },
  };
  return hb;
}

/** The workers that beat recently, with their age in seconds. */
export async function listHeartbeats(db: Db, now = new Date()) {
  const rows = await db.workerHeartbeat.findMany({ orderBy: { beatAt: "desc" } });
  const stale = heartbeatStaleMs();
  return rows.map((r) => {
    const ageMs = now.getTime() - r.beatAt.getTime();
    return { id: r.id, inProcess: r.inProcess, ageSeconds: Math.max(0, ageMs / 1000), fresh: ageMs <= stale };
  });
}
