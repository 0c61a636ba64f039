import Link from "next/link";
import { getAddress } from "viem";
import { getDb, teamsOf } from "@/app/_server/lib";
import { requireSessionReseller } from "@/app/_server/session";
import { TeamSwitcher } from "@/app/dashboard/team/TeamSwitcher";
import { Nav } from "@/components/dashboard/Nav";
import { SignOutButton } from "@/components/dashboard/SignOutButton";
import { shortAddress } from "@/components/format";
import { Logo } from "@/components/Logo";

// Every page under /dashboard requires a signed-in reseller; without one, the sign-in page.
// (Pages and route handlers re-check on their own: a layout does not guard route handlers.)
export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const me = await requireSessionReseller();
  const wallet = getAddress(me.wallet);
  // The wallet's teams, for the switcher (shown only with more than one).
  const teams = (await teamsOf(getDb(), { walletAddress: me.wallet })).map((t) => ({
    id: t.resellerId,
    label: `${shortAddress(getAddress(t.reseller.walletAddress))} (${t.role})`,
  }));
  return (
    <div className="min-h-dvh">
      <a
        href="#main"
        className="sr-only print:hidden focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded-md focus:bg-white focus:px-3 focus:py-2 focus:shadow"
      >
        Skip to content
      </a>
      <header className="sticky top-0 z-30 print:hidden border-b border-zinc-200 bg-white/95 backdrop-blur">
        <div className="mx-auto flex h-14 max-w-6xl items-center justify-between gap-3 px-4 sm:px-6">
          <Link href="/dashboard" className="flex min-w-0 items-center gap-2 rounded-md">
            <Logo />
            <span className="truncate font-semibold tracking-tight">
              Reseller<span className="hidden sm:inline"> dashboard</span>
            </span>
          </Link>
          <div className="flex items-center gap-2 sm:gap-3">
            {teams.length > 1 ? <TeamSwitcher teams={teams} current={me.resellerId} /> : null}
            <span className="rounded-full bg-indigo-50 px-2.5 py-1 text-xs text-indigo-800" data-testid="team-role">
              {me.role}
            </span>
            <span
              className="rounded-full bg-zinc-100 px-2.5 py-1 font-mono text-xs text-zinc-700"
              title={wallet}
              data-testid="wallet-address"
            >
              <span className="sr-only">Signed in as </span>
              {shortAddress(wallet)}
            </span>
            <SignOutButton />
          </div>
        </div>
        <div className="mx-auto max-w-6xl px-2 sm:px-4">
          <Nav role={me.role} />
        </div>
      </header>
      <main id="main" className="mx-auto max-w-6xl px-4 py-6 sm:px-6 sm:py-8 print:max-w-none print:p-0">
        {children}
      </main>
    </div>
  );
}
