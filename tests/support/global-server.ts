import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { createDatabase, startServer, TEST_ENV } from "./server";

/**
 * Global setup body shared by the SQLite and PostgreSQL projects. The server logs at debug
 * (a line per request besides every warning and error); the test files write every API key
 * they use to a file (tests/support/secrets.ts); at the end of the run the whole log is
 * searched for them, and for the server's own secrets: one found fails the run.
 */
export function globalServer(kind: "sqlite" | "postgres") {
  return async (project: TestProject) => {
    const db = await createDatabase(kind);
    const secretsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "reseller-secrets-")), "used.txt");
    fs.writeFileSync(secretsFile, `${TEST_ENV.NEXTAUTH_SECRET}\n`);
    const server = await startServer({ databaseUrl: db.url, env: { LOG_LEVEL: "debug" } });
    project.provide("baseUrl", server.baseUrl);
    project.provide("databaseUrl", db.url);
    project.provide("dbKind", kind);
    project.provide("secretsFile", secretsFile);
    return async () => {
      await server.stop();
      try {
        // The after-file checks were incremental: once, at the end, the whole ledger of the run.
        await checkWholeLedger(db.url);
      } finally {
        await db.drop();
      }
      const log = server.logs();
      const used = fs.readFileSync(secretsFile, "utf8");
      fs.rmSync(path.dirname(secretsFile), { recursive: true, force: true });
      const leaked = secretsSeenIn(log, used);
      if (leaked.count)
        throw new Error(
          `the server's log (${log.length} characters) holds ${leaked.count} of the ${leaked.of} secrets the run used, e.g. at: ${leaked.sample}`,
        );
      if (!/"msg":"request"/.test(log)) throw new Error("the server logged no request lines: the secrets check saw nothing");
    };
  };
}

/** The full ledger check (every invariant over every row) of the database at `url`: the CLI's `ledger:check --full`, in process. */
async function checkWholeLedger(url: string): Promise<void> {
  // (Not ./ledger.ts: it registers vitest hooks, which a global setup cannot import.)
  const { createApp } = await import("@/lib/app/create-app");
  const app = createApp({ settings: { ...process.env, DATABASE_URL: url, LOG_LEVEL: "warn" }, name: "ledger-check" });
  try {
    const r = await app.cli(["ledger:check", "--full"]);
    if (r.code !== 0) throw new Error(`the run's ledger check failed:\n${r.out}${r.err}`);
  } finally {
    await app.close();
  }
}

/** Which of the newline-separated secrets occur in a log (any one found is a leak). */
export function secretsSeenIn(log: string, secrets: string): { count: number; of: number; sample: string } {
  const all = [...new Set(secrets.split("\n").filter((s) => s.length >= 16))];
  const found = all.filter((s) => log.includes(s));
  const at = found.length ? log.indexOf(found[0]) : -1;
  // The sample shows where, with the secret itself masked.
  const sample = at === -1 ? "" : log.slice(Math.max(0, at - 80), at + 80).replaceAll(found[0], "<secret>");
  return { count: found.length, of: all.length, sample };
}
