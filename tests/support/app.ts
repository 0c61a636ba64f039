import { Writable } from "node:stream";
import { type App, createApp } from "@/lib/app/create-app";
import type { Clock } from "@/lib/clock";
import { createLogger } from "@/lib/log";
import { freePort, testAppSettings } from "./server";

// The app under test, in this process (issue 49): built with createApp from the settings the
// test needs, started as server.ts starts it (migrations, stores, key cache, worker) on a port
// of its own, real sockets and a real database, without Next (the API, the hosted page's API,
// /healthz, /readyz, /metrics; dashboard paths answer an API-only instance's 404). A file that
// needs the dashboard uses the suite's built server (inject("baseUrl")); one whose subject is the
// process itself (a shutdown, a crash, file modes, memory) spawns one (./server.ts).

export interface RunningApp {
  app: App;
  baseUrl: string;
  port: number;
  databaseUrl: string;
  /** Everything the app logged (JSON lines), as a spawned server's output would hold it. */
  logs(): string;
  /** Graceful: the drain (lib/http/shutdown.ts), then the app closes. */
  stop(): Promise<void>;
}

/** Settings every in-process test app has: a spawned server's (testAppSettings), without Next. */
export const appSettings = (port: number, databaseUrl: string, env: Record<string, string | undefined> = {}) =>
  testAppSettings(port, databaseUrl, { SERVE_DASHBOARD: "false", ...env });

/** Starts an app in this process on a free port; rejects as a start would fail (bad settings, no database). */
export async function startApp(opts: {
  databaseUrl: string;
  env?: Record<string, string | undefined>;
  name?: string;
  /** The worker's "now" (lib/clock.ts); default: the system clock. */
  clock?: Clock;
}): Promise<RunningApp> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    let out = "";
    const sink = new Writable({
      write(chunk, _enc, done) {
        out += chunk;
        done();
      },
    });
    const settings = appSettings(port, opts.databaseUrl, opts.env);
    const app = createApp({
      settings,
      name: opts.name ?? `test-app:${port}`,
      log: createLogger(settings.LOG_LEVEL ?? "warn", sink),
      clock: opts.clock,
    });
    try {
      const started = await app.start({ port, host: "127.0.0.1" });
      return { app, baseUrl: started.url, port, databaseUrl: opts.databaseUrl, logs: () => out, stop: () => started.stop() };
    } catch (e) {
      await app.close();
      // Another process took the port between freePort() and the listen: try another one.
      if ((e as NodeJS.ErrnoException).code === "EADDRINUSE" && attempt < 5) continue;
      throw e;
    }
  }
}
