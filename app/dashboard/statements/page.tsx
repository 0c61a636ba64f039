import type { Metadata } from "next";
import { getDb, getStatements } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { StatementsView } from "./StatementsView";

export const metadata: Metadata = { title: "Statements" };

export default async function StatementsPage() {
  const me = await requirePageMember("/dashboard/statements", "read:statements");
  if (!me.allowed) return <NoAccess />;
  return <StatementsView initial={await getStatements(getDb(), { resellerId: me.resellerId })} />;
}
