import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

// Starts the production build (dist/server.mjs + .next) on a free port with its own
// database, the way `npm start` does, for HTTP tests and benchmarks.

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const PG_ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new empty database (or, with `template`, a PostgreSQL clone of that database). */
export async function createDatabase(kind: "sqlite" | "postgres", opts: { template?: string } = {}): Promise<TestDatabase> {
  if (kind === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-test-"));
    return { url: `file:${path.join(dir, "test.db")}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const { default: pg } = await import("pg");
  const name = `reseller_test_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(opts.template ? `CREATE DATABASE "${name}" TEMPLATE "${opts.template}"` : `CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: PG_ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await a.end();
    },
  };
}

// Migrated once (issue 49): a migrated database is cloned from a template made by replaying
// every migration once per migration set (SQLite: a file in the temp folder, copied; PostgreSQL:
// a template database, CREATE DATABASE ... TEMPLATE), not by replaying the migrations again.
// The template's name carries a hash of the migration files, so a change of them makes a new
// one (and the old ones are dropped then); building one is locked, so parallel test processes
// build it once.
const MIGRATIONS_HASH = (() => {
  const h = crypto.createHash("sha256");
  for (const provider of ["sqlite", "postgresql"]) {
    const dir = path.join(ROOT, "prisma", "migrations", provider);
    for (const name of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, name, "migration.sql");
      if (fs.existsSync(file)) h.update(name).update(fs.readFileSync(file));
    }
  }
  return h.digest("hex").slice(0, 16);
})();

async function migrateUrl(url: string): Promise<void> {
  const { migrate } = await import("@/lib/db/migrate");
  await migrate(url);
}

let sqliteTemplate: Promise<string> | null = null;

/** The migrated SQLite template of this migration set (made once, by whichever process comes first). */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const file = path.join(os.tmpdir(), `reseller-template-${MIGRATIONS_HASH}.db`);
    if (fs.existsSync(file)) return file;
    // Built under a name of this process's and renamed: another process never copies half a file.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-template-build-"));
    const building = path.join(dir, "t.db");
    await migrateUrl(`file:${building}`);
    if (fs.existsSync(`${building}-wal`)) throw new Error("the template's WAL was not checkpointed");
    fs.renameSync(building, file);
    fs.rmSync(dir, { recursive: true, force: true });
    return file;
  })();
  return sqliteTemplate;
}

let pgTemplate: Promise<string> | null = null;

/** The migrated PostgreSQL template database of this migration set. */
function postgresTemplate(): Promise<string> {
  pgTemplate ??= (async () => {
    const { default: pg } = await import("pg");
    const name = `reseller_template_${MIGRATIONS_HASH}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      // One builder at a time across processes (the lock is the admin database's).
      await admin.query("SELECT pg_advisory_lock(72707370)");
      const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (!exists.rowCount) {
        const building = `${name}_b${process.pid}`;
        await admin.query(`DROP DATABASE IF EXISTS "${building}"`);
        await admin.query(`CREATE DATABASE "${building}"`);
        const u = new URL(PG_ADMIN_URL);
        u.pathname = `/${building}`;
        await migrateUrl(u.toString());
        await admin.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
        // Templates of other migration sets: another checkout's run may be cloning its own on
        // this server right now (a branch, a mutation run), so only the oldest are dropped (the
        // four newest others are kept), never one being built, and never by force: one in use stays.
        const old = await admin.query(
          "SELECT datname FROM pg_database WHERE datname ~ '^reseller_template_[0-9a-f]+$' AND datname <> $1 ORDER BY oid DESC OFFSET 4",
          [name],
        );
        for (const r of old.rows) await admin.query(`DROP DATABASE IF EXISTS "${r.datname}"`).catch(() => {});
      }
      await admin.query("SELECT pg_advisory_unlock(72707370)");
    } finally {
      await admin.end();
    }
    return name;
  })();
  return pgTemplate;
}

/** A database with every migration applied, cloned from its template (an empty one: createDatabase). */
export async function migratedDatabase(kind: "sqlite" | "postgres"): Promise<TestDatabase> {
  if (kind === "sqlite") {
    const template = await sqliteTemplateFile();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-test-"));
    const file = path.join(dir, "test.db");
    fs.copyFileSync(template, file);
    return { url: `file:${file}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const template = await postgresTemplate();
  return createDatabase("postgres", { template });
}

export interface RunningServer {
  baseUrl: string;
  port: number;
  databaseUrl: string;
  /** The server's process id (memory and file checks). */
  pid: number;
  logs: () => string;
  /** The server process (to signal it directly). */
  child: ChildProcess;
  stop(): Promise<void>;
  /** Kills the process at once (SIGKILL), as a crash would. */
  crash(): Promise<void>;
}

/** Settings every test server shares: fast simulated steps, X-Forwarded-For trusted so each test can be its own client IP. */
export const TEST_ENV = {
  SIM_STEP_SECONDS: "0.15",
  WORKER_POLL_MS: "50",
  TRUST_PROXY: "1",
  LOG_LEVEL: "warn",
  NEXTAUTH_SECRET: "test-only-secret-not-for-production",
};

/**
 * Whether the process `pid` holds the listening TCP socket of 127.0.0.1:`port` (Linux /proc).
 * A free port can be taken by another process between freePort() and the child's bind: on a
 * machine running several suites, /healthz was then answered by someone else's server and a whole
 * file ran against it (401 for every key it had written). Only the child's own socket counts.
 */
function listensOn(pid: number, port: number): boolean {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = fs.readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] local address:port, f[3] state (0A = LISTEN), f[9] inode
      if (f.length > 9 && f[1].endsWith(`:${hexPort}`) && f[3] === "0A") inodes.add(f[9]);
    }
  }
  if (inodes.size === 0) return false;
  let fds: string[] = [];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      return m !== null && inodes.has(m[1]);
    } catch {
      return false;
    }
  });
}

export async function startServer(opts: { databaseUrl: string; env?: Record<string, string> }): Promise<RunningServer> {
  // TEST_API_ONLY=1 skips the dashboard, for a quick loop on the API without `next build`.
  const apiOnly = process.env.TEST_API_ONLY === "1";
  for (const f of apiOnly ? ["lib/dist/index.mjs", "dist/server.mjs"] : ["lib/dist/index.mjs", "dist/server.mjs", ".next/BUILD_ID"])
    if (!fs.existsSync(path.join(ROOT, f))) throw new Error(`${f} is missing: run \`npm run build\` before the HTTP tests`);
  // A port taken by another process before the child bound it: start again on another one.
  for (let attempt = 1; ; attempt++) {
    const started = await startOnFreePort(opts, apiOnly);
    if (started) return started;
    if (attempt === 5) throw new Error("the server lost its port to another process 5 times");
  }
}

/**
 * The settings of an app under test, spawned or in process (tests/support/app.ts): the test
 * process's environment, TEST_ENV, the production mode, and its port, URL and database; `env` last.
 */
export function testAppSettings(port: number, databaseUrl: string, env: Record<string, string | undefined> = {}) {
  return {
    ...process.env,
    ...TEST_ENV,
    NODE_ENV: "production" as const,
    PORT: String(port),
    HOST: "127.0.0.1",
    APP_URL: `http://localhost:${port}`,
    DATABASE_URL: databaseUrl,
    ...env,
  };
}

async function startOnFreePort(
  opts: { databaseUrl: string; env?: Record<string, string> },
  apiOnly: boolean,
): Promise<RunningServer | null> {
  const port = await freePort();
  let out = "";
  const child: ChildProcess = spawn(process.execPath, ["dist/server.mjs"], {
    cwd: ROOT,
    env: testAppSettings(port, opts.databaseUrl, { ...(apiOnly ? { SERVE_DASHBOARD: "false" } : {}), ...(opts.env ?? {}) }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (out += d));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000; // a hang guard: a loaded machine starts slowly
  for (;;) {
    if (child.exitCode !== null) {
      if (out.includes("EADDRINUSE")) return null;
      throw new Error(`server exited (${child.exitCode}):\n${out}`);
    }
    try {
      const r = await fetch(`${baseUrl}/healthz`);
      if (r.ok) {
        if (child.pid !== undefined && listensOn(child.pid, port)) break;
        // Another process answers on this port: ours cannot bind it.
        await new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        });
        return null;
      }
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start in 180 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    baseUrl,
    port,
    databaseUrl: opts.databaseUrl,
    pid: child.pid ?? 0,
    logs: () => out,
    child,
    crash: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
      }),
  };
}
