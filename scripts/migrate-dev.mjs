#!/usr/bin/env node
import { execFileSync } from "node:child_process";
// Authoring migrations without Prisma's native schema engine (its download is impossible
// offline): drives @prisma/schema-engine-wasm through the driver adapters, for SQLite and
// PostgreSQL. Applying migrations at start-up is lib/db/migrate.ts's job, not this script's.
//
//   node scripts/migrate-dev.mjs create <name>   write prisma/migrations/{sqlite,postgresql}/<ts>_<name>/migration.sql
//                                                from the schema change (edit prisma/schema.sqlite.prisma first)
//   node scripts/migrate-dev.mjs check           exit 1 when the migrations do not produce the schema (drift)
//
// PostgreSQL: uses TEST_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres) for
// its shadow database. Adapted from the workarounds documented for Prisma 7's WASM engine:
// multi-statement scripts on the shadow database, pg "char" columns, our own shadow database,
// SQLite partial indexes' names.
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";

const require = createRequire(import.meta.url);
const PG_URL = process.env.TEST_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const filters = { externalTables: [], externalEnums: [] };

async function loadEngine() {
  const glue = await import("@prisma/schema-engine-wasm/schema_engine_bg");
  const dir = path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
  const mod = new WebAssembly.Module(fs.readFileSync(path.join(dir, "schema_engine_bg.wasm")));
  const inst = new WebAssembly.Instance(mod, { "./schema_engine_bg.js": glue });
  glue.__wbg_set_wasm(inst.exports);
  inst.exports.__wbindgen_start();
  return glue.SchemaEngine;
}

function scriptsOnShadow(factory) {
  const orig = factory.connectToShadowDb.bind(factory);
  factory.connectToShadowDb = async () => {
    const a = await orig();
    const execRaw = a.executeRaw.bind(a);
    a.executeRaw = async (q) => {
      if (q.args.length > 0) return execRaw(q);
      await a.executeScript(q.sql);
      return 0;
    };
    return a;
  };
  return factory;
}

// Describing a partial index, the engine reads its definition with the index's name as a
// double-quoted string (`... AND name = "Order_x_idx"`), which SQLite reads as a string only
// when built to allow it, and better-sqlite3's build does not ("column not found"): quoted as a
// string instead.
const INDEX_SQL = /^(SELECT sql FROM sqlite_master WHERE type = 'index' AND name = )"((?:[^"]|"")*)"(;?\s*)$/;

function indexNamesAsStrings(factory) {
  for (const m of ["connect", "connectToShadowDb"]) {
    const orig = factory[m].bind(factory);
    factory[m] = async () => {
      const a = await orig();
      const query = a.queryRaw.bind(a);
      a.queryRaw = (q) => {
        const hit = INDEX_SQL.exec(q.sql);
        return query(hit ? { ...q, sql: `${hit[1]}'${hit[2].replaceAll('""', '"').replaceAll("'", "''")}'${hit[3]}` } : q);
      };
      return a;
    };
  }
  return factory;
}

async function makeFactory(provider) {
  if (provider === "sqlite") {
    const { PrismaBetterSqlite3 } = await import("@prisma/adapter-better-sqlite3");
    return scriptsOnShadow(indexNamesAsStrings(new PrismaBetterSqlite3({ url: ":memory:" }, { shadowDatabaseUrl: ":memory:" })));
  }
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const { default: pg } = await import("pg");
  const u = new URL(PG_URL);
  const cfg = {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.slice(1),
  };
  const factory = new PrismaPg(cfg);
  factory.connectToShadowDb = async () => {
    const admin = new pg.Client(cfg);
    await admin.connect();
    const db = `prisma_shadow_${crypto.randomUUID().replaceAll("-", "")}`;
    await admin.query(`CREATE DATABASE "${db}"`);
    const a = await new PrismaPg({ ...cfg, database: db }).connect();
    const dispose = a.dispose.bind(a);
    a.dispose = async () => {
      await dispose();
      await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      await admin.end();
    };
    return a;
  };
  for (const m of ["connect", "connectToShadowDb"]) {
    const orig = factory[m].bind(factory);
    factory[m] = async () => {
      const a = await orig();
      // The adapter splits scripts on every ";", which breaks PL/pgSQL bodies and comments;
      // PostgreSQL runs a whole script as one simple query, as Prisma's native engine sends it.
      a.executeScript = async (script) => void (await a.client.query(script));
      const io = a.performIO?.bind(a);
      if (io)
        a.performIO = async (q) => {
          const r = await io(q);
          for (const f of r.fields ?? []) if (f.dataTypeID === 18) f.dataTypeID = 25; // pg "char" -> text
          return r;
        };
      return a;
    };
  }
  return scriptsOnShadow(factory);
}

function migrationsList(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, "migration_lock.toml");
  return {
    baseDir: dir,
    lockfile: { path: "migration_lock.toml", content: fs.existsSync(lock) ? fs.readFileSync(lock, "utf8") : null },
    shadowDbInitScript: "",
    migrationDirectories: fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
      .map((d) => ({
        path: d,
        migrationFile: {
          path: "migration.sql",
          content: { tag: "ok", value: fs.readFileSync(path.join(dir, d, "migration.sql"), "utf8") },
        },
      })),
  };
}

async function diffFor(SchemaEngine, provider) {
  const schemaPath = path.resolve(`prisma/schema.${provider}.prisma`);
  const schema = { files: [{ path: schemaPath, content: fs.readFileSync(schemaPath, "utf8") }] };
  const factory = bindMigrationAwareSqlAdapterFactory(await makeFactory(provider));
  const engine = await SchemaEngine.new({ datamodels: [[schemaPath, schema.files[0].content]] }, () => {}, factory);
  try {
    const r = await engine.diff({
      from: { tag: "migrations", ...migrationsList(path.resolve(`prisma/migrations/${provider}`)) },
      to: { tag: "schemaDatamodel", ...schema },
      script: true,
      shadowDatabaseUrl: null,
      exitCode: null,
      filters,
    });
    return (r.stdout ?? "").trim();
  } finally {
    engine.free?.();
  }
}

const [cmd, name] = process.argv.slice(2);
execFileSync(process.execPath, ["scripts/sync-schema.mjs"], { stdio: "inherit" });
const SchemaEngine = await loadEngine();
let failed = false;
for (const provider of ["sqlite", "postgresql"]) {
  const sql = await diffFor(SchemaEngine, provider);
  const empty = sql === "" || /^-- This is an empty migration\.?$/.test(sql);
  if (cmd === "check") {
    console.log(`${provider}: ${empty ? "migrations match the schema" : `DRIFT:\n${sql}`}`);
    failed ||= !empty;
  } else if (cmd === "create") {
    if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error("usage: create <name_in_snake_case>");
    if (empty) {
      console.log(`${provider}: no schema changes`);
      continue;
    }
    const ts = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
    const dir = path.resolve(`prisma/migrations/${provider}/${ts}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "migration.sql"), `${sql}\n`);
    console.log(`${provider}: wrote ${path.relative(process.cwd(), dir)}/migration.sql`);
  } else {
    console.error("usage: node scripts/migrate-dev.mjs create <name> | check");
    process.exit(2);
  }
}
process.exit(failed ? 1 : 0);
