import type { Metadata } from "next";
import { Suspense } from "react";
import { getDb, listKeyRows, listResellerOrders, listWidgets, parseOrderQuery } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { OrdersView } from "./OrdersView";

export const metadata: Metadata = { title: "Orders" };

export default async function OrdersPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const me = await requireSessionReseller("/dashboard/orders");
  const sp = await searchParams;
  const flat = Object.fromEntries(Object.entries(sp).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const query = parseOrderQuery(me.resellerId, flat);
  const [initial, keys, widgets] = await Promise.all([
    listResellerOrders(getDb(), query),
    listKeyRows(getDb(), { resellerId: me.resellerId, includeRevoked: true }),
    listWidgets(getDb(), { resellerId: me.resellerId }),
  ]);
  // Every channel (lib/channels): the hosted page, each widget, each key (revoked ones too: their orders stay).
  const channels = [
    { value: "page", label: "Hosted page" },
    ...widgets.map((w) => ({ value: `widget:${w.id}`, label: `Widget: ${w.name}` })),
    ...keys.map((k) => ({ value: `key:${k.id}`, label: `Key: ${k.name} (${k.prefix}…)${k.revokedAt ? ", revoked" : ""}` })),
  ];
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
