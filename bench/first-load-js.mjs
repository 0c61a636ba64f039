#!/usr/bin/env node
// First-load JavaScript of dashboard pages on the production build: what a browser fetches
// before the page is interactive. `next build` (Next 16, Turbopack) no longer prints sizes,
// so this starts dist/server.mjs, requests each page, collects every <script src> of the
// served HTML (the inline RSC payload is data, not code, and is left out), downloads those
// chunks and prints their raw and gzip (level 9) sizes.
//
//   npm run build && node bench/first-load-js.mjs [/signin ...]
//
// Pages behind the session redirect to /signin, so by default only /signin is measured.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { freePort, productionEnv, requireBuild, waitFor } from "./support.mjs";

const pages = process.argv.slice(2).length ? process.argv.slice(2) : ["/signin"];

requireBuild();

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "first-load-"));
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const app = spawn(process.execPath, ["dist/server.mjs"], {
  env: { ...productionEnv(port, `file:${path.join(dir, "bench.db")}`), WORKER_IN_PROCESS: "false" },
  stdio: ["ignore", "ignore", "inherit"],
});

try {
  await waitFor(`${origin}/healthz`, app, "server");
  for (const page of pages) {
    const html = await (await fetch(origin + page)).text();
    const srcs = [...new Set([...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, "&")))];
    let raw = 0;
    let gz = 0;
    for (const src of srcs) {
      const bytes = Buffer.from(await (await fetch(new URL(src, origin))).arrayBuffer());
      raw += bytes.length;
      gz += zlib.gzipSync(bytes, { level: 9 }).length;
    }
    const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
    console.log(`${page}: ${srcs.length} script chunks, ${kb(raw)} raw, ${kb(gz)} gzip`);
  }
} finally {
  app.kill("SIGTERM");
  fs.rmSync(dir, { recursive: true, force: true });
}
