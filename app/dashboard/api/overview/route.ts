import type { NextRequest } from "next/server";
import { getDb, getOverview } from "@/app/_server/lib";
import { dashboardGet } from "@/app/_server/session";

export function GET(req: NextRequest) {
  const days = Number(req.nextUrl.searchParams.get("days") ?? "30");
  return dashboardGet((me) => getOverview(getDb(), { resellerId: me.resellerId, days }));
}
