import type { Metadata } from "next";
import { getChannelStats, getDb, getEarningsSeries, getOverview } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { teamCan } from "@/lib/teams/roles";
import { OverviewView } from "./OverviewView";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const me = await requirePageMember("/dashboard", "read:overview");
  if (!me.allowed) return <NoAccess />;
  const opts = { resellerId: me.resellerId, days: 30, now: new Date() };
  const [overview, earnings, channels] = await Promise.all([
    getOverview(getDb(), opts),
    getEarningsSeries(getDb(), opts),
    getChannelStats(getDb(), opts),
  ]);
  return <OverviewView initial={{ overview, earnings, channels }} canExportLedger={teamCan(me.role, "export:ledger")} />;
}
