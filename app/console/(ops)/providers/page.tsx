import type { Metadata } from "next";
import { ProvidersView } from "./ProvidersView";

export const metadata: Metadata = { title: "Providers" };

export default function ProvidersPage() {
  return <ProvidersView />;
}
