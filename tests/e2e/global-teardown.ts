import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Removes the temp folder of the test server (SQLite file and generated session secret). E2E_KEEP_DATA=1 keeps it. */
export default function globalTeardown() {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir || process.env.E2E_KEEP_DATA === "1") return;
  const resolved = path.resolve(dir);
  if (path.dirname(resolved) === path.resolve(os.tmpdir()) && path.basename(resolved).startsWith("reseller-e2e-"))
    fs.rmSync(resolved, { recursive: true, force: true });
}
