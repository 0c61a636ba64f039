"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { cx } from "@/components/ui";
import { consolePost, signInPath, useConsoleQuery } from "./api";
import { type Me, MeContext } from "./me";

// The console's frame: who is signed in, the sections, sign out. Everything under it needs a
// console session (GET /me); without one the browser goes to /console/signin. A reseller's
// dashboard session is another cookie and grants nothing here.

const LINKS = [
  { href: "/console", label: "Queue" },
  { href: "/console/orders", label: "Orders" },
  { href: "/console/resellers", label: "Resellers" },
  { href: "/console/withdrawals", label: "Withdrawals" },
  { href: "/console/treasury", label: "Treasury" },
  { href: "/console/providers", label: "Providers" },
  { href: "/console/operators", label: "Operators" },
  { href: "/console/audit", label: "Audit log" },
];

export function Shell({ children }: { children: React.ReactNode }) {
  const path = usePathname();
  const me = useConsoleQuery<Me>("/me");
  const [leaving, setLeaving] = useState(false);
  const active = (href: string) => (href === "/console" ? path === href : path === href || path.startsWith(`${href}/`));

  if (me.isPending || (me.isError && me.error.status === 401)) {
    return (
      <p className="p-6 text-sm text-zinc-500" aria-live="polite">
        {me.isError ? "Not signed in: opening the sign-in page…" : "Loading the console…"}
      </p>
    );
  }
  if (me.isError) {
    return (
      <div className="p-6 text-sm">
        <p role="alert" className="text-rose-700">
          The console could not load: {me.error.message}
        </p>
        <Link className="text-indigo-700 underline" href={signInPath()}>
          Sign in again
        </Link>
      </div>
    );
  }
  const op = me.data.operator;
  return (
    <MeContext.Provider value={me.data}>
      <div className="min-h-dvh bg-zinc-50 text-sm">
        <header className="sticky top-0 z-30 border-b border-zinc-800 bg-zinc-900 text-zinc-100">
          <div className="flex h-10 items-center gap-4 px-3">
            <Link href="/console" className="font-semibold tracking-tight whitespace-nowrap">
              Operator console
            </Link>
            <nav aria-label="Console" className="min-w-0 flex-1 overflow-x-auto">
              <ul className="flex min-w-max">
                {LINKS.map((l) => (
                  <li key={l.href}>
                    <Link
                      href={l.href}
                      aria-current={active(l.href) ? "page" : undefined}
                      className={cx(
                        "inline-block px-2.5 py-2.5 text-xs font-medium whitespace-nowrap",
                        active(l.href) ? "bg-zinc-700 text-white" : "text-zinc-300 hover:bg-zinc-800 hover:text-white",
                      )}
                    >
                      {l.label}
                    </Link>
                  </li>
                ))}
              </ul>
            </nav>
            <span className="font-mono text-xs text-zinc-300" data-testid="operator-wallet" title={op.wallet}>
              <span className="sr-only">Signed in as </span>
              {op.wallet.slice(0, 6)}…{op.wallet.slice(-4)}
            </span>
            <span className="rounded bg-zinc-700 px-1.5 py-0.5 text-xs" data-testid="operator-role">
              {op.role}
            </span>
            <button
              type="button"
              disabled={leaving}
              className="rounded px-2 py-1 text-xs text-zinc-300 ring-1 ring-zinc-600 hover:bg-zinc-800 hover:text-white"
              onClick={async () => {
                setLeaving(true);
                try {
                  await consolePost("/auth/sign-out");
                } finally {
                  // A full load: nothing of this session stays in the page's cache.
                  window.location.assign("/console/signin");
                }
              }}
            >
              Sign out
            </button>
          </div>
        </header>
        <main id="main" className="px-3 py-4 sm:px-4">
          {children}
        </main>
      </div>
    </MeContext.Provider>
  );
}
