import type { Metadata } from "next";
import { OperatorsView } from "./OperatorsView";

export const metadata: Metadata = { title: "Operators" };

export default function OperatorsPage() {
  return <OperatorsView />;
}
