import { csvDownload, forbiddenResponse, getDb, statementsCsv, unauthorizedResponse } from "@/app/_server/lib";
import { getSessionReseller } from "@/app/_server/session";
import { teamCan } from "@/lib/teams/roles";

// GET /dashboard/export/statements: the signed-in reseller's monthly statements, as CSV (docs/ledger.md, Statements).
export async function GET() {
  const me = await getSessionReseller();
  if (!me) return unauthorizedResponse();
  if (!teamCan(me.role, "export:statements")) return forbiddenResponse();
  return csvDownload(statementsCsv(getDb(), { resellerId: me.resellerId }), `statements-${new Date().toISOString().slice(0, 10)}.csv`);
}
