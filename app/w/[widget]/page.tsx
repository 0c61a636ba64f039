import type { Metadata } from "next";
import { ExchangePage } from "@/app/_hosted/exchange-page";
import { hostedTitle } from "@/app/_hosted/load";
import type { Search } from "@/app/_hosted/shell";

export async function generateMetadata({ params }: { params: Promise<{ widget: string }> }): Promise<Metadata> {
  return hostedTitle(null, (await params).widget);
}

/**
 * A widget (/w/<widget id>): the exchange flow in a compact layout for an iframe. Only the
 * sites the widget lists may frame it (CSP frame-ancestors, set from lib/http/server.ts and proxy.ts).
 */
export default async function WidgetPage({ params, searchParams }: { params: Promise<{ widget: string }>; searchParams: Promise<Search> }) {
  const { widget } = await params;
  return <ExchangePage sel={{ widget }} sp={await searchParams} path={`/w/${widget}`} widget />;
}
