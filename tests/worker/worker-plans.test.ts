import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { newHeartbeat } from "@/lib/jobs/heartbeat";
import { runWebhooksOnce } from "@/lib/webhooks/sender";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { createSimulatedSender } from "@/lib/withdrawals/sender/simulated";
import { runWorkerOnce } from "@/lib/worker/run-worker";

// A worker pass runs every WORKER_POLL_MS (500 ms) in every app process. On SQLite its
// statements run synchronously on the event loop, so one that scans a table growing with the
// orders (every waiting order of the last hour, say) stalls every API request of the process
// for as long as the scan takes: 140 ms a pass at 200,000 waiting orders, before the indexes
// of 20261123090000_worker_indexes. Each statement of a pass must find its rows by an index.
const GROWING = ["Order", "OrderEvent", "LedgerEntry", "Withdrawal", "WithdrawalLeg", "WebhookDelivery", "WebhookMessage", "RateQuote"];

let dir: string;
let file: string;
let db: Db;
const statements: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "worker-plans-"));
  file = path.join(dir, "w.db");
  await migrate(`file:${file}`);
  db = createDb(`file:${file}`, undefined, { trace: (sql) => statements.push(sql) });
  // Open orders of every kind the pass looks at: waiting (due or not, expired or not), further
  // on, a reservation whose opening died, one under a live claim.
  const s = new Database(file);
  const now = Date.now();
  const at = (ms: number) => new Date(now + ms).toISOString().replace("Z", "+00:00");
  const insert = s.prepare(
    `INSERT INTO "Order" ("id", "fromCurrency", "toCurrency", "fromAmount", "rate", "rawToAmount", "toAmount", "platformFeeBps",
       "markupBps", "profit", "payinAddress", "payoutAddress", "status", "expiresAt", "nextActionAt", "leaseToken", "leaseUntil",
       "createdAt", "updatedAt")
     VALUES (?, 'btc', 'eth', '0.1', '1', '1', '1', 25, 0, '0', ?, '0x52908400098527886E0F7030069857D2E4169EE7', ?, ?, ?, ?, ?, ?, ?)`,
  );
  s.transaction(() => {
    for (let i = 0; i < 300; i++) {
      const id = i.toString(16).padStart(24, "0");
      const kind = i % 6;
      insert.run(
        id,
        kind === 4 ? null : `addr${i}`,
        kind === 3 ? "exchanging" : "waiting",
        at(kind === 1 ? -60_000 : 3_600_000),
        kind === 2 || kind === 3 ? at(-1_000) : null,
        kind === 4 || kind === 5 ? `lease${i}` : null,
        kind === 4 ? at(-3_600_000) : kind === 5 ? at(60_000) : null,
        at(-i),
        at(-i),
      );
    }
  })();
  s.close();
});
afterAll(async () => {
  await db?.$disconnect();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The steps of a statement's plan that read a whole growing table, or every row of one state
 * of it (an index used on `status` alone: all the waiting orders, say).
 */
function fullScans(plan: Database.Database, sql: string): string[] {
  const rows = plan.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[];
  return rows
    .map((r) => r.detail)
    .filter((d) => {
      const scan = /^SCAN (main\.)?"?(\w+)"?/.exec(d);
      const byState = /^SEARCH (main\.)?"?(\w+)"? USING (COVERING )?INDEX \S+ \(status=\?\)$/.exec(d);
      const m = scan ?? byState;
      return m !== null && GROWING.includes(m[2]);
    });
}

it("every statement of a worker pass finds its rows by an index", async () => {
  statements.length = 0;
  const now = new Date();
  const changed = await runWorkerOnce(db, now);
  await runWithdrawalsOnce(db, createSimulatedSender(1));
  await runWebhooksOnce(db, now);
  await newHeartbeat({ inProcess: true }).beat(db, now);
  const ran = [...statements];

  // The pass did its work: the dead reservation went, the due and expired orders moved on.
  expect(await db.order.count({ where: { payinAddress: null } })).toBe(0);
  expect(changed).toBeGreaterThan(0);

  const reads = [...new Set(ran.filter((q) => /^\s*(SELECT|UPDATE|DELETE|WITH)\b/i.test(q)))];
  expect(reads.length).toBeGreaterThan(5);
  const plan = new Database(file, { readonly: true });
  try {
    const offenders = reads.map((q) => ({ q, scans: fullScans(plan, q) })).filter((x) => x.scans.length);
    expect(offenders).toEqual([]);
  } finally {
    plan.close();
  }
});
