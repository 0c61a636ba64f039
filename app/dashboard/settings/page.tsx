import type { Metadata } from "next";
import { getDb, getSettingsView } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { SettingsView } from "./SettingsView";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const me = await requireSessionReseller("/dashboard/settings");
  return <SettingsView initial={await getSettingsView(getDb(), { resellerId: me.resellerId })} />;
}
