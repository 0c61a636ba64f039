import type { NextRequest } from "next/server";
import { csvDownload, forbiddenResponse, getDb, ordersCsv, parseOrderQuery, unauthorizedResponse } from "@/app/_server/lib";
import { getSessionReseller } from "@/app/_server/session";
import { teamCan } from "@/lib/teams/roles";

// GET /dashboard/export/orders?status=&q=: the signed-in reseller's orders as CSV, with the
// Orders page's filters. The session is checked here like in every server action (a layout
// does not guard route handlers).
export async function GET(req: NextRequest) {
  const me = await getSessionReseller();
  if (!me) return unauthorizedResponse();
  if (!teamCan(me.role, "export:orders")) return forbiddenResponse();
  const q = parseOrderQuery(me.resellerId, req.nextUrl.searchParams);
  return csvDownload(ordersCsv(getDb(), q), `orders-${new Date().toISOString().slice(0, 10)}.csv`);
}
