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
import net from "node:net";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";

const pages = process.argv.slice(2).length ? process.argv.slice(2) : ["/signin"];

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

if (!fs.existsSync("dist/server.mjs") || !fs.existsSync(".next/BUILD_ID")) {
  console.error("run `npm run build` first");
  process.exit(1);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "first-load-"));
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const app = spawn(process.execPath, ["dist/server.mjs"], {
  env: {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    APP_URL: `http://localhost:${port}`,
    DATABASE_URL: `file:${path.join(dir, "bench.db")}`,
    NEXTAUTH_SECRET: "bench-only-secret-bench-only-secret",
    WORKER_IN_PROCESS: "false",
    LOG_LEVEL: "warn",
  },
  stdio: ["ignore", "ignore", "inherit"],
});

try {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (app.exitCode !== null) throw new Error("server exited");
    try {
      if ((await fetch(`${origin}/healthz`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error("server did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
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
