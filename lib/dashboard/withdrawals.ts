import "server-only";
import { getAddress } from "viem";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { getBalances } from "@/lib/ledger/ledger";
import { formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { payoutAssets } from "@/lib/withdrawals/assets";
import { listWithdrawals } from "@/lib/withdrawals/withdrawals";
import { pricedCurrencies } from "./prices";
import type { WithdrawalsView } from "./types";

/** The withdrawals page: balances with USD values at live prices (with their source and time), the payout assets, the history. */
export async function getWithdrawalsView(db: Db, opts: { resellerId: string }): Promise<WithdrawalsView> {
  const cfg = getConfig();
  const [reseller, balances, withdrawals] = await Promise.all([
    db.reseller.findUniqueOrThrow({ where: { id: opts.resellerId } }),
    getBalances(db, opts.resellerId),
    listWithdrawals(db, { resellerId: opts.resellerId }),
  ]);
  const assets = payoutAssets();
  const priced = await pricedCurrencies([...balances.map((b) => b.currency), ...assets.map((a) => a.ticker)], opts.resellerId);
  const info = new Map(priced.map((c) => [c.ticker, c]));
  return {
    wallet: getAddress(reseller.walletAddress),
    chainId: cfg.PAYOUT_CHAIN_ID,
    sender: cfg.PAYOUT_SENDER,
    minUsd: cfg.WITHDRAWAL_MIN_USD,
    assets: assets.map((a) => {
      const c = info.get(a.ticker)!;
      return {
        ticker: a.ticker,
        symbol: a.symbol,
        priceUsd: c.priceUsd,
        priceDate: c.priceDate,
        priceSource: c.priceSource,
        token: a.token,
      };
    }),
    currencies: priced,
    balances: balances.map((b) => {
      const price = info.get(b.currency)?.priceUsd ?? null;
      const p = usdValue(b.pending, price);
      const a = usdValue(b.available, price);
      return { ...b, pendingUsd: p ? formatAmount(p) : null, availableUsd: a ? formatAmount(a) : null };
    }),
    withdrawals,
  };
}
