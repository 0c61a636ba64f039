import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getOverview } from "@/lib/dashboard/overview";
import { getWithdrawalsView } from "@/lib/dashboard/withdrawals";
import type { Db } from "@/lib/db/client";
import { getEngine } from "@/lib/engine";
import { ProvidersEngine } from "@/lib/engine/providers/engine";
import { AppError } from "@/lib/errors";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import { snapshotReadCount } from "@/lib/prices/prices";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { createSimulatedSender } from "@/lib/withdrawals/sender/simulated";
import { confirmWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { type Fakes, startFakes } from "../support/fake-providers";
import { setSettings, settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// ENGINE=providers against the fake providers, in process: withdrawal quotes and the
// overview's USD figures follow the providers' live rates (a 10% move shows exactly), with
// every provider down a withdrawal quote is refused with PRICE_UNAVAILABLE and no snapshot
// price is read anywhere, and a balance held in the payout asset is paid one to one.
//
// Only ChangeNOW is enabled, and both caches are off, so every figure is one fake's rate:
// ChangeNOW pays amount x rate (rounded down to 8 places) and takes its account commission
// itself, so the engine's rate is the fake's rate exactly for these amounts.

const code = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return "OK";
};

let fakes: Fakes;
settingsForTests({});

/** ChangeNOW's rates, as they are or all 10% higher. */
function rates(move: "1" | "1.1") {
  const up = move === "1.1";
  fakes.setPair("btc", "eth", { changenow: up ? "22" : "20" });
  fakes.setPair("eth", "usdc", { changenow: up ? "3300" : "3000" });
  fakes.setPair("btc", "usdc", { changenow: up ? "66000" : "60000" });
}

beforeAll(async () => {
  fakes = await startFakes();
  rates("1");
  setSettings({
    ...fakes.env(),
    SIDESHIFT_ENABLED: "false",
    FIXEDFLOAT_ENABLED: "false",
    PROVIDERS_QUOTE_CACHE_SECONDS: "0",
    PROVIDERS_COOLDOWN_SECONDS: "0",
    PRICES_CACHE_SECONDS: "0",
    PAYOUT_CHAIN_ID: "31337",
    WITHDRAWAL_MIN_USD: "10",
    PAYOUT_TOKENS: "usdc=0x5FbDB2315678afecb367f032d93F642f64180aa3",
  });
  expect(getEngine()).toBeInstanceOf(ProvidersEngine);
});

afterAll(async () => {
  await fakes.stop();
});

describe.each(process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const))(
  "live prices with ENGINE=providers on %s",
  (kind) => {
    let t: TempDb;
    let db: Db;
    const reseller = async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      const r = await db.reseller.create({
        data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() },
      });
      return { id: r.id, account };
    };

    beforeAll(async () => {
      t = await tempDatabase(kind);
      db = t.db;
    });
    afterAll(async () => {
      await t.cleanup();
    });

    it("a provider moving its rate by 10% changes the next withdrawal quote and the overview's USD total exactly", async () => {
      rates("1");
      const { id, account } = await reseller();
      await creditProfit(db, id, "eth", "0.5");
      await creditProfit(db, id, "btc", "0.01");

      const o1 = await getOverview(db, { resellerId: id, days: 7 });
      // 0.5 ETH x 3000 + 0.01 BTC x 60000
      expect(o1.totals.availableUsd).toBe("2100");
      expect(o1.unpriced).toEqual([]);
      for (const c of o1.currencies) {
        expect(c.priceSource).toMatch(/^providers: best quote for [\d.]+ (btc|eth) of usdc \(1 USD\)$/);
        expect(c.priceDate).not.toBeNull();
      }
      const q1 = await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: "all" });
      // 0.01 BTC at 20 ETH + 0.5 ETH one to one = 0.7 ETH, at 3000 USD.
      expect([q1.amount, q1.usdValue, q1.assetPriceUsd]).toEqual(["0.7", "2100", "3000"]);
      expect(q1.legs).toEqual([
        {
          currency: "btc",
          amount: "0.01",
          rate: "20",
          priceSource: expect.stringMatching(/^providers: best quote/),
          pricedAt: expect.any(String),
        },
        { currency: "eth", amount: "0.5", rate: "1", priceSource: "same asset", pricedAt: null },
      ]);

      rates("1.1");
      const o2 = await getOverview(db, { resellerId: id, days: 7 });
      // 0.5 x 3300 + 0.01 x 66000
      expect(o2.totals.availableUsd).toBe("2310");
      const q2 = await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: "all" });
      // 0.01 x 22 + 0.5 = 0.72 ETH, at 3300 USD.
      expect([q2.amount, q2.usdValue, q2.assetPriceUsd]).toEqual(["0.72", "2376", "3300"]);
      expect(q2.legs[0].rate).toBe("22");

      // Confirmed: each leg keeps its price, source and time.
      const w = await confirmWithdrawal(db, { resellerId: id, nonce: q2.nonce, signature: await signTypedDataJson(account, q2.typedData) });
      const legs = await db.withdrawalLeg.findMany({ where: { withdrawalId: w.id }, orderBy: { currency: "asc" } });
      expect(legs.map((l) => [l.currency, l.rate, l.assetPriceUsd, l.priceSource, l.pricedAt === null, l.assetPriceSource])).toEqual([
        ["btc", "22", "3300", q2.legs[0].priceSource, false, q2.assetPriceSource],
        ["eth", "1", "3300", "same asset", true, q2.assetPriceSource],
      ]);
      expect(legs[0].pricedAt?.toISOString()).toBe(q2.legs[0].pricedAt);
      expect(w.legs[0]).toMatchObject({ priceSource: q2.legs[0].priceSource, pricedAt: q2.legs[0].pricedAt });
      expect((await checkLedger(db)).violations).toEqual([]);
    });

    it("every provider down: the withdrawal quote is refused with PRICE_UNAVAILABLE, and no snapshot price is read anywhere", async () => {
      rates("1");
      const { id } = await reseller();
      await creditProfit(db, id, "eth", "0.5");
      await creditProfit(db, id, "btc", "0.01");
      const reads = snapshotReadCount();
      await Promise.all([fakes.changenow.kill(), fakes.sideshift.kill(), fakes.fixedfloat.kill()]);
      try {
        for (const asset of ["eth", "usdc"]) {
          expect(await code(quoteWithdrawal(db, { resellerId: id, asset, currencies: "all" }))).toBe("PRICE_UNAVAILABLE");
          expect(await code(quoteWithdrawal(db, { resellerId: id, asset, currencies: ["btc"] }))).toBe("PRICE_UNAVAILABLE");
        }
        const err = await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: "all" }).catch((e) => e);
        expect(err.message).toMatch(/No live price for eth in USD/);
        // The dashboard shows no USD figure rather than an old one.
        const o = await getOverview(db, { resellerId: id, days: 7 });
        expect(o.balances.map((b) => [b.currency, b.availableUsd])).toEqual([
          ["btc", null],
          ["eth", null],
        ]);
        expect([o.totals.availableUsd, o.unpriced]).toEqual(["0", ["btc", "eth"]]);
        expect(o.currencies.every((c) => c.priceUsd === null && c.priceSource === null && c.priceDate === null)).toBe(true);
        const v = await getWithdrawalsView(db, { resellerId: id });
        // The USD stablecoin is taken at 1 USD without asking anyone; ETH has no price.
        expect(v.assets.map((a) => [a.ticker, a.priceUsd])).toEqual([
          ["eth", null],
          ["usdc", "1"],
        ]);
        expect(v.balances.map((b) => b.availableUsd)).toEqual([null, null]);
        // Nothing was reserved, and not one snapshot price was read for any of it.
        expect(await getBalances(db, id)).toEqual([
          { currency: "btc", pending: "0", available: "0.01", reserved: "0" },
          { currency: "eth", pending: "0", available: "0.5", reserved: "0" },
        ]);
        expect(snapshotReadCount()).toBe(reads);
      } finally {
        await Promise.all([fakes.changenow.start(), fakes.sideshift.start(), fakes.fixedfloat.start()]);
      }
      // Back up: priced again.
      expect((await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: "all" })).amount).toBe("0.7");
      expect(snapshotReadCount()).toBe(reads);
    });

    it("a balance held in the payout asset is paid exactly, one to one (USDC as USDC needs no price at all)", async () => {
      rates("1");
      const { id, account } = await reseller();
      await creditProfit(db, id, "eth", "0.12345678");
      const q = await quoteWithdrawal(db, { resellerId: id, asset: "eth", currencies: ["eth"] });
      expect([q.amount, q.legs]).toEqual([
        "0.12345678",
        [{ currency: "eth", amount: "0.12345678", rate: "1", priceSource: "same asset", pricedAt: null }],
      ]);
      expect(JSON.parse(q.typedData).message.amountBaseUnits).toBe("123456780000000000");

      // USDC profit paid as USDC: with every provider down it is still quoted, at par, and paid in full.
      await creditProfit(db, id, "usdc", "25.123456");
      await Promise.all([fakes.changenow.kill(), fakes.sideshift.kill(), fakes.fixedfloat.kill()]);
      let qu: Awaited<ReturnType<typeof quoteWithdrawal>>;
      try {
        qu = await quoteWithdrawal(db, { resellerId: id, asset: "usdc", currencies: ["usdc"] });
      } finally {
        await Promise.all([fakes.changenow.start(), fakes.sideshift.start(), fakes.fixedfloat.start()]);
      }
      expect([qu.amount, qu.usdValue, qu.assetPriceSource]).toEqual(["25.123456", "25.123456", "usdc taken at 1 USD"]);
      const w = await confirmWithdrawal(db, { resellerId: id, nonce: qu.nonce, signature: await signTypedDataJson(account, qu.typedData) });
      const sender = createSimulatedSender(31337);
      for (let i = 0; i < 5; i++) await runWithdrawalsOnce(db, sender, { now: new Date(Date.now() + i * 10_000) });
      const done = await db.withdrawal.findUniqueOrThrow({ where: { id: w.id } });
      expect([done.status, done.amount]).toEqual(["confirmed", "25.123456"]);
      expect((await getBalances(db, id)).find((b) => b.currency === "usdc")).toEqual({
        currency: "usdc",
        pending: "0",
        available: "0",
        reserved: "0",
      });
      expect((await checkLedger(db)).violations).toEqual([]);
    });
  },
);
