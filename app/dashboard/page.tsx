import type { Metadata } from "next";
import { OverviewView } from "@/components/dashboard/OverviewView";
import { requireSessionReseller } from "@/lib/auth/session";
import { getOverview } from "@/lib/dashboard/overview";
import { getDb } from "@/lib/db/client";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const me = await requireSessionReseller("/dashboard");
  const initial = await getOverview(getDb(), { resellerId: me.resellerId, days: 30 });
  return <OverviewView initial={initial} />;
}
