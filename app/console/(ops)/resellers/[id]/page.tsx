import type { Metadata } from "next";
import { ResellerView } from "./ResellerView";

export const metadata: Metadata = { title: "Reseller" };

export default async function ResellerPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ResellerView id={id} />;
}
