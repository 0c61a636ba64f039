import type { NextRequest } from "next/server";
import { getDb, listKeyRows } from "@/app/_server/lib";
import { dashboardGet } from "@/app/_server/session";

export function GET(req: NextRequest) {
  const includeRevoked = req.nextUrl.searchParams.get("revoked") === "1";
  return dashboardGet((me) => listKeyRows(getDb(), { resellerId: me.resellerId, includeRevoked }));
}
