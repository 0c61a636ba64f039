import type { Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { Db } from "@/lib/db/client";
import { post, recordPayoutMined, reserveWithdrawal } from "@/lib/ledger/ledger";
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
 * A reseller's withdrawal of 1 XMR paid as 0.5 ETH on chain 1, sent (`txHash`), its balance
 * reserved and, unless `mined` is false, its payout booked mined with a 0.000021 ETH fee.
 */
export async function sentWithdrawal(db: Db, opts: { id: string; resellerId: string; txHash: string; mined?: boolean }) {
  const w = { id: opts.id, resellerId: opts.resellerId, legs: [{ currency: "xmr", amount: "1" }], asset: "eth", chainId: 1, amount: "0.5" };
  await db.withdrawal.create({
    data: {
      ...w,
      legs: { create: [{ currency: "xmr", amount: "1", rate: "0.5", priceUsd: "1", assetPriceUsd: "2" }] },
      status: "sent",
      txHash: opts.txHash,
      decimals: 18,
      destination: "0xabc",
      usdValue: "1",
      feePolicy: "operator",
      fee: "0",
      confirmationNonce: `n-${opts.resellerId}`,
    },
  });
  await db.$transaction((tx) => reserveWithdrawal(tx, w));
  if (opts.mined !== false) await db.$transaction((tx) => recordPayoutMined(tx, w, { asset: "eth", amount: new D("0.000021") }));
  return w;
}
