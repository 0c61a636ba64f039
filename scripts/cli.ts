import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { createApp } from "@/lib/app/create-app";

// The operator's command line (npm run cli -- <command>; the commands are in lib/app/cli.ts):
// builds the app from the environment, runs one command, prints what it wrote and exits with
// its code. Built to dist/cli.mjs (scripts/build-server.mjs).

async function main(args: string[]): Promise<number> {
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp({ settings: process.env, name: "cli" }).install();
  } catch (e) {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  try {
    const r = await app.cli(args, { out: (line) => console.log(line), err: (line) => console.error(line) });
    return r.code;
  } finally {
    await app.close();
  }
}

// The real path: Node's loader names a module by it, while argv keeps a symlinked folder as it was typed.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href)
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
