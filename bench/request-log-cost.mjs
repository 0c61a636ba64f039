#!/usr/bin/env node
// What the request log costs a keyed request (issue 53: the request-path benchmark's ratios may
// not fall by more than 5% with it): two production servers (dist/server.mjs) on one database,
// the same build and settings but REQUEST_LOG_ENABLED=true on one and false on the other,
// measured alternately (off, on, off, on, ...) on the keyed reads bench/production.mjs runs, so
// that a machine whose speed drifts (the 2-core one here: ±20% between separate runs) slows
// both alike. Since bench/production.mjs's limit is the same for both, on/off of req/s is
// what the log takes from the ratio. Also prints each server's CPU per answered request.
//
//   npm run build && node bench/request-log-cost.mjs
//   BENCH_DB=sqlite|postgres|sqlite,postgres  BENCH_SECONDS=5  BENCH_CONNECTIONS=50  BENCH_ROUNDS=4
//   BENCH_ONLY=currencies,exchange: only the endpoints whose name contains one of these
import { spawn, spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { createDatabase, freePort, procCpu, productionEnv, ROOT, requireBuild, UNLIMITED_RATES, waitFor, wanted } from "./support.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const DBS = (process.env.BENCH_DB ?? "sqlite,postgres").split(",");
const ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7";

requireBuild();

const cpuOf = (pid) => procCpu(`/proc/${pid}/stat`);
const load = (opts) =>
  new Promise((resolve, reject) =>
    autocannon({ connections: CONNECTIONS, duration: SECONDS, ...opts }, (err, res) => (err ? reject(err) : resolve(res))),
  );

/** A reseller with a markup and its API key, made through lib in a child process. */
function makeKey(databaseUrl) {
  const src = `
    const { createApp, createApiKey } = await import(${JSON.stringify(path.join(ROOT, "lib/dist/index.mjs"))});
    const app = createApp({ settings: process.env, name: "bench-key" }).install();
    await app.db().reseller.create({ data: { id: "bench", walletAddress: ${JSON.stringify(ADDRESS)}, markupBps: 100 } });
    console.log((await createApiKey(app.db(), { resellerId: "bench", name: "bench" })).key);
    await app.close();`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", src], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim().split("\n").at(-1);
}

const fmt = (n, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

async function benchDatabase(kind) {
  const db = await createDatabase(kind);
  const servers = {};
  try {
    for (const log of ["off", "on"]) {
      const port = await freePort();
      const child = spawn(process.execPath, ["dist/server.mjs"], {
        cwd: ROOT,
        env: { ...productionEnv(port, db.url), ...UNLIMITED_RATES, REQUEST_LOG_ENABLED: String(log === "on") },
        stdio: ["ignore", "ignore", "inherit"],
      });
      servers[log] = { child, base: `http://127.0.0.1:${port}` };
      // One at a time: the first migrates the database.
      await waitFor(`${servers[log].base}/healthz`, child, `app (log ${log})`);
    }
    const key = makeKey(db.url);
    const headers = { "x-api-key": key };
    const ids = [];
    for (let i = 0; i < 200; i++) {
      const r = await fetch(`${servers.off.base}/api/v1/exchange`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ from: "btc", to: "eth", amount: "0.01", address: ADDRESS }),
      });
      if (r.status !== 201) throw new Error(`POST /exchange: ${r.status} ${await r.text()}`);
      ids.push((await r.json()).id);
    }
    const all = [
      ["GET /currencies keyed", (base) => ({ url: `${base}/api/v1/currencies`, headers })],
      ["GET /estimate keyed", (base) => ({ url: `${base}/api/v1/estimate?from=btc&to=eth&amount=0.1`, headers })],
      [
        "GET /exchange/{id} keyed",
        (base) => {
          let n = 0;
          return {
            url: base,
            headers,
            requests: [{ setupRequest: (req) => ({ ...req, path: `/api/v1/exchange/${ids[n++ % ids.length]}` }) }],
          };
        },
      ],
    ];
    const cases = all.filter(([name]) => wanted(name));
    const results = {};
    console.log(`\n${kind}: ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds, log off and on alternately`);
    for (const [, opts] of cases) for (const log of ["off", "on"]) await load({ ...opts(servers[log].base), duration: 2 }); // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, opts] of cases) {
        // Which goes first alternates by round, so that neither always runs after the other.
        for (const log of round % 2 ? ["off", "on"] : ["on", "off"]) {
          const pid = servers[log].child.pid;
          const before = cpuOf(pid);
          const res = await load(opts(servers[log].base));
          const after = cpuOf(pid);
          const ok = res["2xx"];
          const bad = res.non2xx + res.errors + res.timeouts;
          if (bad) throw new Error(`${name} (log ${log}): ${bad} failed requests`);
          const sys = ((after.system - before.system) * 1e6) / ok;
          const cpu = ((after.user - before.user) * 1e6) / ok + sys;
          results[`${name}|${log}`] ??= [];
          results[`${name}|${log}`].push({ rps: ok / SECONDS, cpu, sys });
          console.log(
            `  round ${round} ${name.padEnd(26)} log ${log.padEnd(3)} ${fmt(ok / SECONDS).padStart(7)} req/s  cpu ${fmt(cpu, 1).padStart(6)} µs/req (system ${fmt(sys, 1)})`,
          );
        }
      }
    }
    const mean = (xs, k) => xs.reduce((s, x) => s + x[k], 0) / xs.length;
    return cases.map(([name]) => {
      const off = results[`${name}|off`];
      const on = results[`${name}|on`];
      // The median of each round's on/off pair: one slow 5 s run (the machine's, not the log's)
      // moves a mean of 8 by several percent, the median hardly.
      const pairs = on.map((x, i) => x.rps / off[i].rps).sort((a, b) => a - b);
      const median = (pairs[(pairs.length - 1) >> 1] + pairs[pairs.length >> 1]) / 2;
      return {
        name,
        offRps: mean(off, "rps"),
        onRps: mean(on, "rps"),
        median,
        offCpu: mean(off, "cpu"),
        onCpu: mean(on, "cpu"),
        offSys: mean(off, "sys"),
        onSys: mean(on, "sys"),
      };
    });
  } finally {
    for (const s of Object.values(servers)) s.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 1500));
    await db.drop();
  }
}

const all = {};
for (const kind of DBS) all[kind] = await benchDatabase(kind);
console.log(
  `\n${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} cores, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
console.log(
  "| database | endpoint | req/s log off | req/s log on | on/off (means) | on/off (median of rounds) | CPU µs/req off | CPU µs/req on | difference | of which system, off → on |",
);
console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
for (const [kind, rows] of Object.entries(all))
  for (const r of rows)
    console.log(
      `| ${kind} | \`${r.name}\` | ${fmt(r.offRps)} | ${fmt(r.onRps)} | ${fmt(r.onRps / r.offRps, 3)} | **${fmt(r.median, 3)}** | ${fmt(r.offCpu, 1)} | ${fmt(r.onCpu, 1)} | ${r.onCpu >= r.offCpu ? "+" : ""}${fmt(r.onCpu - r.offCpu, 1)} | ${fmt(r.offSys, 1)} → ${fmt(r.onSys, 1)} |`,
    );
