import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { HostedStatus } from "@/app/_hosted/Exchange";
import { hostedSandboxEnabled } from "@/app/_server/lib";

export const metadata: Metadata = {
  title: { absolute: "Your exchange" },
  robots: { index: false, follow: false },
  referrer: "no-referrer",
};

/**
 * A hosted order's status page: /o/<order id>#t=<secret>. The secret stays in the fragment
 * (never sent to any server but through the page's own API call); without it, nothing shows.
 */
export default async function OrderStatusPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^[0-9a-f]{24}$/.test(id)) notFound();
  return <HostedStatus id={id} sandbox={hostedSandboxEnabled()} />;
}
