import type { Metadata } from "next";
import { ExchangePage } from "@/app/_hosted/exchange-page";
import type { Search } from "@/app/_hosted/shell";

export const metadata: Metadata = { title: { absolute: "Exchange" }, robots: { index: false, follow: false } };

/**
 * A reseller's hosted exchange page, its referral link: /x/<reseller id>, optionally
 * ?channel=<widget id> to count its orders (and apply the markup) of that widget's channel.
 * Works without JavaScript (app/_hosted/actions.ts).
 */
export default async function HostedPage({
  params,
  searchParams,
}: {
  params: Promise<{ reseller: string }>;
  searchParams: Promise<Search>;
}) {
  const { reseller } = await params;
  const sp = await searchParams;
  const channel = typeof sp.channel === "string" ? sp.channel : null;
  return <ExchangePage sel={{ reseller, widget: channel }} sp={sp} path={`/x/${reseller}`} widget={false} />;
}
