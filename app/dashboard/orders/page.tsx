import type { Metadata } from "next";
import { Suspense } from "react";
import { getDb, listResellerOrders, parseOrderQuery } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { OrdersView } from "./OrdersView";

export const metadata: Metadata = { title: "Orders" };

export default async function OrdersPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const me = await requireSessionReseller("/dashboard/orders");
  const sp = await searchParams;
  const flat = Object.fromEntries(Object.entries(sp).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const query = parseOrderQuery(me.resellerId, flat);
  const initial = await listResellerOrders(getDb(), query);
  return (
    <Suspense>
      <OrdersView initial={initial} initialParams={{ status: query.status ?? "", q: query.search ?? "", page: query.page ?? 1 }} />
    </Suspense>
  );
}
