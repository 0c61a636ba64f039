import type { Metadata } from "next";
import { HostedExchange } from "@/app/_hosted/Exchange";
import { loadHosted, withUrlParameters } from "@/app/_hosted/load";

export const metadata: Metadata = { title: { absolute: "Exchange" }, robots: { index: false, follow: false } };

/**
 * A widget (/w/<widget id>): the exchange flow in a compact layout for an iframe. Only the
 * sites the widget lists may frame it (CSP frame-ancestors, set from lib/http/server.ts and proxy.ts).
 */
export default async function WidgetPage({
  params,
  searchParams,
}: {
  params: Promise<{ widget: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { widget } = await params;
  const { cfg, currencies } = await loadHosted({ widget });
  return <HostedExchange cfg={withUrlParameters(cfg, currencies, await searchParams)} currencies={currencies} widget />;
}
