import type { Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import type { Db } from "@/lib/db/client";
import { post } from "@/lib/ledger/ledger";
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
