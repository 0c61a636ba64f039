import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

// Three projects: pure unit tests, and the same HTTP suite against the built app on
// SQLite and on PostgreSQL (each project's global setup starts its own server).
// Tests run lib/ on the server side: "server-only" resolves to its react-server file (empty),
// as it does in Next's server code and in the compiled lib (scripts/build-server.mjs).
const alias = {
  "@": path.resolve(import.meta.dirname),
  "server-only": path.join(path.dirname(createRequire(import.meta.url).resolve("server-only")), "empty.js"),
};
// Timeouts guard against a hang; they are not a measure of speed (bench/ measures that). On a
// machine loaded by other builds a test file took minutes where it takes seconds alone, so they
// are long, and no test sets a shorter one.
const HANG_GUARD_MS = 600_000;

const http = (name: string, setup: string) => ({
  resolve: { alias },
  test: {
    name,
    include: ["tests/http/**/*.test.ts"],
    globalSetup: [setup],
    setupFiles: ["tests/support/http-setup.ts"],
    // As the unit project: modules load once per worker; each file still has an app of its own.
    isolate: false,
    testTimeout: HANG_GUARD_MS,
    hookTimeout: HANG_GUARD_MS,
    pool: "forks" as const,
  },
});

export default defineConfig({
  resolve: { alias },
  test: {
    // At least 3 test files at once: Vitest's default (cores - 1) is one on a 2-core machine,
    // and most files wait on a server, a database or a timer more than they compute. On the
    // 2-core CI machine the unit and HTTP tests took 917 s one at a time, 736 s three at a time.
    maxWorkers: Math.max(os.availableParallelism() - 1, 3),
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["tests/**/*.test.ts"],
          exclude: ["tests/http/**", "tests/e2e/**", "**/node_modules/**"],
          setupFiles: ["tests/support/unit-setup.ts"],
          // Files share their worker's modules (each file still runs in an app of its own:
          // tests/support/unit-setup.ts): lib/ and its dependencies load once per worker, not once per file.
          isolate: false,
          testTimeout: HANG_GUARD_MS,
          hookTimeout: HANG_GUARD_MS,
        },
      },
      http("http-sqlite", "tests/support/global-sqlite.ts"),
      http("http-postgres", "tests/support/global-postgres.ts"),
    ],
  },
});
