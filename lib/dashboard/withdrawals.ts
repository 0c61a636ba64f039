import "server-only";
import { getAddress } from "viem";
import { getConfig } from "@/lib/config";
import type { Db } from "@/lib/db/client";
import { getBalances } from "@/lib/ledger/ledger";
import { formatAmount } from "@/lib/money/decimal";
import { usdValue } from "@/lib/money/usd";
import { payoutAssets } from "@/lib/withdrawals/assets";
import { type PayoutChain, payoutChains } from "@/lib/withdrawals/chains";
import { listWithdrawals } from "@/lib/withdrawals/withdrawals";
import { pricedCurrencies } from "./prices";
import type { CurrencyInfo, PayoutChainInfo, WithdrawalsView } from "./types";

/** A payout chain as the page shows it: its minimum, and its assets at their live USD prices (`info`). */
const chainInfo = (c: PayoutChain, info: Map<string, CurrencyInfo>): PayoutChainInfo => ({
  id: c.chainId,
  name: c.name,
  nativeSymbol: "ETH",
  walletRpcUrl: c.walletRpcUrl,
  explorerUrl: c.explorerUrl,
  minUsd: c.minUsd,
  assets: payoutAssets(c.chainId).map((a) => {
    const p = info.get(a.ticker);
    return {
      ticker: a.ticker,
      symbol: a.symbol,
      priceUsd: p?.priceUsd ?? null,
      priceDate: p?.priceDate ?? null,
      priceSource: p?.priceSource ?? null,
      token: a.token,
    };
  }),
});

/** The withdrawals page: balances with USD values at live prices (with their source and time), the payout assets, the history. */
export async function getWithdrawalsView(db: Db, opts: { resellerId: string }): Promise<WithdrawalsView> {
  const cfg = getConfig();
  const [reseller, balances, withdrawals] = await Promise.all([
    db.reseller.findUniqueOrThrow({ where: { id: opts.resellerId } }),
    getBalances(db, opts.resellerId),
    listWithdrawals(db, { resellerId: opts.resellerId }),
  ]);
  const chains = payoutChains();
  // One live price per currency: the balances' and every chain's payout assets'.
  const assetTickers = chains.flatMap((c) => payoutAssets(c.chainId).map((a) => a.ticker));
  const priced = await pricedCurrencies([...balances.map((b) => b.currency), ...assetTickers], opts.resellerId);
  const info = new Map(priced.map((c) => [c.ticker, c]));
  return {
    wallet: getAddress(reseller.walletAddress),
    chainId: cfg.PAYOUT_CHAIN_ID,
    // Separate objects, not shared references: the page's payload (React Flight) stays plain.
    chain: chainInfo(chains[0], info),
    chains: chains.map((c) => chainInfo(c, info)),
    sender: cfg.PAYOUT_SENDER,
    minUsd: cfg.WITHDRAWAL_MIN_USD,
    assets: chainInfo(chains[0], info).assets,
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
