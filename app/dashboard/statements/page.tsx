import type { Metadata } from "next";
import { getDb, getStatements } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { StatementsView } from "./StatementsView";

export const metadata: Metadata = { title: "Statements" };

export default async function StatementsPage() {
  const me = await requireSessionReseller("/dashboard/statements");
  return <StatementsView initial={await getStatements(getDb(), { resellerId: me.resellerId })} />;
}
