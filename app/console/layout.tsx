import type { Metadata } from "next";

// The operator's console (issue 52, docs/operator.md): its own pages, layout and session,
// apart from the reseller dashboard. Its data comes from /api/console (lib/http/console).
export const metadata: Metadata = {
  title: { default: "Operator console", template: "%s · Operator console" },
  robots: { index: false, follow: false },
};

export default function ConsoleLayout({ children }: { children: React.ReactNode }) {
  return children;
}
