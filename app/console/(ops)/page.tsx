import type { Metadata } from "next";
import { QueueView } from "./QueueView";

export const metadata: Metadata = { title: "Queue" };

export default function QueuePage() {
  return <QueueView />;
}
