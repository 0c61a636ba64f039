import "server-only";
import type http from "node:http";
import net from "node:net";
import type { Config } from "@/lib/config";
import { closeDb } from "@/lib/db/client";
import { stopProcessKeyCache } from "@/lib/keys/key-cache";
import type { Logger } from "@/lib/log";
import { flushRateLimitCounts } from "@/lib/ratelimit/limiter";
import { flushRequestLog } from "@/lib/request-log/log";
import type { ServerState } from "./server";
import { endEventStreams } from "./v1/events";

/** Shutting down: how long a keep-alive connection may stay idle before it is closed. */
const IDLE_GRACE_MS = 1_000;

export interface ShutdownParts {
  cfg: Config;
  log: Logger;
  server: http.Server;
  state: ServerState;
  /** The separate /metrics listener (METRICS_PORT), if any. */
  metricsServer: http.Server | null;
  /** The worker in this process, if any: stopping it waits for its pass. */
  worker: { stop: () => Promise<void> } | null;
}

/**
 * Graceful shutdown (docs/deploy.md): /readyz turns 503 (requests are still served as usual);
 * after SHUTDOWN_DRAIN_DELAY_MS the listener closes (new connections are refused); requests in
 * flight are answered, each with Connection: close; live status streams end (their clients
 * reconnect elsewhere); keep-alive connections left idle are
 * closed after a grace second without a request; the worker finishes its pass (its steps
 * complete and their claims are released); the request log's waiting rows are written; then the database closes and the process exits.
 * Past SHUTDOWN_TIMEOUT_MS the process exits anyway, with status 1. A second signal does nothing.
 */
export async function shutDown(signal: string, parts: ShutdownParts): Promise<void> {
  if (parts.state.draining) return;
  const { cfg, log } = parts;
  log.info({ signal, inFlight: parts.state.inFlight }, "shutting down: draining requests and the worker's pass");
  setTimeout(() => {
    log.error({ inFlight: parts.state.inFlight }, "shutdown deadline passed; exiting with work unfinished");
    process.exit(1);
  }, cfg.SHUTDOWN_TIMEOUT_MS);
  await drain(parts);
  log.info("shut down cleanly");
  process.exit(0);
}

/**
 * The drain itself, without the process's exit (an app in a test closes this way too): every
 * step of shutDown but the deadline and the exit, ending with the app's database closed.
 */
export async function drain({ cfg, log, server, state, metricsServer, worker }: ShutdownParts): Promise<void> {
  if (state.draining) return;
  state.draining = true;
  const workerDone = worker?.stop();
  // Behind a balancer: keep serving as usual while it notices /readyz is 503; closing the listener while it still sends would reset the connections the kernel
  // has accepted but Node has not yet taken.
  if (cfg.SHUTDOWN_DRAIN_DELAY_MS) await new Promise((r) => setTimeout(r, cfg.SHUTDOWN_DRAIN_DELAY_MS));
  // net.Server's close, not http.Server's: that one also drops idle keep-alive connections
  // at once, which resets a request a client is sending on one at that moment.
  const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
  state.listenerClosed = true;
  metricsServer?.close();
  // Live status streams never end by themselves while their order is open: ended here (their
  // clients reconnect elsewhere with Last-Event-ID), with the app's reader of order events.
  const streamsEnded = endEventStreams();
  // A keep-alive connection is closed by its next answer (Connection: close). One that
  // stays idle is closed only after IDLE_GRACE_MS without a request: closing it at once
  // would reset a request its client may be sending at that very moment.
  while (state.sockets.size) {
    const now = performance.now();
    for (const [socket, c] of state.sockets) if (c.busy === 0 && now - c.lastActive > IDLE_GRACE_MS) socket.destroy();
    await new Promise((r) => setTimeout(r, 20));
  }
  await closed;
  await streamsEnded;
  await workerDone;
  await stopProcessKeyCache();
  await flushRateLimitCounts().catch((e: unknown) => log.warn({ err: e }, "rate-limit counts not flushed at shutdown"));
  // Every request answered is in the request log before the database closes.
  await flushRequestLog().catch((e: unknown) => log.warn({ err: e }, "request log not flushed at shutdown"));
  await closeDb();
}
