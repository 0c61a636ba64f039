import type { Metadata } from "next";
import { getDb, getTeamView } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { TeamView } from "./TeamView";

export const metadata: Metadata = { title: "Team" };

export default async function TeamPage() {
  const me = await requirePageMember("/dashboard/team", "read:team");
  if (!me.allowed) return <NoAccess />;
  return <TeamView initial={await getTeamView(getDb(), { resellerId: me.resellerId })} me={me.wallet} />;
}
