#!/usr/bin/env node
// Writes prisma/schema.postgresql.prisma from prisma/schema.sqlite.prisma: the two must be
// identical but for the provider and the generated client's folder. `--check` fails on drift.
import fs from "node:fs";

const src = fs.readFileSync("prisma/schema.sqlite.prisma", "utf8");
const out =
  "// GENERATED from schema.sqlite.prisma by scripts/sync-schema.mjs: do not edit.\n" +
  src.replace('provider = "sqlite"', 'provider = "postgresql"').replace("generated/sqlite", "generated/postgresql");
const target = "prisma/schema.postgresql.prisma";
if (process.argv.includes("--check")) {
  if (!fs.existsSync(target) || fs.readFileSync(target, "utf8") !== out) {
    console.error(`${target} is out of date: run node scripts/sync-schema.mjs`);
    process.exit(1);
  }
} else fs.writeFileSync(target, out);
