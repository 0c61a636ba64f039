import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createDb } from "@/lib/db/client";
import { migrate } from "@/lib/db/migrate";
import { checkLedger } from "@/lib/ledger/check";
import { settleProfit, settleWithdrawal } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { createDatabase } from "../support/server";

// The move to double-entry journals on both databases: a database at the previous migrations
// with the traffic the single-entry ledger wrote (orders finished, failed and open; withdrawals
// confirmed, failed and queued; a credit without an order), written row for row as the previous
// code wrote it (lib/ledger/ledger.ts before journals: entries and Balance rows in the same
// transaction), is migrated: every balance is unchanged, every entry kept, every journal
// balances and the whole check is clean; the new code then goes on from there.

const JOURNALS = "_journals";
const T = "2026-11-20 10:00:00";

/** What the previous release wrote, as SQL both databases take. */
function traffic(pg: boolean): string[] {
  const num = (x: string) => (pg ? `${x}::numeric` : `'${x}'`);
  const at = pg ? `'${T}'::timestamp` : `'${T}'`;
  const rows: string[] = [];
  const reseller = (id: string, wallet: string) =>
    rows.push(`INSERT INTO "Reseller" ("id", "walletAddress", "updatedAt") VALUES ('${id}', '${wallet}', ${at})`);
  const order = (id: string, r: string, to: string, profit: string, status: string, provider: string | null) =>
    rows.push(
      `INSERT INTO "Order" ("id", "resellerId", "fromCurrency", "toCurrency", "fromAmount", "rate", "rawToAmount", "toAmount", "platformFeeBps", "markupBps", "profit", "payinAddress", "payoutAddress", "status", "provider", "expiresAt", "updatedAt") VALUES ('${id}', '${r}', 'btc', '${to}', ${num("0.1")}, ${num("20")}, ${num("2")}, ${num(new D(2).minus(profit).toFixed())}, 25, 150, ${num(profit)}, 'x', 'y', '${status}', ${provider ? `'${provider}'` : "NULL"}, ${at}, ${at})`,
    );
  const entry = (r: string, o: string | null, w: string | null, c: string, bucket: string, kind: string, amount: string) =>
    rows.push(
      `INSERT INTO "LedgerEntry" ("resellerId", "orderId", "withdrawalId", "currency", "bucket", "kind", "amount", "createdAt") VALUES ('${r}', ${o ? `'${o}'` : "NULL"}, ${w ? `'${w}'` : "NULL"}, '${c}', '${bucket}', '${kind}', ${num(amount)}, ${at})`,
    );
  const balance = (r: string, c: string, pending: string, available: string, reserved: string) =>
    rows.push(
      `INSERT INTO "Balance" ("resellerId", "currency", "pending", "available", "reserved", "updatedAt") VALUES ('${r}', '${c}', ${num(pending)}, ${num(available)}, ${num(reserved)}, ${at})`,
    );
  const withdrawal = (id: string, r: string, status: string, amount: string, legs: [string, string, string][], hash: string | null) => {
    rows.push(
      `INSERT INTO "Withdrawal" ("id", "resellerId", "status", "asset", "decimals", "chainId", "destination", "amount", "usdValue", "feePolicy", "fee", "confirmationNonce", "txHash", "updatedAt") VALUES ('${id}', '${r}', '${status}', 'eth', 18, 1, '0x01', ${num(amount)}, ${num("600")}, 'operator', ${num("0")}, 'n-${id}', ${hash ? `'${hash}'` : "NULL"}, ${at})`,
    );
    for (const [c, a, rate] of legs)
      rows.push(
        `INSERT INTO "WithdrawalLeg" ("withdrawalId", "currency", "amount", "rate", "priceUsd", "assetPriceUsd") VALUES ('${id}', '${c}', ${num(a)}, ${num(rate)}, ${num("1")}, ${num("1")})`,
      );
    if (hash)
      rows.push(
        `INSERT INTO "PayoutTx" ("withdrawalId", "chainId", "fromAddress", "accountNonce", "rawTx", "hash", "status", "updatedAt") VALUES ('${id}', 1, '0x02', ${rows.length}, '0x', '${hash}', '${status === "confirmed" ? "mined" : "reverted"}', ${at})`,
      );
  };

  reseller("r1", "0x0000000000000000000000000000000000000001");
  reseller("r2", "0x0000000000000000000000000000000000000002");
  // Finished (ChangeNOW): pending, then released and settled.
  order("o-fin", "r1", "eth", "0.03", "finished", "changenow");
  entry("r1", "o-fin", null, "eth", "pending", "order_profit_pending", "0.03");
  entry("r1", "o-fin", null, "eth", "pending", "order_profit_release", "-0.03");
  entry("r1", "o-fin", null, "eth", "available", "order_profit_settle", "0.03");
  order("o-btc", "r1", "btc", "0.01", "finished", "sideshift");
  entry("r1", "o-btc", null, "btc", "pending", "order_profit_pending", "0.01");
  entry("r1", "o-btc", null, "btc", "pending", "order_profit_release", "-0.01");
  entry("r1", "o-btc", null, "btc", "available", "order_profit_settle", "0.01");
  // Failed (simulated engine): pending, then reversed.
  order("o-fail", "r1", "eth", "0.02", "failed", null);
  entry("r1", "o-fail", null, "eth", "pending", "order_profit_pending", "0.02");
  entry("r1", "o-fail", null, "eth", "pending", "order_profit_reverse", "-0.02");
  // Still open: pending.
  order("o-open", "r1", "btc", "0.001", "sending", null);
  entry("r1", "o-open", null, "btc", "pending", "order_profit_pending", "0.001");
  // Another reseller, with a credit that has no order (the old test helper's, an adjustment).
  order("o-xmr", "r2", "xmr", "0.75", "finished", "fixedfloat");
  entry("r2", "o-xmr", null, "xmr", "pending", "order_profit_pending", "0.75");
  entry("r2", "o-xmr", null, "xmr", "pending", "order_profit_release", "-0.75");
  entry("r2", "o-xmr", null, "xmr", "available", "order_profit_settle", "0.75");
  entry("r2", null, null, "usdc", "available", "order_profit_settle", "5.123456");
  // Confirmed: 0.01 BTC at 20 and 0.01 ETH one to one, as 0.21 ETH.
  withdrawal(
    "w-ok",
    "r1",
    "confirmed",
    "0.21",
    [
      ["btc", "0.01", "20"],
      ["eth", "0.01", "1"],
    ],
    `0x${"a".repeat(64)}`,
  );
  for (const c of ["btc", "eth"]) {
    entry("r1", null, "w-ok", c, "available", "withdrawal_reserve", "-0.01");
    entry("r1", null, "w-ok", c, "reserved", "withdrawal_reserve", "0.01");
    entry("r1", null, "w-ok", c, "reserved", "withdrawal_settle", "-0.01");
  }
  // Failed: reserved, then restored.
  withdrawal("w-fail", "r1", "failed", "0.01", [["eth", "0.01", "1"]], `0x${"b".repeat(64)}`);
  entry("r1", null, "w-fail", "eth", "available", "withdrawal_reserve", "-0.01");
  entry("r1", null, "w-fail", "eth", "reserved", "withdrawal_reserve", "0.01");
  entry("r1", null, "w-fail", "eth", "reserved", "withdrawal_restore", "-0.01");
  entry("r1", null, "w-fail", "eth", "available", "withdrawal_restore", "0.01");
  // Queued: reserved.
  withdrawal("w-queued", "r1", "queued", "0.005", [["eth", "0.005", "1"]], null);
  entry("r1", null, "w-queued", "eth", "available", "withdrawal_reserve", "-0.005");
  entry("r1", null, "w-queued", "eth", "reserved", "withdrawal_reserve", "0.005");
  balance("r1", "eth", "0", "0.015", "0.005");
  balance("r1", "btc", "0.001", "0", "0");
  balance("r2", "xmr", "0", "0.75", "0");
  balance("r2", "usdc", "0", "5.123456", "0");
  return rows;
}

const BALANCES = [
  { resellerId: "r1", currency: "btc", pending: "0.001", available: "0", reserved: "0" },
  { resellerId: "r1", currency: "eth", pending: "0", available: "0.015", reserved: "0.005" },
  { resellerId: "r2", currency: "usdc", pending: "0", available: "5.123456", reserved: "0" },
  { resellerId: "r2", currency: "xmr", pending: "0", available: "0.75", reserved: "0" },
];

describe.each(["sqlite", "postgres"] as const)("the move to journals on %s", (kind) => {
  it("keeps every balance and entry, books the other side of each, and the check is clean; the new code goes on", async () => {
    const provider = kind === "sqlite" ? "sqlite" : "postgresql";
    const all = fs
      .readdirSync(`prisma/migrations/${provider}`)
      .filter((d) => !d.endsWith(".toml"))
      .sort();
    const last = all.findLast((d) => d.endsWith(JOURNALS))!;
    expect(last).toBeDefined();
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "journals-"));
    for (const d of all.filter((d) => d < last))
      fs.cpSync(`prisma/migrations/${provider}/${d}`, path.join(root, "prisma/migrations", provider, d), { recursive: true });
    const db = await createDatabase(kind);
    try {
      await migrate(db.url, { root });
      if (kind === "sqlite") {
        const s = new Database(db.url.slice("file:".length));
        s.exec(traffic(false).join(";\n"));
        s.close();
      } else {
        const { default: pg } = await import("pg");
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        await c.query(traffic(true).join(";\n"));
        await c.end();
      }
      const conn = createDb(db.url);
      try {
        const balances = () =>
          conn.balance.findMany({
            orderBy: [{ resellerId: "asc" }, { currency: "asc" }],
            select: { resellerId: true, currency: true, pending: true, available: true, reserved: true },
          });
        expect(await balances()).toEqual(BALANCES);
        const entriesBefore = await conn.$queryRawUnsafe<{ n: number | bigint }[]>(`SELECT COUNT(*) AS "n" FROM "LedgerEntry"`);

        expect((await migrate(db.url)).applied.filter((m) => m >= last)).toEqual(all.filter((m) => m >= last));
        expect(await balances()).toEqual(BALANCES);
        expect(await conn.ledgerEntry.count()).toBe(Number(entriesBefore[0].n));
        expect(await checkLedger(conn)).toMatchObject({ ok: true, violations: [] });

        // The other side: the providers' commission, the conversion, the hot wallet.
        const sums = async () => {
          const out: Record<string, string> = {};
          for (const l of await conn.journalLine.findMany()) {
            const k = `${l.account} ${l.currency}`;
            out[k] = new D(out[k] ?? 0).plus(l.amount).toFixed();
          }
          return Object.fromEntries(
            Object.entries(out)
              .filter(([, v]) => v !== "0")
              .sort(),
          );
        };
        expect(await sums()).toEqual({
          "conversion btc": "0.01",
          "conversion eth": "-0.2",
          "provider:changenow:receivable eth": "-0.03",
          "provider:fixedfloat:receivable xmr": "-0.75",
          "provider:sideshift:receivable btc": "-0.01",
          "provider:simulated:pending btc": "-0.001",
          "treasury:1:eth eth": "0.21",
          "world usdc": "-5.123456",
        });
        expect(
          (await conn.journal.findMany({ where: { withdrawalId: "w-ok" }, orderBy: { kind: "asc" } })).map((j) => [j.kind, j.lines]),
        ).toEqual([
          ["migrated:withdrawal_reserve", 4],
          ["migrated:withdrawal_settle", 6],
        ]);

        // The new code carries on from the migrated books: the open order finishes, the queued withdrawal is paid.
        const open = await conn.order.update({ where: { id: "o-open" }, data: { status: "finished" } });
        await conn.$transaction((tx) => settleProfit(tx, open, new D("0.001")));
        await conn.withdrawal.update({ where: { id: "w-queued" }, data: { status: "confirmed", txHash: `0x${"c".repeat(64)}` } });
        await conn.payoutTx.create({
          data: {
            withdrawalId: "w-queued",
            chainId: 1,
            fromAddress: "0x02",
            accountNonce: 999,
            rawTx: "0x",
            hash: `0x${"c".repeat(64)}`,
            status: "mined",
          },
        });
        await conn.$transaction((tx) =>
          settleWithdrawal(tx, {
            id: "w-queued",
            resellerId: "r1",
            asset: "eth",
            chainId: 1,
            amount: "0.005",
            legs: [{ currency: "eth", amount: "0.005" }],
          }),
        );
        expect((await sums())["provider:simulated:pending btc"]).toBeUndefined();
        expect(await checkLedger(conn)).toMatchObject({ ok: true, violations: [] });
      } finally {
        await conn.$disconnect();
      }
    } finally {
      await db.drop();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
