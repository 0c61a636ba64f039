import type { Metadata } from "next";
import { HostedExchange } from "@/app/_hosted/Exchange";
import { loadHosted, withUrlParameters } from "@/app/_hosted/load";

export const metadata: Metadata = { title: { absolute: "Exchange" }, robots: { index: false, follow: false } };

type Search = Record<string, string | string[] | undefined>;

/**
 * A reseller's hosted exchange page, its referral link: /x/<reseller id>, optionally
 * ?channel=<widget id> to count its orders (and apply the markup) of that widget's channel.
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
  const { cfg, currencies } = await loadHosted({ reseller, widget: channel });
  return <HostedExchange cfg={withUrlParameters(cfg, currencies, sp)} currencies={currencies} widget={false} />;
}
