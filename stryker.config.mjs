// Mutation testing of the money core (issue 9): `npm run mutation`. The vitest runner runs
// vitest.mutation.config.ts (the in-process tests of these folders) against every mutant;
// the HTTP suite is not used here (it drives the built app, not these source files).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: ["lib/quotes/**/*.ts", "lib/orders/**/*.ts", "lib/ledger/**/*.ts", "lib/money/**/*.ts"],
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 30_000,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  thresholds: { high: 90, low: 80, break: null },
};
