import "server-only";
import type http from "node:http";
import { ensureAuthSecret } from "@/lib/auth/secret";
import { type Clock, now as clockNow, provideClock } from "@/lib/clock";
import { type Config, getConfig, provideConfig } from "@/lib/config";
import { type Db, getDb, provideDb } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { connectEngineStore, type Engine, provideEngine } from "@/lib/engine";
import { startProviderCallFlush } from "@/lib/engine/call-stats-flush";
import { apiOnlyHandler, type NextHandler } from "@/lib/http/next-bridge";
import { createAppServer, listen, type ServerState } from "@/lib/http/server";
import { drain } from "@/lib/http/shutdown";
import { startProcessKeyCache } from "@/lib/keys/key-cache";
import { getLogger, type Logger, provideLogger } from "@/lib/log";
import { listenForMetrics } from "@/lib/observability/metrics";
import { ensureFirstAdmin } from "@/lib/operators/operators";
import { connectRateLimitStore } from "@/lib/ratelimit/limiter";
import { closeScope, installScope, newScope, runInScope, type Scope, type Settings } from "@/lib/scope";
import { runWorkerOnce, startWorker, type WorkerHandle } from "@/lib/worker/run-worker";
import { type CliIo, runCliCommand } from "./cli";

// The app as a value (issue 49): one function builds the whole service from its parts, and
// answers its HTTP server (the v1 API, the hosted page's API, /healthz, /readyz, /metrics, and
// the dashboard through Next's handler when one is given), its worker and its CLI commands.
// Only the entry points read process.env (server.ts, worker.ts, scripts/cli.ts pass it in as
// `settings`); a test builds apps with the settings it needs, several in one process if it
// likes, each with its own database client, engine, rate limiters, caches and clock
// (lib/scope.ts says how the code finds its app).

export interface AppParts {
  /** Settings by name (the environment, for the entry points); parsed and checked as lib/config.ts says. */
  settings?: Settings;
  /** A parsed config instead of settings. */
  config?: Config;
  /** A database client made elsewhere (its maker closes it); default: one from DATABASE_URL, closed with the app. */
  db?: Db;
  /** An engine made elsewhere; default: the one ENGINE names. */
  engine?: Engine;
  /** A logger; default: JSON on stdout at LOG_LEVEL. */
  log?: Logger;
  /** What "now" is for the worker's passes; default: the system clock. */
  clock?: Clock;
  /** A name for logs and errors. */
  name?: string;
}

export interface StartOptions {
  /** Port to listen on (0: a free one); default PORT. */
  port?: number;
  host?: string;
  /** Next's request handler (the dashboard); default: an API-only instance's 404 for those paths. */
  next?: NextHandler;
  /** The production build's server-action ids (lib/http/next-guard.ts). */
  serverActions?: Set<string> | null;
  /** Run the order worker in this app; default WORKER_IN_PROCESS. */
  worker?: boolean;
  /** Apply pending migrations first; default true. */
  migrate?: boolean;
  /** How long the start waits for Redis, the key-change feed and the engine's store. */
  waitMs?: number;
}

export interface StartedApp {
  /** http://127.0.0.1:<port> (or the host given). */
  url: string;
  port: number;
  server: http.Server;
  state: ServerState;
  worker: WorkerHandle | null;
  metricsServer: http.Server | null;
  /** The graceful shutdown's drain (lib/http/shutdown.ts), then the app's close. */
  stop(): Promise<void>;
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export interface App {
  readonly name: string;
  readonly scope: Scope;
  readonly config: Config;
  /** Runs `fn` as part of this app (its settings, client, engine, caches...). */
  run<T>(fn: () => T): T;
  /** Makes this the process's app: code outside any run() belongs to it (the entry points). */
  install(): App;
  /** The app's database client. */
  db(): Db;
  log(): Logger;
  /** Applies the migrations the app's database lacks; the names applied. */
  migrate(): Promise<string[]>;
  /** The app's HTTP server, not listening. */
  server(opts?: { next?: NextHandler; worker?: { fresh: () => boolean } | null; serverActions?: Set<string> | null }): {
    server: http.Server;
    state: ServerState;
  };
  /** What server.ts does: migrate, connect the stores, start the key cache (and the worker), listen. */
  start(opts?: StartOptions): Promise<StartedApp>;
  startWorker(opts?: { pollMs?: number; inProcess?: boolean }): WorkerHandle;
  /** One pass of the order worker, at the app clock's now unless given. */
  runWorkerOnce(now?: Date): Promise<number>;
  /** One operator command (lib/app/cli.ts), its output collected. */
  cli(args: string[], io?: CliIo): Promise<CliResult>;
  /** Closes everything the app opened (clients, pools, subscriptions); it can do nothing after. */
  close(): Promise<void>;
}

export function createApp(parts: AppParts = {}): App {
  const scope = newScope(parts.settings ?? {}, parts.name);
  if (parts.config) provideConfig(scope, parts.config);
  if (parts.db) provideDb(scope, parts.db);
  if (parts.engine) provideEngine(scope, parts.engine);
  if (parts.log) provideLogger(scope, parts.log);
  if (parts.clock) provideClock(scope, parts.clock);
  const run = <T>(fn: () => T): T => runInScope(scope, fn);
  // Parsed now: an app with settings it cannot run with is refused when it is made.
  const config = run(() => getConfig());

  const app: App = {
    name: scope.name,
    scope,
    config,
    run,
    install() {
      installScope(scope);
      return app;
    },
    db: () => run(() => getDb()),
    log: () => run(() => getLogger()),
    migrate: async () => (await migrate(config.DATABASE_URL)).applied,
    server: (opts = {}) =>
      run(() =>
        createAppServer({
          cfg: config,
          log: getLogger(),
          next: opts.next ?? apiOnlyHandler(),
          worker: opts.worker ?? null,
          serverActions: opts.serverActions ?? null,
          scope,
        }),
      ),
    start: (opts = {}) =>
      run(async () => {
        const log = getLogger();
        const waitMs = opts.waitMs ?? 3000;
        if (config.sandboxEnabled)
          log.warn(
            { engine: config.ENGINE },
            "SANDBOX IS ON: the simulated engine; anyone with a keyless order's id can report its deposit. Set SANDBOX=false or ENGINE=providers for real money",
          );
        if (opts.migrate ?? true) {
          const applied = await app.migrate();
          if (applied.length) log.info({ applied }, "database migrated");
        }
        // OPERATOR_ADMIN_WALLET: the console's first admin, while it has none (lib/operators).
        const admin = await ensureFirstAdmin(getDb());
        if (admin) log.info({ wallet: admin.wallet }, "console: first admin added from OPERATOR_ADMIN_WALLET");
        await connectRateLimitStore(waitMs);
        await connectEngineStore(waitMs);
        await startProcessKeyCache(waitMs);
        // The providers' call counts, for the console (lib/providers/call-stats.ts).
        startProviderCallFlush();
        if (opts.next) ensureAuthSecret();
        const worker = (opts.worker ?? config.WORKER_IN_PROCESS) ? app.startWorker({ inProcess: true }) : null;
        const { server, state } = app.server({ next: opts.next, worker, serverActions: opts.serverActions });
        let port: number;
        try {
          port = await listen(server, opts.port ?? config.PORT, opts.host ?? config.HOST);
        } catch (e) {
          await worker?.stop();
          throw e;
        }
        const metricsServer = await listenForMetrics(config);
        const host = opts.host ?? config.HOST;
        return {
          url: `http://${host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host}:${port}`,
          port,
          server,
          state,
          worker,
          metricsServer,
          stop: async () => {
            await run(() => drain({ cfg: config, log, server, state, metricsServer, worker }));
            await app.close();
          },
        };
      }),
    startWorker: (opts = {}) =>
      run(() => {
        startProviderCallFlush();
        return startWorker(getDb(), { pollMs: opts.pollMs ?? config.WORKER_POLL_MS, inProcess: opts.inProcess ?? true });
      }),
    runWorkerOnce: (now) => run(() => runWorkerOnce(getDb(), now ?? clockNow())),
    cli: async (args, io) => {
      let out = "";
      let err = "";
      const sink: CliIo = {
        out: (line) => {
          out += `${line}\n`;
          io?.out(line);
        },
        err: (line) => {
          err += `${line}\n`;
          io?.err(line);
        },
      };
      const code = await run(() => runCliCommand(args, sink));
      return { code, out, err };
    },
    close: () => closeScope(scope),
  };
  return app;
}
