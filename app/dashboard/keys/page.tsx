import type { Metadata } from "next";
import { KeysView } from "@/components/dashboard/KeysView";
import { requireSessionReseller } from "@/lib/auth/session";
import { getDb } from "@/lib/db/client";
import { listKeyRows } from "@/lib/dashboard/keys";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const me = await requireSessionReseller("/dashboard/keys");
  return <KeysView initial={await listKeyRows(getDb(), { resellerId: me.resellerId })} />;
}
