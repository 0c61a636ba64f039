import type { Metadata } from "next";
import { getDb, getWithdrawalsView } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { WithdrawalsView } from "./WithdrawalsView";

export const metadata: Metadata = { title: "Withdrawals" };

export default async function WithdrawalsPage() {
  const me = await requirePageMember("/dashboard/withdrawals", "read:withdrawals");
  if (!me.allowed) return <NoAccess />;
  return <WithdrawalsView initial={await getWithdrawalsView(getDb(), { resellerId: me.resellerId })} />;
}
