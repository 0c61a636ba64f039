import type { Metadata } from "next";
import { KeysView } from "@/components/dashboard/KeysView";
import { requireSessionReseller } from "@/lib/auth/session";
import { listKeyRows } from "@/lib/dashboard/keys";
import { getDb } from "@/lib/db/client";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const me = await requireSessionReseller("/dashboard/keys");
  return <KeysView initial={await listKeyRows(getDb(), { resellerId: me.resellerId })} />;
}
