import type { NextRequest } from "next/server";
import { getSessionReseller } from "@/lib/auth/session";
import { ordersCsv } from "@/lib/dashboard/export";
import { parseOrderQuery } from "@/lib/dashboard/orders";
import { csvDownload, unauthorizedResponse } from "@/lib/dashboard/route";
import { getDb } from "@/lib/db/client";

// GET /dashboard/export/orders?status=&q=: the signed-in reseller's orders as CSV, with the
// Orders page's filters. The session is checked here like in every server action (a layout
// does not guard route handlers).
export async function GET(req: NextRequest) {
  const me = await getSessionReseller();
  if (!me) return unauthorizedResponse();
  const q = parseOrderQuery(me.resellerId, req.nextUrl.searchParams);
  return csvDownload(ordersCsv(getDb(), q), `orders-${new Date().toISOString().slice(0, 10)}.csv`);
}
