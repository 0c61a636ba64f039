import type { NextRequest } from "next/server";
import { getDb, listResellerOrders, parseOrderQuery } from "@/app/_server/lib";
import { dashboardGet } from "@/app/_server/session";

export function GET(req: NextRequest) {
  return dashboardGet((me) => listResellerOrders(getDb(), parseOrderQuery(me.resellerId, req.nextUrl.searchParams)));
}
