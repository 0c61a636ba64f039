import { getDb, getSettingsView } from "@/app/_server/lib";
import { dashboardGet } from "@/app/_server/session";

export function GET() {
  return dashboardGet((me) => getSettingsView(getDb(), { resellerId: me.resellerId }));
}
