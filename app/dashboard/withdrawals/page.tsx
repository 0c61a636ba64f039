import type { Metadata } from "next";
import { getDb, getWithdrawalsView } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { WithdrawalsView } from "./WithdrawalsView";

export const metadata: Metadata = { title: "Withdrawals" };

export default async function WithdrawalsPage() {
  const me = await requireSessionReseller("/dashboard/withdrawals");
  return <WithdrawalsView initial={await getWithdrawalsView(getDb(), { resellerId: me.resellerId })} />;
}
