#!/usr/bin/env node
// `npm run dev`: the app with Next in development mode (hot reload for app/ and components/).
// The service layer runs compiled (lib/dist/index.mjs, the one copy that server.ts and the
// dashboard share), so esbuild watches lib/ and server.ts, and after a change there the
// server restarts: Node cannot reload a module it has already loaded.
import { spawn } from "node:child_process";
import { watch } from "./build-server.mjs";

let server = null;

function start() {
  const child = spawn(process.execPath, ["--enable-source-maps", "dist/server.mjs"], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "development" },
  });
  child.on("exit", (code, signal) => {
    if (server === child) {
      server = null;
      console.log(`[dev] the server stopped (${signal ?? `exit ${code}`}); it starts again after the next change`);
    }
  });
  server = child;
}

function restart() {
  const old = server;
  if (!old) return start();
  server = null;
  old.once("exit", start);
  old.kill("SIGTERM");
}

await watch((result) => {
  if (result.errors.length) return; // esbuild printed them; the running server stays up
  if (server) console.log("[dev] lib/ or server.ts changed: restarting the server");
  restart();
});

for (const signal of ["SIGINT", "SIGTERM"])
  process.once(signal, () => {
    const s = server;
    server = null;
    if (!s) process.exit(0);
    s.once("exit", () => process.exit(0));
    s.kill("SIGTERM");
  });
