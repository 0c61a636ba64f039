import type { NextRequest } from "next/server";
import { getDb } from "@/lib/db/client";
import { listKeyRows } from "@/lib/dashboard/keys";
import { dashboardGet } from "@/lib/dashboard/route";

export function GET(req: NextRequest) {
  const includeRevoked = req.nextUrl.searchParams.get("revoked") === "1";
  return dashboardGet((me) => listKeyRows(getDb(), { resellerId: me.resellerId, includeRevoked }));
}
