// The request path's parts timed in one process, without sockets (bench/in-process.mjs builds
// and runs this): the per-call cost of each part, apart from the HTTP figures that
// production.mjs measures. DATABASE_URL is a fresh database; the process migrates it.
import { createApp } from "@/lib/app/create-app";
import { getConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import type { ApiRequest } from "@/lib/http/request";
import { apiRoute } from "@/lib/http/route";
import { getCurrencies as currencies } from "@/lib/http/v1/currencies";
import { getEstimateHandler as estimateHandler } from "@/lib/http/v1/estimate";
import { postExchange as exchange } from "@/lib/http/v1/exchange";
import { authenticateApiKey, createApiKey } from "@/lib/keys/api-keys";
import { startProcessKeyCache, stopProcessKeyCache } from "@/lib/keys/key-cache";
import { createOrder } from "@/lib/orders/create-order";
import { getOrderForCaller } from "@/lib/orders/get-order";

// The handlers as the router runs them (lib/http/app.ts): through the one wrapper, as its table's
// v1 entries say, keyed calls logged (REQUEST_LOG_ENABLED=false: the log's cost left out).
const getCurrencies = apiRoute({ auth: "apiKey", handler: currencies, logAs: "/api/v1/currencies" });
const getEstimateHandler = apiRoute({ auth: "apiKey", handler: estimateHandler, logAs: "/api/v1/estimate" });
const postExchange = apiRoute({ auth: "apiKey", creation: true, handler: exchange, logAs: "/api/v1/exchange" });

const CALLS = Number(process.env.BENCH_CALLS ?? 100_000);
const ORDERS = Number(process.env.BENCH_ORDERS ?? 6000);
const ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7";
const env = { ip: "127.0.0.1", params: {} };

function request(url: string, headers: Record<string, string>, body?: Buffer): ApiRequest {
  const q = url.indexOf("?");
  return {
    method: body ? "POST" : "GET",
    path: q === -1 ? url : url.slice(0, q),
    query: new URLSearchParams(q === -1 ? "" : url.slice(q + 1)),
    hasBody: body !== undefined,
    header: (name) => headers[name] ?? null,
    chunks: async function* () {
      if (body) yield body;
    },
  };
}

/** Wall time and user CPU per call, after a fifth as many warm-up calls; `batch` calls at a time. */
async function time(label: string, calls: number, fn: () => unknown, batch = 1) {
  const run = async (n: number) => {
    for (let i = 0; i < n; i += batch) await Promise.all(Array.from({ length: batch }, fn));
  };
  await run(Math.ceil(calls / 5));
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await run(calls);
  const wall = Number(process.hrtime.bigint() - start) / 1000 / calls;
  const user = process.cpuUsage(cpu).user / calls;
  console.log(`  ${label.padEnd(50)} ${wall.toFixed(2).padStart(8)} µs wall ${user.toFixed(2).padStart(8)} µs user CPU`);
}

async function main() {
  const only = process.env.BENCH_ONLY?.split(",");
  const wanted = (label: string) => !only || only.some((o) => label.includes(o));
  // The library's functions find their config and client in the process's app (lib/app/create-app.ts).
  createApp({ settings: process.env, name: "bench" }).install();
  await migrate(getConfig().DATABASE_URL);
  await startProcessKeyCache(3000);
  const db = getDb();
  // A markup, so that its keyed orders book a profit (as bench/production.mjs's reseller does).
  await db.reseller.create({ data: { id: "bench-reseller", walletAddress: `0x${"ab".repeat(20)}`, markupBps: 100 } });
  const { key } = await createApiKey(db, { resellerId: "bench-reseller", name: "bench" });
  const ids: string[] = [];
  for (let i = 0; i < 200; i++)
    ids.push(
      (await createOrder(db, { input: { from: "btc", to: "eth", amount: "0.1", address: ADDRESS }, caller: null, ctx: { scope: `s${i}` } }))
        .order.id,
    );
  let n = 0;
  const estimate = "/api/v1/estimate?from=btc&to=eth&amount=0.1";
  const cases: [string, number, () => unknown, number?][] = [
    ["authenticateApiKey, a cached key", CALLS, () => authenticateApiKey(db, key)],
    ["GET /currencies handler, keyless", CALLS, () => getCurrencies(request("/api/v1/currencies", {}), env)],
    ["GET /currencies handler, keyed", CALLS, () => getCurrencies(request("/api/v1/currencies", { "x-api-key": key }), env)],
    ["GET /estimate handler, keyless", CALLS, () => getEstimateHandler(request(estimate, {}), env)],
    ["GET /estimate handler, keyed", CALLS, () => getEstimateHandler(request(estimate, { "x-api-key": key }), env)],
    // A new amount each call: none is answered from the price memo (lib/quotes/price-memo.ts).
    [
      "GET /estimate handler, keyless, a new amount each call",
      CALLS,
      () => getEstimateHandler(request(`${estimate}${String(n++ % 1_000_000).padStart(6, "0")}`, {}), env),
    ],
    [
      "order read with its timeline (getOrderForCaller)",
      CALLS,
      () => getOrderForCaller(db, { orderId: ids[n++ % ids.length], caller: null }),
    ],
    ...(["keyless", "keyed"] as const).map((who): [string, number, () => unknown, number] => [
      `POST /exchange handler, ${who}, 20 at a time`,
      ORDERS,
      async () => {
        const body = Buffer.from(
          JSON.stringify({ from: "btc", to: "eth", amount: `0.01${String(++n).padStart(6, "0")}`, address: ADDRESS }),
        );
        const headers: Record<string, string> = { "content-type": "application/json", "content-length": String(body.length) };
        // Keyed: the order books its reseller's pending profit (the journal, Balance and rollup rows).
        if (who === "keyed") headers["x-api-key"] = key;
        const r = await postExchange(request("/api/v1/exchange", headers, body), env);
        if (r.status !== 201) throw new Error(`POST /exchange: ${r.status}`);
      },
      20,
    ]),
  ];
  console.log(`${getConfig().databaseProvider}:`);
  for (const [label, calls, fn, batch] of cases) if (wanted(label)) await time(label, calls, fn, batch);
  await stopProcessKeyCache();
  await db.$disconnect();
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
