// Helpers the benchmarks share: free ports, waiting for a child server, throwaway databases.
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");
const PG_ADMIN = process.env.TEST_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

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
