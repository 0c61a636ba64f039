import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getDb, getResellerOrder } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { OrderDetailView } from "./OrderDetailView";

export const metadata: Metadata = { title: "Order" };

export default async function OrderPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const me = await requirePageMember(`/dashboard/orders/${encodeURIComponent(id)}`, "read:order");
  if (!me.allowed) return <NoAccess />;
  // Another reseller's order is "not found", exactly like an id that does not exist.
  const order = await getResellerOrder(getDb(), { resellerId: me.resellerId, orderId: id });
  if (!order) notFound();
  return <OrderDetailView initial={order} />;
}
