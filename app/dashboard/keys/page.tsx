import type { Metadata } from "next";
import { getDb, listKeyRows, MAX_ACTIVE_KEYS } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { KeysView } from "./KeysView";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const me = await requireSessionReseller("/dashboard/keys");
  // The active keys only (at most MAX_ACTIVE_KEYS): revoked ones are read a page at a time, when asked for.
  return <KeysView initial={await listKeyRows(getDb(), { resellerId: me.resellerId })} maxActiveKeys={MAX_ACTIVE_KEYS} />;
}
