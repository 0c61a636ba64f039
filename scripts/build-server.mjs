#!/usr/bin/env node
// Compiles the service layer once, and the two process entry points around it:
//
//   lib/index.ts -> lib/dist/index.mjs   the service layer, "@reseller/lib": the one copy Node
//                                         loads for server.ts, worker.ts and the dashboard
//   server.ts    -> dist/server.mjs      import "@reseller/lib" at run time (left external here,
//   worker.ts    -> dist/worker.mjs      like every npm package)
//   scripts/cli.ts -> dist/cli.mjs       the operator CLI, self-contained: a short-lived process
//                                         of its own, so it bundles the lib modules it uses and
//                                         runs where tsx is not installed (the Docker image)
//
// `next build` then builds the dashboard, which loads lib/dist/index.mjs at run time too
// (app/_server/lib.ts), so it must come after this. docs/architecture.md, One copy of the service layer, says why.
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, context } from "esbuild";

const require = createRequire(import.meta.url);

/**
 * `import "server-only"` marks lib's server modules so that Next refuses to put one in a
 * browser bundle. The compiled lib only ever runs on the server: resolve the marker to its
 * react-server file (empty), as Next does for server code, instead of the file that throws.
 */
const serverOnly = {
  name: "server-only",
  setup(b) {
    const empty = path.join(path.dirname(require.resolve("server-only")), "empty.js");
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: empty }));
  },
};

export const options = {
  entryPoints: { "lib/dist/index": "lib/index.ts", "dist/server": "server.ts", "dist/worker": "worker.ts" },
  outdir: ".",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  // npm packages stay external, and so does the service layer itself for server.ts and
  // worker.ts (tsconfig maps "@reseller/lib" to lib/index.ts for the type checker and knip;
  // at run time it must be the one compiled file).
  packages: "external",
  external: ["@reseller/lib"],
  plugins: [serverOnly],
  sourcemap: true,
  logLevel: "warning",
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
};

export const cliOptions = { ...options, entryPoints: { "dist/cli": "scripts/cli.ts" }, external: [] };

export const watch = async (onBuilt) => {
  const ctx = await context({ ...options, plugins: [...options.plugins, { name: "on-end", setup: (b) => b.onEnd(onBuilt) }] });
  await ctx.watch();
  // The CLI restarts nothing: it is a new process each time, so rebuilding it is enough.
  const cli = await context(cliOptions);
  await cli.watch();
  return ctx;
};

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await Promise.all([build(options), build(cliOptions)]);
  console.log("built lib/dist/index.mjs, dist/server.mjs, dist/worker.mjs and dist/cli.mjs");
}
