#!/usr/bin/env node
// `npm start` on a fresh clone: build once if there is no production build yet.
import { execSync } from "node:child_process";
import fs from "node:fs";

if (!["lib/dist/index.mjs", "dist/server.mjs", ".next/BUILD_ID"].every((f) => fs.existsSync(f))) {
  console.log("No production build yet: running `npm run build` (about a minute) ...");
  execSync("npm run build", { stdio: "inherit" });
}
