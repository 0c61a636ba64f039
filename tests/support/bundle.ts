import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { build } from "esbuild";
// @ts-expect-error: a plain .mjs build script without type declarations
import { cliOptions } from "../../scripts/build-server.mjs";
import { ROOT } from "./server";

// A TypeScript entry point (the operator CLI, a test's child process) bundled with esbuild the
// way `npm run build` bundles dist/cli.mjs, once per test process and entry (about 0.3 s), so
// a child runs plain `node` on one file: no tsx loader compiling lib/ again in every child
// (each such start cost 1.5 s alone, 3 s and more beside other test files), and never a stale
// dist/. The file is named by its content, under node_modules/ so that its npm imports resolve:
// the test processes of one run share one file (vitest kills its workers, so a file per process
// was never cleaned up), and the bundles of older sources are deleted after a day.
const built = new Map<string, Promise<string>>();
const DAY_MS = 86_400_000;

/** The path of `entry`'s bundle (an .mjs file), `entry` relative to the repository's root. */
export function bundledScript(entry: string): Promise<string> {
  let p = built.get(entry);
  if (!p) {
    p = bundle(entry);
    built.set(entry, p);
  }
  return p;
}

async function bundle(entry: string): Promise<string> {
  const dir = path.join(ROOT, "node_modules/.cache/reseller-cli-test");
  const name = path.basename(entry).replace(/\.ts$/, "");
  const r = await build({
    ...cliOptions,
    absWorkingDir: ROOT,
    entryPoints: { [name]: path.join(ROOT, entry) },
    outdir: dir,
    sourcemap: "inline",
    write: false,
  });
  const bytes = r.outputFiles?.[0]?.contents;
  if (!bytes) throw new Error(`esbuild made no bundle of ${entry}`);
  const file = path.join(dir, `${name}-${crypto.createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.mjs`);
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
}
