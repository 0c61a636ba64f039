import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { createReconcileCache, reconcileGaugeValues } from "@/lib/observability/reconcile-gauges";
import { type ChainReader, reconcile, recordHotWalletDeposit } from "@/lib/withdrawals/reconcile";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// /metrics' reconciliation gauges (lib/observability/reconcile-gauges.ts): the reconcile report
// as gauge values (differences per check, each treasury account's chain-minus-books, the
// solvency line), kept for maxAgeMs, one run shared by concurrent scrapes. The chain is a
// reader the test controls; the books are a real database.

describe.each(["sqlite", "postgres"] as const)("reconciliation gauges on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let onChain = 10n * 10n ** 18n;
  let runs = 0;
  const readChain: ChainReader = async (asset) => (asset.ticker === "eth" ? onChain : 0n);
  settingsForTests({ PAYOUT_PRIVATE_KEY: generatePrivateKey(), PAYOUT_CHAIN_ID: "31337", PAYOUT_TOKENS: "", LOG_LEVEL: "silent" });

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
    await recordHotWalletDeposit(db, { asset: "eth", amount: "10" });
  });
  afterAll(async () => t?.cleanup());

  it("books matching the chain: no difference; a transfer outside the product: a treasury difference of its amount, once the cache is old", async () => {
    let clock = 1_000_000;
    const cached = createReconcileCache({
      maxAgeMs: 60_000,
      now: () => clock,
      run: () => {
        runs++;
        return reconcile(db, { readChain });
      },
    });
    const first = reconcileGaugeValues(await cached());
    expect(first.differences).toEqual([
      { check: "treasury", value: 0 },
      { check: "solvency", value: 0 },
      { check: "commission", value: 0 },
    ]);
    expect(first.treasury).toEqual([{ account: "treasury:31337:eth", value: 0 }]);
    expect(first.solvency).toEqual([
      { side: "owed", value: 0 },
      { side: "held", value: expect.any(Number) },
    ]);
    expect(first.solvency[1].value).toBeGreaterThan(0);

    // 1.5 ETH leaves the hot wallet outside the product: seen once the kept report is maxAgeMs old.
    onChain = 85n * 10n ** 17n;
    clock += 59_999;
    expect(reconcileGaugeValues(await cached()).differences[0]).toEqual({ check: "treasury", value: 0 });
    expect(runs).toBe(1);
    clock += 1;
    const moved = reconcileGaugeValues(await cached());
    expect(runs).toBe(2);
    expect(moved.differences[0]).toEqual({ check: "treasury", value: 1 });
    expect(moved.treasury).toEqual([{ account: "treasury:31337:eth", value: -1.5 }]);

    // A reseller owed more than the treasury holds: a solvency difference, and the owed side grows.
    await db.reseller.create({ data: { id: `rg-${kind}`, walletAddress: `0x${"a".repeat(40)}` } });
    await db.$transaction((tx) =>
      post(tx, [{ resellerId: `rg-${kind}`, currency: "eth", bucket: "available", kind: "order_profit_settle", amount: new D("100") }]),
    );
    clock += 60_000;
    const short = reconcileGaugeValues(await cached());
    expect(short.differences.find((d) => d.check === "solvency")).toEqual({ check: "solvency", value: 1 });
    expect(short.solvency[0].value).toBeGreaterThan(short.solvency[1].value);
  });

  it("concurrent scrapes share one run; a failed run is not kept", async () => {
    let n = 0;
    let fail = true;
    const cached = createReconcileCache({
      maxAgeMs: 60_000,
      now: () => 0,
      run: async () => {
        n++;
        if (fail) throw new Error("rpc down");
        return reconcile(db, { readChain });
      },
    });
    await expect(cached()).rejects.toThrow("rpc down");
    fail = false;
    const [a, b] = await Promise.all([cached(), cached()]);
    expect(a).toBe(b);
    expect(n).toBe(2);
    await cached();
    expect(n).toBe(2);
  });
});
