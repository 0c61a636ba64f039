import type { Metadata } from "next";
import { SettingsView } from "@/components/dashboard/SettingsView";
import { requireSessionReseller } from "@/lib/auth/session";
import { getSettingsView } from "@/lib/dashboard/settings";
import { getDb } from "@/lib/db/client";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  const me = await requireSessionReseller("/dashboard/settings");
  return <SettingsView initial={await getSettingsView(getDb(), { resellerId: me.resellerId })} />;
}
