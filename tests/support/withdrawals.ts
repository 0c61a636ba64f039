import type { Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { Db, Withdrawal } from "@/lib/db/client";
import { type PaidWithdrawal, post, recordPayoutMined, reserveWithdrawal } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";

/** What a wallet does with the quote's eth_signTypedData_v4 argument: sign it (uint256 fields arrive as decimal strings). */
export function signTypedDataJson(account: PrivateKeyAccount, json: string): Promise<Hex> {
  const d = JSON.parse(json);
  const { EIP712Domain: _, ...types } = d.types;
  const message = { ...d.message, amountBaseUnits: BigInt(d.message.amountBaseUnits), expiresAt: BigInt(d.message.expiresAt) };
  return account.signTypedData({ domain: d.domain, types, primaryType: d.primaryType, message });
}

/** Credits available profit to a reseller directly in the ledger (as a finished order would). */
export function creditProfit(db: Db, resellerId: string, currency: string, amount: string) {
  return db.$transaction((tx) =>
    post(tx, [{ resellerId, currency, bucket: "available", kind: "order_profit_settle", amount: new D(amount) }]),
  );
}

/**
 * The Withdrawal row (with its legs) behind `w`, the shape the ledger's functions take, for tests
 * that post a withdrawal's journals: the prices are placeholders (the ledger reads none of them);
 * `over` sets the columns a test is about (status, txHash, decimals...).
 */
export const withdrawalRow = (w: PaidWithdrawal, over: Partial<Withdrawal> = {}) => ({
  id: w.id,
  resellerId: w.resellerId,
  asset: w.asset,
  chainId: w.chainId,
  amount: w.amount,
  status: "queued",
  decimals: 18,
  destination: "0x01",
  usdValue: "1",
  feePolicy: "operator",
  fee: "0",
  confirmationNonce: `n-${w.id}`,
  legs: { create: w.legs.map((l) => ({ ...l, rate: "1", priceUsd: "1", assetPriceUsd: "1" })) },
  ...over,
});

/**
 * A reseller's withdrawal of 1 XMR paid as 0.5 ETH on chain 1, sent (`txHash`), its balance
 * reserved and, unless `mined` is false, its payout booked mined with a 0.000021 ETH fee.
 */
export async function sentWithdrawal(db: Db, opts: { id: string; resellerId: string; txHash: string; mined?: boolean }) {
  const w = { id: opts.id, resellerId: opts.resellerId, legs: [{ currency: "xmr", amount: "1" }], asset: "eth", chainId: 1, amount: "0.5" };
  await db.withdrawal.create({ data: withdrawalRow(w, { status: "sent", txHash: opts.txHash }) });
  await db.$transaction((tx) => reserveWithdrawal(tx, w));
  if (opts.mined !== false) await db.$transaction((tx) => recordPayoutMined(tx, w, { asset: "eth", amount: new D("0.000021") }));
  return w;
}
