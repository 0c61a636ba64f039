import type { Metadata } from "next";
import { getDb, listKeyRows, MAX_ACTIVE_KEYS } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { KeysView } from "./KeysView";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const me = await requirePageMember("/dashboard/keys", "read:keys");
  if (!me.allowed) return <NoAccess />;
  // The active keys only (at most MAX_ACTIVE_KEYS): revoked ones are read a page at a time, when asked for.
  return <KeysView initial={await listKeyRows(getDb(), { resellerId: me.resellerId })} maxActiveKeys={MAX_ACTIVE_KEYS} />;
}
