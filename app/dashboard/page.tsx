import type { Metadata } from "next";
import { getDb, getOverview } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { OverviewView } from "@/components/dashboard/OverviewView";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const me = await requireSessionReseller("/dashboard");
  const initial = await getOverview(getDb(), { resellerId: me.resellerId, days: 30 });
  return <OverviewView initial={initial} />;
}
