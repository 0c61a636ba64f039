import { getDb } from "@/lib/db/client";
import { getSettingsView } from "@/lib/dashboard/settings";
import { dashboardGet } from "@/lib/dashboard/route";

export function GET() {
  return dashboardGet((me) => getSettingsView(getDb(), { resellerId: me.resellerId }));
}
