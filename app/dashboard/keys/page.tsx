import type { Metadata } from "next";
import { getDb, listKeyRows } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { KeysView } from "./KeysView";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const me = await requireSessionReseller("/dashboard/keys");
  return <KeysView initial={await listKeyRows(getDb(), { resellerId: me.resellerId })} />;
}
