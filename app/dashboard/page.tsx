import type { Metadata } from "next";
import { OverviewView } from "@/components/dashboard/OverviewView";
import { requireSessionReseller } from "@/lib/auth/session";
import { getEarningsSeries } from "@/lib/dashboard/earnings";
import { getOverview } from "@/lib/dashboard/overview";
import { getDb } from "@/lib/db/client";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const me = await requireSessionReseller("/dashboard");
  const opts = { resellerId: me.resellerId, days: 30, now: new Date() };
  const [overview, earnings] = await Promise.all([getOverview(getDb(), opts), getEarningsSeries(getDb(), opts)]);
  return <OverviewView initial={{ overview, earnings }} />;
}
