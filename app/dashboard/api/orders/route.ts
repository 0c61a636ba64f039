import type { NextRequest } from "next/server";
import { getDb } from "@/lib/db/client";
import { listResellerOrders, parseOrderQuery } from "@/lib/dashboard/orders";
import { dashboardGet } from "@/lib/dashboard/route";

export function GET(req: NextRequest) {
  return dashboardGet((me) => listResellerOrders(getDb(), parseOrderQuery(me.resellerId, req.nextUrl.searchParams)));
}
