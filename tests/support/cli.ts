import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
// @ts-expect-error: a plain .mjs build script without type declarations
import { cliOptions } from "../../scripts/build-server.mjs";

const ROOT = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

// The operator CLI as operators run it: the esbuild bundle `npm run build` makes (dist/cli.mjs),
// built here from the current source, once per test process, into a folder of that process
// (under node_modules/, so its npm imports resolve; about 0.3 s). Never a stale dist/, and
// each command starts in about 0.6 s where tsx on scripts/cli.ts took 1.5 s alone, 3 s and
// more beside other test files.
let built: Promise<string> | null = null;

function compiledCli(): Promise<string> {
  built ??= (async () => {
    const dir = path.join(ROOT, "node_modules/.cache/reseller-cli-test", String(process.pid));
    await build({ ...cliOptions, absWorkingDir: ROOT, entryPoints: { cli: path.join(ROOT, "scripts/cli.ts") }, outdir: dir });
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
    return path.join(dir, "cli.mjs");
  })();
  return built;
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs one CLI command against `databaseUrl`; a non-zero exit is returned, not thrown. */
export async function runCli(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const file = await compiledCli();
  try {
    const r = await run(process.execPath, ["--enable-source-maps", file, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env, DATABASE_URL: databaseUrl },
    });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}
