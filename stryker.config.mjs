// Mutation testing of the money core (issue 9): `npm run mutation`, or one part at a time with
// MUTATE=money,quotes npm run mutation. The vitest runner runs vitest.mutation.config.ts (the
// in-process tests of these folders) against every mutant; the HTTP suite is not used here
// (it drives the built app, not these source files). Reports go to reports/mutation/.
const folders = (process.env.MUTATE ?? "domain,quotes,orders,ledger,money").split(",").map((f) => f.trim());
const name = folders.join("-");

export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: folders.map((f) => `lib/${f}/**/*.ts`),
  coverageAnalysis: "perTest",
  // Module-level constants (regexes, lists) would re-run every test for each mutant; those
  // are pinned by the unit tests of the constants. The note of issue 9 gives how many.
  ignoreStatic: true,
  concurrency: 2,
  timeoutMS: 5_000,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  // Later runs retest only the mutants whose code or covering tests changed.
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  thresholds: { high: 90, low: 80, break: null },
};
