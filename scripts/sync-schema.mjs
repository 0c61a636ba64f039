#!/usr/bin/env node
// Writes prisma/schema.postgresql.prisma from prisma/schema.sqlite.prisma: the two must be
// identical but for the provider, the generated client's folder and money columns: a field
// tagged `// money` is a decimal string on SQLite and an exact, unconstrained NUMERIC on
// PostgreSQL. `--check` fails on drift.
import fs from "node:fs";

const MONEY = /^(\s+\w+\s+)String(\??)(\s+@default\("0"\))?(\s+)(\/\/ money.*)$/;

const src = fs.readFileSync("prisma/schema.sqlite.prisma", "utf8");
const out =
  "// GENERATED from schema.sqlite.prisma by scripts/sync-schema.mjs: do not edit.\n" +
  src
    .replace('provider = "sqlite"', 'provider = "postgresql"')
    .replace("generated/sqlite", "generated/postgresql")
    .split("\n")
    .map((line) => {
      const m = MONEY.exec(line);
      return m ? `${m[1]}Decimal${m[2]}${m[3] ? " @default(0)" : ""} @db.Decimal${m[4]}${m[5]}` : line;
    })
    .join("\n");
const target = "prisma/schema.postgresql.prisma";
if (process.argv.includes("--check")) {
  if (!fs.existsSync(target) || fs.readFileSync(target, "utf8") !== out) {
    console.error(`${target} is out of date: run node scripts/sync-schema.mjs`);
    process.exit(1);
  }
} else fs.writeFileSync(target, out);
