import type { NextRequest } from "next/server";
import { getOverview } from "@/lib/dashboard/overview";
import { dashboardGet } from "@/lib/dashboard/route";
import { getDb } from "@/lib/db/client";

export function GET(req: NextRequest) {
  const days = Number(req.nextUrl.searchParams.get("days") ?? "30");
  return dashboardGet((me) => getOverview(getDb(), { resellerId: me.resellerId, days }));
}
