import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { OrderDetailView } from "@/components/dashboard/OrderDetailView";
import { requireSessionReseller } from "@/lib/auth/session";
import { getResellerOrder } from "@/lib/dashboard/orders";
import { getDb } from "@/lib/db/client";

export const metadata: Metadata = { title: "Order" };

export default async function OrderPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const me = await requireSessionReseller(`/dashboard/orders/${encodeURIComponent(id)}`);
  // Another reseller's order is "not found", exactly like an id that does not exist.
  const order = await getResellerOrder(getDb(), { resellerId: me.resellerId, orderId: id });
  if (!order) notFound();
  return <OrderDetailView initial={order} />;
}
