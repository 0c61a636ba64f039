import { dashboardGet } from "@/lib/dashboard/route";
import { getSettingsView } from "@/lib/dashboard/settings";
import { getDb } from "@/lib/db/client";

export function GET() {
  return dashboardGet((me) => getSettingsView(getDb(), { resellerId: me.resellerId }));
}
