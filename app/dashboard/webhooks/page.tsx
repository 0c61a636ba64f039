import type { Metadata } from "next";
import { getDb, listEndpoints } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { WebhooksView } from "./WebhooksView";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  const me = await requirePageMember("/dashboard/webhooks", "read:webhook-endpoints");
  if (!me.allowed) return <NoAccess />;
  return <WebhooksView initial={await listEndpoints(getDb(), me.resellerId)} />;
}
