"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cx } from "@/components/ui";
import { PAGE_PERMISSIONS, teamCan } from "@/lib/teams/roles";

const LINKS = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/orders", label: "Orders" },
  { href: "/dashboard/withdrawals", label: "Withdrawals" },
  { href: "/dashboard/statements", label: "Statements" },
  { href: "/dashboard/keys", label: "API keys" },
  { href: "/dashboard/requests", label: "Requests" },
  { href: "/dashboard/widgets", label: "Widgets" },
  { href: "/dashboard/webhooks", label: "Webhooks" },
  { href: "/dashboard/settings", label: "Settings" },
  { href: "/dashboard/team", label: "Team" },
  { href: "/dashboard/docs", label: "Docs" },
];

/** Whether the member's role sees a page (the server refuses its reads and actions anyway). */
const visible = (role: string, href: string) =>
  !Object.hasOwn(PAGE_PERMISSIONS, href) || teamCan(role, PAGE_PERMISSIONS[href as keyof typeof PAGE_PERMISSIONS]);

/** Tabs under the header, those the member's role may see; on a phone the row scrolls sideways instead of wrapping. */
export function Nav({ role }: { role: string }) {
  const path = usePathname();
  const active = (href: string) => (href === "/dashboard" ? path === href : path === href || path.startsWith(`${href}/`));
  return (
    <nav aria-label="Dashboard" className="-mb-px overflow-x-auto [scrollbar-width:none]">
      <ul className="flex min-w-max sm:gap-1">
        {LINKS.filter((l) => visible(role, l.href)).map((l) => (
          <li key={l.href}>
            <Link
              href={l.href}
              aria-current={active(l.href) ? "page" : undefined}
              className={cx(
                "inline-block border-b-2 px-2 py-2.5 sm:px-3 text-sm font-medium whitespace-nowrap transition-colors",
                active(l.href)
                  ? "border-indigo-600 text-indigo-700"
                  : "border-transparent text-zinc-600 hover:border-zinc-300 hover:text-zinc-900",
              )}
            >
              {l.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
