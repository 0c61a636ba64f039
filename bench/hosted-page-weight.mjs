#!/usr/bin/env node
// The weight of the end user's pages (issue 51): /x/<reseller>, /w/<widget> and an order's
// status page, on the production build. For each: the HTML's bytes raw, gzip (level 9) and
// brotli (quality 11), the stylesheets' bytes compressed, the scripts' (every <script src> the
// page loads, summed) and the total without JavaScript (HTML + CSS), which Tor Browser's
// "Safest" level downloads. The app sends uncompressed bytes (the TLS proxy in front
// compresses, docs/deploy.md); the compressed figures are computed here with Node's zlib.
// The aim: HTML + CSS at most 40 KB compressed (gzip).
//
//   npm run build && node bench/hosted-page-weight.mjs
//   BENCH_URL=http://127.0.0.1:3000 BENCH_RESELLER=<id> BENCH_WIDGET=<id> node bench/hosted-page-weight.mjs   (a running server)
//
// Without BENCH_URL it starts dist/server.mjs on a fresh SQLite file (SANDBOX=true) and writes
// a reseller and a widget into it; the status page is of an order made through the hosted API.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import Database from "better-sqlite3";
import { freePort, productionEnv, requireBuild, waitFor } from "./support.mjs";

const RESELLER = process.env.BENCH_RESELLER ?? "resBench1";
const WIDGET = process.env.BENCH_WIDGET ?? "wgBench1";
let origin = process.env.BENCH_URL;
let app = null;
let dir = null;

if (!origin) {
  requireBuild();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "hosted-weight-"));
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const dbFile = path.join(dir, "bench.db");
  app = spawn(process.execPath, ["dist/server.mjs"], {
    env: { ...productionEnv(port, `file:${dbFile}`), APP_URL: origin, SANDBOX: "true", WORKER_IN_PROCESS: "false" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitFor(`${origin}/healthz`, app, "server");
  const db = new Database(dbFile);
  const now = new Date().toISOString();
  db.prepare(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES (?, ?, ?)`).run(RESELLER, `0x${"ab".repeat(20)}`, now);
  db.prepare(`INSERT INTO "Widget" ("id", "resellerId", "name", "updatedAt") VALUES (?, ?, ?, ?)`).run(
    WIDGET,
    RESELLER,
    "Bench widget",
    now,
  );
  db.close();
}

const gz = (b) => zlib.gzipSync(b, { level: 9 }).length;
const br = (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const kb = (n) => (n / 1024).toFixed(1);
const get = async (url) => Buffer.from(await (await fetch(url, { headers: { "accept-encoding": "identity" } })).arrayBuffer());

async function statusPage() {
  const res = await fetch(`${origin}/api/hosted/orders`, {
    method: "POST",
    headers: { "content-type": "application/json", "sec-fetch-site": "same-origin" },
    body: JSON.stringify({ r: RESELLER, from: "btc", to: "eth", amount: "0.1", address: `0x${"1f".repeat(20)}` }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`order: ${res.status} ${JSON.stringify(body)}`);
  // The secret in the query (a server before issue 51 had it in the fragment, which no server sees).
  return `/o/${body.order.id}?t=${body.token}`;
}

try {
  const pages = [
    ["/x (hosted page)", `/x/${RESELLER}`],
    ["/w (widget)", `/w/${WIDGET}`],
    ["/o (status, waiting)", await statusPage()],
  ];
  const rows = [];
  for (const [what, url] of pages) {
    const html = await get(origin + url);
    const text = html.toString("utf8");
    const attr = (re) => [...new Set([...text.matchAll(re)].map((m) => m[1].replace(/&amp;/g, "&")))];
    const css = attr(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g).concat(
      attr(/<link[^>]*href="([^"]+\.css[^"]*)"[^>]*rel="stylesheet"/g),
    );
    const js = attr(/<script[^>]*\ssrc="([^"]+)"/g);
    let cssGz = 0;
    let cssBr = 0;
    for (const href of new Set(css)) {
      const b = await get(new URL(href, origin));
      cssGz += gz(b);
      cssBr += br(b);
    }
    let jsGz = 0;
    for (const src of js) jsGz += gz(await get(new URL(src, origin)));
    // The inlined RSC payload (self.__next_f.push(...) scripts): the page's data a second time.
    const inline = [...text.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].reduce((n, m) => n + Buffer.byteLength(m[1]), 0);
    rows.push({
      page: what,
      "HTML raw KB": kb(html.length),
      "HTML gzip KB": kb(gz(html)),
      "HTML br KB": kb(br(html)),
      "inline scripts raw KB": kb(inline),
      "CSS gzip KB": kb(cssGz),
      "JS gzip KB": `${kb(jsGz)} (${js.length} files)`,
      "no-JS total gzip KB": kb(gz(html) + cssGz),
      "no-JS total br KB": kb(br(html) + cssBr),
    });
  }
  console.table(rows);
} finally {
  if (app) app.kill("SIGTERM");
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
