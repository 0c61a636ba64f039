import { createRequire } from "node:module";
import path from "node:path";
import { defineConfig } from "vitest/config";

// The tests Stryker runs against mutants of lib/domain, lib/quotes, lib/orders, lib/ledger, lib/money and lib/prices
// (stryker.config.mjs): the in-process tests of those folders, on real SQLite and PostgreSQL.
const alias = {
  "@": path.resolve(import.meta.dirname),
  "server-only": path.join(path.dirname(createRequire(import.meta.url).resolve("server-only")), "empty.js"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    // tests/db: the PostgreSQL-only read of GET /exchange/{id} and opening of an order (short tests).
    include: [
      "tests/{domain,quotes,orders,ledger,money,prices}/**/*.test.ts",
      "tests/withdrawals/withdrawals.test.ts",
      "tests/db/order-read.test.ts",
      "tests/db/open-order-in-one.test.ts",
    ],
    // As the unit project: each file runs in an app of its own (the tests find it through lib/scope.ts).
    setupFiles: ["tests/support/unit-setup.ts"],
    env: { MUTATION_RUN: "1" },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
