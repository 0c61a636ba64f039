import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";

// Drives tests/e2e/support/fakes-process.ts (the provider fakes in a process of their own) from
// a Playwright spec: one JSON command a line, one JSON answer a line.

const ROOT = path.resolve(import.meta.dirname, "../../..");

export interface FakesClient {
  env: Record<string, string>;
  call<T = unknown>(cmd: string, args?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

export async function startFakesProcess(): Promise<FakesClient> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--conditions=react-server", "--import", "tsx", "tests/e2e/support/fakes-process.ts"],
    {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let err = "";
  child.stderr?.on("data", (d) => (err += d));
  const lines = readline.createInterface({ input: child.stdout! });
  const waiting = new Map<number, (v: { ok: boolean; value?: unknown; error?: string }) => void>();
  let resolveEnv: (e: Record<string, string>) => void;
  let rejectEnv: (e: Error) => void;
  const envP = new Promise<Record<string, string>>((res, rej) => {
    resolveEnv = res;
    rejectEnv = rej;
  });
  child.on("exit", (code) => rejectEnv(new Error(`the fakes process exited (${code}):\n${err}`)));
  lines.on("line", (line) => {
    const m = JSON.parse(line) as { env?: Record<string, string>; id?: number; ok: boolean; value?: unknown; error?: string };
    if (m.env) resolveEnv(m.env);
    else if (m.id !== undefined) waiting.get(m.id)?.(m);
  });
  const env = await envP;
  let next = 1;
  const call = <T>(cmd: string, args: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, (m) => {
        waiting.delete(id);
        if (m.ok) resolve(m.value as T);
        else reject(new Error(`fakes ${cmd}: ${m.error}`));
      });
      child.stdin!.write(`${JSON.stringify({ id, cmd, ...args })}\n`);
    });
  return {
    env,
    call,
    stop: async () => {
      if (child.exitCode !== null) return;
      await call("stop").catch(() => undefined);
      if (child.exitCode === null) child.kill();
    },
  };
}
