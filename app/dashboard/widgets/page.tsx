import type { Metadata } from "next";
import { getAppOrigin, getBrandSettings, getConfig, getDb, listWidgets, MAX_WIDGETS } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { WidgetsView } from "./WidgetsView";

export const metadata: Metadata = { title: "Widgets" };

export default async function WidgetsPage() {
  const me = await requirePageMember("/dashboard/widgets", "read:widgets");
  if (!me.allowed) return <NoAccess />;
  return (
    <WidgetsView
      initial={await listWidgets(getDb(), { resellerId: me.resellerId })}
      initialBrand={await getBrandSettings(getDb(), { resellerId: me.resellerId })}
      origin={getAppOrigin().origin}
      resellerId={me.resellerId}
      capBps={getConfig().MARKUP_CAP_BPS}
      maxWidgets={MAX_WIDGETS}
    />
  );
}
