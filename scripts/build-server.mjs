#!/usr/bin/env node
// Bundles the custom server and the standalone worker (TypeScript, with the @/ alias) into
// dist/, leaving npm packages external. `next build` builds the dashboard separately.
import { build } from "esbuild";

await build({
  entryPoints: { server: "server.ts", worker: "worker.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
console.log("built dist/server.mjs and dist/worker.mjs");
