import type { Metadata } from "next";
import { Suspense } from "react";
import { channelOptions, getDb, listResellerOrders, parseOrderQuery } from "@/app/_server/lib";
import { requirePageMember } from "@/app/_server/session";
import { NoAccess } from "@/components/dashboard/NoAccess";
import { OrdersView } from "./OrdersView";

export const metadata: Metadata = { title: "Orders" };

export default async function OrdersPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const me = await requirePageMember("/dashboard/orders", "read:orders");
  if (!me.allowed) return <NoAccess />;
  const sp = await searchParams;
  const flat = Object.fromEntries(Object.entries(sp).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const query = parseOrderQuery(me.resellerId, flat);
  // The channel filter's choices are bounded (lib/dashboard/keys.ts): never every key the reseller ever had.
  const [initial, channels] = await Promise.all([
    listResellerOrders(getDb(), query),
    channelOptions(getDb(), { resellerId: me.resellerId, selected: query.channel }),
  ]);
  return (
    <Suspense>
      <OrdersView
        initial={initial}
        channels={channels}
        initialParams={{
          status: query.status ?? "",
          q: query.search ?? "",
          channel: query.channel ?? "",
          after: query.after ?? "",
          before: query.before ?? "",
          oldest: query.oldest ?? false,
        }}
      />
    </Suspense>
  );
}
