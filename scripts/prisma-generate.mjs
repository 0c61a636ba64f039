#!/usr/bin/env node
// Generates both Prisma clients (SQLite and PostgreSQL) without the native schema engine.
// The Prisma CLI insists on a schema-engine binary even for `generate`, which never uses it,
// and downloading one is impossible offline: point it at any executable (node itself).
import { spawnSync } from "node:child_process";
import fs from "node:fs";

const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
for (const provider of ["sqlite", "postgresql"]) {
  const schema = `prisma/schema.${provider}.prisma`;
  if (!fs.existsSync(schema)) continue;
  const r = spawnSync(process.platform === "win32" ? "npx.cmd" : "npx", ["prisma", "generate", "--schema", schema], {
    stdio: "inherit",
    env,
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
