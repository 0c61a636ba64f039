import "server-only";
import { getAddress } from "viem";
import { getConfig } from "@/lib/config";
import { currencyInfo } from "@/lib/currencies/info";
import type { Db } from "@/lib/db/client";
import { getBalances } from "@/lib/ledger/ledger";
import { formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { payoutAssets } from "@/lib/withdrawals/assets";
import { listWithdrawals } from "@/lib/withdrawals/withdrawals";
import type { WithdrawalsView } from "./types";

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
    chain: {
      id: cfg.PAYOUT_CHAIN_ID,
      name: cfg.PAYOUT_CHAIN_NAME || `Chain ${cfg.PAYOUT_CHAIN_ID}`,
      nativeSymbol: "ETH",
      walletRpcUrl: cfg.PAYOUT_WALLET_RPC_URL || null,
      explorerUrl: cfg.PAYOUT_EXPLORER_URL || null,
    },
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
