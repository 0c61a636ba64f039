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

export async function createDatabase(kind: "sqlite" | "postgres"): Promise<TestDatabase> {
  if (kind === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reseller-test-"));
    return { url: `file:${path.join(dir, "test.db")}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const { default: pg } = await import("pg");
  const name = `reseller_test_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
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

async function startOnFreePort(
  opts: { databaseUrl: string; env?: Record<string, string> },
  apiOnly: boolean,
): Promise<RunningServer | null> {
  const port = await freePort();
  let out = "";
  const child: ChildProcess = spawn(process.execPath, ["dist/server.mjs"], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...TEST_ENV,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      APP_URL: `http://localhost:${port}`,
      DATABASE_URL: opts.databaseUrl,
      ...(apiOnly ? { SERVE_DASHBOARD: "false" } : {}),
      ...(opts.env ?? {}),
    },
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
