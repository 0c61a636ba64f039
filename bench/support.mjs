// Helpers the benchmarks share: free ports, waiting for a child server, throwaway databases.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");
const PG_ADMIN = process.env.TEST_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const ONLY = process.env.BENCH_ONLY?.split(",");
/** Whether a case is to run: BENCH_ONLY=a,b runs only those whose name contains one of a, b. */
export const wanted = (name) => !ONLY || ONLY.some((o) => name.includes(o));

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

/**
 * A /proc stat file's command name and the CPU seconds its process (or thread) has used so far,
 * user and system; null when it cannot be read (no /proc, or the process is gone).
 */
export function procCpu(statPath) {
  let stat;
  try {
    stat = fs.readFileSync(statPath, "utf8");
  } catch {
    return null;
  }
  // After "(comm) ": state is field 3, utime and stime fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return {
    name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
    user: Number(fields[11]) / CLOCK_TICKS,
    system: Number(fields[12]) / CLOCK_TICKS,
  };
}

/** Exits unless the production build the benchmarks run is there. */
export function requireBuild() {
  if (!["lib/dist/index.mjs", "dist/server.mjs", ".next/BUILD_ID"].every((f) => fs.existsSync(path.join(ROOT, f)))) {
    console.error("run `npm run build` first");
    process.exit(1);
  }
}

export const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

export async function waitFor(url, child, name) {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited`);
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not start`);
}

/** The settings every benchmark starts the production build with (`npm start`'s, on loopback, quiet logs). */
export function productionEnv(port, databaseUrl) {
  return {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    APP_URL: `http://localhost:${port}`,
    NEXTAUTH_SECRET: crypto.randomBytes(24).toString("hex"),
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "warn",
  };
}

/** Rate limits a benchmark's load would hit at once (it comes from one IP and one key), raised out of its way. */
export const UNLIMITED_RATES = {
  RATE_LIMIT_PUBLIC_PER_MINUTE: "1000000000",
  RATE_LIMIT_KEY_PER_MINUTE: "1000000000",
  RATE_LIMIT_PUBLIC_CREATES_PER_DAY: "1000000000",
};

export async function createDatabase(kind) {
  if (kind === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-"));
    return { url: `file:${path.join(dir, "bench.db")}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const { default: pg } = await import("pg");
  const name = `reseller_bench_${crypto.randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(PG_ADMIN);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: PG_ADMIN });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await a.end();
    },
  };
}

const CHILD_ENV = "BENCH_DB_CHILD";

/**
 * A benchmark of lib's reads over a loaded database, run once per database in `dbs`, each in a
 * child process of `script` (lib reads DATABASE_URL once per process). The child makes a fresh
 * database, migrates it, loads it with `fill(kind, url)` (which returns what `measure` needs),
 * prints how long that took (`what`: what was loaded), runs `measure({ kind, lib, db, filled })`
 * and drops the database.
 *
 * A big load takes minutes, so BENCH_KEEP=1 keeps the database and prints its URL, and
 * BENCH_DB_URL=<that URL> (with BENCH_DB naming its one kind) measures it again without loading
 * (after migrating it, so a new migration can be tried on it); `filled` is then null (the scripts
 * whose measure needs it refuse BENCH_DB_URL).
 */
export async function runPerDatabase({ script, dbs, what, fill, measure }) {
  const kind = process.env[CHILD_ENV];
  const reuse = process.env.BENCH_DB_URL;
  if (!kind) {
    if (reuse && dbs.length !== 1) throw new Error("BENCH_DB_URL: name its one database kind in BENCH_DB");
    for (const k of dbs) {
      const r = spawnSync(process.execPath, [script], { env: { ...process.env, [CHILD_ENV]: k }, stdio: "inherit" });
      if (r.status !== 0) process.exit(r.status ?? 1);
    }
    return;
  }
  const created = reuse ? { url: reuse, drop: async () => {} } : await createDatabase(kind);
  const keep = reuse || process.env.BENCH_KEEP === "1";
  try {
    process.env.DATABASE_URL = created.url;
    const lib = await import(path.join(ROOT, "lib/dist/index.mjs"));
    // The app is a value (lib/app/create-app.ts): one for this database, installed so that the
    // library's functions called below find their config and client.
    const app = lib.createApp({ settings: { ...process.env, DATABASE_URL: created.url }, name: "bench" });
    app.install();
    await lib.migrate(created.url);
    let filled = null;
    if (reuse) console.log(`${kind}: measuring ${reuse} as it is (BENCH_DB_URL)`);
    else {
      const t0 = performance.now();
      filled = await fill(kind, created.url);
      console.log(`${kind}: ${what} loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
    await measure({ kind, lib, db: app.db(), filled });
    await app.close();
  } finally {
    if (keep) console.log(`${kind}: database kept: BENCH_DB=${kind} BENCH_DB_URL=${created.url}`);
    else await created.drop();
  }
  process.exit(0); // the dashboard's PostgreSQL pool would keep the process alive
}

/**
 * Calls `fn` five times in a row and prints every time, with what the last call returned, and
 * the longest the event loop went without a turn during each call (a 1 ms timer's lateness):
 * on SQLite a read runs on the event loop, and every API request of the process waits that long.
 */
export async function timeFiveCalls(kind, label, fn) {
  const times = [];
  const stalls = [];
  let r;
  for (let k = 0; k < 5; k++) {
    let last = performance.now();
    let longest = 0;
    const tick = setInterval(() => {
      const t = performance.now();
      longest = Math.max(longest, t - last);
      last = t;
    }, 1);
    const t = performance.now();
    r = await fn();
    times.push(performance.now() - t);
    clearInterval(tick);
    stalls.push(Math.max(longest, performance.now() - last));
  }
  const ms = (xs) => xs.map((x) => x.toFixed(0)).join(", ");
  console.log(`${kind}: ${label}: ${ms(times)} ms, event loop held up to ${ms(stalls)} ms (${r})`);
}
