import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { assertLedgerConsistent } from "./helpers";

/** Checks the shared test server's ledger, then removes the temp folder of the test server (SQLite file and generated session secret). E2E_KEEP_DATA=1 keeps it. */
export default function globalTeardown() {
  const dir = process.env.E2E_DATA_DIR;
  // Whatever the e2e tests did, the ledger of the shared test server must still hold together.
  const file = dir ? path.join(dir, "e2e.db") : null;
  if (file && fs.existsSync(file)) assertLedgerConsistent(`file:${file}`);
  if (!dir || process.env.E2E_KEEP_DATA === "1") return;
  const resolved = path.resolve(dir);
  if (path.dirname(resolved) === path.resolve(os.tmpdir()) && path.basename(resolved).startsWith("reseller-e2e-"))
    fs.rmSync(resolved, { recursive: true, force: true });
}
