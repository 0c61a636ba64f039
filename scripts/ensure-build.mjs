#!/usr/bin/env node
// `npm start` and `npm run cli` on a fresh clone: build once if there is no production build yet.
// On stderr, so that `$(npm run -s cli -- key:create ...)` captures the key and nothing else.
import { execSync } from "node:child_process";
import fs from "node:fs";

if (!["lib/dist/index.mjs", "dist/server.mjs", "dist/cli.mjs", ".next/BUILD_ID"].every((f) => fs.existsSync(f))) {
  console.error("No production build yet: running `npm run build` (about a minute) ...");
  // The build's own output goes to stderr too (stdout is the caller's).
  execSync("npm run build", { stdio: ["inherit", process.stderr, "inherit"] });
}
