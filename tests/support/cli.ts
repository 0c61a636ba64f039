import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
// @ts-expect-error: a plain .mjs build script without type declarations
import { cliOptions } from "../../scripts/build-server.mjs";
import { ROOT } from "./server";

const run = promisify(execFile);

// The operator CLI as operators run it: the esbuild bundle `npm run build` makes (dist/cli.mjs),
// built here from the current sources once per test process (about 0.3 s), so a test never
// runs a stale dist/. Each command then starts in about 0.6 s, where tsx on scripts/cli.ts took
// 1.5 s alone and 3 s and more beside other test files. The file is named by its content, under
// node_modules/ so that its npm imports resolve: the test processes of one run share one file
// (vitest kills its workers, so a file per process was never cleaned up), and the bundles of
// older sources are deleted after a day.
let built: Promise<string> | null = null;
const DAY_MS = 86_400_000;

function compiledCli(): Promise<string> {
  built ??= (async () => {
    const dir = path.join(ROOT, "node_modules/.cache/reseller-cli-test");
    const r = await build({
      ...cliOptions,
      absWorkingDir: ROOT,
      entryPoints: { cli: path.join(ROOT, "scripts/cli.ts") },
      outdir: dir,
      sourcemap: "inline",
      write: false,
    });
    const bytes = r.outputFiles?.[0]?.contents;
    if (!bytes) throw new Error("esbuild made no CLI bundle");
    const file = path.join(dir, `cli-${crypto.createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.mjs`);
    fs.mkdirSync(dir, { recursive: true });
    if (!fs.existsSync(file)) {
      // Written under a name of this process's, then renamed: another process never runs half a file.
      fs.writeFileSync(`${file}.${process.pid}`, bytes);
      fs.renameSync(`${file}.${process.pid}`, file);
    }
    // Bundles of older sources: gone after a day.
    for (const f of fs.readdirSync(dir)) {
      const at = path.join(dir, f);
      const st = fs.statSync(at, { throwIfNoEntry: false }); // another process may have just deleted it
      if (at !== file && st && Date.now() - st.mtimeMs > DAY_MS) fs.rmSync(at, { force: true });
    }
    return file;
  })();
  return built;
}

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/**
 * Runs one CLI command against `databaseUrl`, in this process: an app of its own (as a fresh
 * CLI process would have), built with these settings and closed after the command
 * (lib/app/create-app.ts, cli()). A non-zero exit is returned, not thrown.
 */
export async function runCli(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const { createApp } = await import("@/lib/app/create-app");
  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    app = createApp({ settings: { ...process.env, ...env, DATABASE_URL: databaseUrl }, name: "cli" });
  } catch (e) {
    return { code: 1, out: "", err: `error: ${(e as Error).message}\n` };
  }
  try {
    return await app.cli(args);
  } finally {
    await app.close();
  }
}

/**
 * The same as a program: the operator CLI's bundle (dist/cli.mjs as `npm run build` makes it,
 * from the current sources) in a process of its own. For the smoke test of the program itself,
 * and for the browser tests' process, which does not load lib/.
 */
export async function runCliProcess(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
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
