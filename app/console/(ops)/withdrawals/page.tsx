import type { Metadata } from "next";
import { WithdrawalsView } from "./WithdrawalsView";

export const metadata: Metadata = { title: "Withdrawals" };

export default function WithdrawalsPage() {
  return <WithdrawalsView />;
}
