import type { Metadata } from "next";
import { ResellersView } from "./ResellersView";

export const metadata: Metadata = { title: "Resellers" };

export default function ResellersPage() {
  return <ResellersView />;
}
