import "server-only";
import { getAddress } from "viem";
import { getConfig } from "@/lib/config";
import { currencyInfo } from "@/lib/currencies/info";
import type { Db } from "@/lib/db/client";
import { getBalances } from "@/lib/ledger/ledger";
import { formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { payoutAssets } from "@/lib/withdrawals/assets";
import { type PayoutChain, payoutChains } from "@/lib/withdrawals/chains";
import { listWithdrawals } from "@/lib/withdrawals/withdrawals";
import type { PayoutChainInfo, WithdrawalsView } from "./types";

const chainInfo = (c: PayoutChain): PayoutChainInfo => ({
  id: c.chainId,
  name: c.name,
  nativeSymbol: "ETH",
  walletRpcUrl: c.walletRpcUrl,
  explorerUrl: c.explorerUrl,
  minUsd: c.minUsd,
  assets: payoutAssets(c.chainId).map((a) => ({ ticker: a.ticker, symbol: a.symbol, priceUsd: a.priceUsd, token: a.token })),
});

/** The withdrawals page: balances with USD values, the payout assets, the history. */
export async function getWithdrawalsView(db: Db, opts: { resellerId: string }): Promise<WithdrawalsView> {
  const cfg = getConfig();
  const [reseller, balances, withdrawals] = await Promise.all([
    db.reseller.findUniqueOrThrow({ where: { id: opts.resellerId } }),
    getBalances(db, opts.resellerId),
    listWithdrawals(db, { resellerId: opts.resellerId }),
  ]);
  return {
    wallet: getAddress(reseller.walletAddress),
    chainId: cfg.PAYOUT_CHAIN_ID,
    chain: chainInfo(payoutChains()[0]),
    chains: payoutChains().map(chainInfo),
    sender: cfg.PAYOUT_SENDER,
    minUsd: cfg.WITHDRAWAL_MIN_USD,
    assets: payoutAssets().map((a) => ({ ticker: a.ticker, symbol: a.symbol, priceUsd: a.priceUsd, token: a.token })),
    balances: balances.map((b) => {
      const price = currencyInfo(b.currency).priceUsd;
      const p = usdValue(b.pending, price);
      const a = usdValue(b.available, price);
      return { ...b, pendingUsd: p ? formatAmount(p) : null, availableUsd: a ? formatAmount(a) : null };
    }),
    withdrawals,
  };
}
