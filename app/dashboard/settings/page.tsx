import type { Metadata } from "next";
import { getDb, getSettingsView } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { teamCan } from "@/lib/teams/roles";
import { LeaveTeamCard } from "./LeaveTeamCard";
import { SettingsView } from "./SettingsView";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const me = await requirePageMember("/dashboard/settings", "read:settings");
  if (!me.allowed) return <NoAccess />;
  return (
    <>
      <SettingsView
        initial={await getSettingsView(getDb(), { resellerId: me.resellerId })}
        canSetMarkup={teamCan(me.role, "action:setMarkupAction")}
      />
      <div className="mt-6">
        <LeaveTeamCard />
      </div>
    </>
  );
}
