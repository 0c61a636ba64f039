import type { NextRequest } from "next/server";
import { listKeyRows } from "@/lib/dashboard/keys";
import { dashboardGet } from "@/lib/dashboard/route";
import { getDb } from "@/lib/db/client";

export function GET(req: NextRequest) {
  const includeRevoked = req.nextUrl.searchParams.get("revoked") === "1";
  return dashboardGet((me) => listKeyRows(getDb(), { resellerId: me.resellerId, includeRevoked }));
}
