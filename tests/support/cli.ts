import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { bundledScript } from "./bundle";
import { ROOT } from "./server";

const run = promisify(execFile);

// The operator CLI as operators run it: the esbuild bundle `npm run build` makes (dist/cli.mjs),
// built from the current sources once per test process (tests/support/bundle.ts). Each command
// then starts in about 0.6 s, where tsx on scripts/cli.ts took 1.5 s alone.
const compiledCli = () => bundledScript("scripts/cli.ts");

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
