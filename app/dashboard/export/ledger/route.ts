import { getSessionReseller } from "@/lib/auth/session";
import { ledgerCsv } from "@/lib/dashboard/export";
import { csvDownload, unauthorizedResponse } from "@/lib/dashboard/route";
import { getDb } from "@/lib/db/client";

// GET /dashboard/export/ledger: every profit ledger entry of the signed-in reseller, as CSV.
export async function GET() {
  const me = await getSessionReseller();
  if (!me) return unauthorizedResponse();
  return csvDownload(ledgerCsv(getDb(), { resellerId: me.resellerId }), `profit-ledger-${new Date().toISOString().slice(0, 10)}.csv`);
}
