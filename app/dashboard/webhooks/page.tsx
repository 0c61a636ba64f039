import type { Metadata } from "next";
import { getDb, listEndpoints } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { WebhooksView } from "./WebhooksView";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  const me = await requireSessionReseller("/dashboard/webhooks");
  return <WebhooksView initial={await listEndpoints(getDb(), me.resellerId)} />;
}
