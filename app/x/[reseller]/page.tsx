import type { Metadata } from "next";
import { ExchangePage } from "@/app/_hosted/exchange-page";
import { hostedTitle } from "@/app/_hosted/load";
import type { Search } from "@/app/_hosted/shell";

export async function generateMetadata({
  params,
  searchParams,
}: {
  params: Promise<{ reseller: string }>;
  searchParams: Promise<Search>;
}): Promise<Metadata> {
  const { reseller } = await params;
  const sp = await searchParams;
  return hostedTitle(reseller, typeof sp.channel === "string" ? sp.channel : null);
}

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
