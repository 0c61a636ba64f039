import type { NextRequest } from "next/server";
import { getDb, serveDashboardRead } from "@/app/_server/lib";
import { getSessionReseller } from "@/app/_server/session";

// GET /dashboard/api/<read>?<query>: the dashboard's reads, which its react-query hooks poll
// (app/dashboard/read.ts). The table of reads, their query schemas and the session and scope
// checks are in lib/dashboard/reads.ts; a layout does not guard route handlers, so the session
// is checked there on every request.
export async function GET(req: NextRequest, ctx: { params: Promise<{ read: string }> }) {
  const { read } = await ctx.params;
  return serveDashboardRead(getDb(), { name: read, params: req.nextUrl.searchParams, session: getSessionReseller });
}
