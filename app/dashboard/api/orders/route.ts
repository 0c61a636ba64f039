import type { NextRequest } from "next/server";
import { listResellerOrders, parseOrderQuery } from "@/lib/dashboard/orders";
import { dashboardGet } from "@/lib/dashboard/route";
import { getDb } from "@/lib/db/client";

export function GET(req: NextRequest) {
  return dashboardGet((me) => listResellerOrders(getDb(), parseOrderQuery(me.resellerId, req.nextUrl.searchParams)));
}
