import { csvDownload, forbiddenResponse, getDb, ledgerCsv, unauthorizedResponse } from "@/app/_server/lib";
import { getSessionReseller } from "@/app/_server/session";
import { teamCan } from "@/lib/teams/roles";

// GET /dashboard/export/ledger: every profit ledger entry of the signed-in reseller, as CSV.
export async function GET() {
  const me = await getSessionReseller();
  if (!me) return unauthorizedResponse();
  if (!teamCan(me.role, "export:ledger")) return forbiddenResponse();
  return csvDownload(ledgerCsv(getDb(), { resellerId: me.resellerId }), `profit-ledger-${new Date().toISOString().slice(0, 10)}.csv`);
}
