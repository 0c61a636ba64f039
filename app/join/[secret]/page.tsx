import type { Metadata } from "next";
import { connection } from "next/server";
import { describeInvite, getAllowedChainIds, getContractWalletChainIds, getDb } from "@/app/_server/lib";
import { SignIn } from "@/components/auth/SignIn";
import { Logo } from "@/components/Logo";
import { Alert } from "@/components/ui";

export const metadata: Metadata = { title: "Join a team" };

// An invitation link (issue 54, docs/dashboard.md#teams): says which team and role it offers, or
// why it no longer works (used, expired, revoked: each with its code); signing in with the
// wallet here joins the team with that role and opens its dashboard. The sign-in checks the link
// again, so this page only informs.
export default async function JoinPage({ params }: { params: Promise<{ secret: string }> }) {
  await connection();
  const { secret } = await params;
  const invite = await describeInvite(getDb(), { secret });
  const contractWallets = getContractWalletChainIds().length === getAllowedChainIds().length;
  return (
    <main className="flex min-h-dvh items-center justify-center bg-gradient-to-b from-white to-zinc-100 px-4 py-10">
      <div className="w-full max-w-md">
        <div className="mb-6 flex items-center justify-center gap-2">
          <Logo />
          <span className="text-lg font-semibold tracking-tight">Reseller dashboard</span>
        </div>
        <div className="rounded-xl border border-zinc-200 bg-white p-6 shadow-sm sm:p-8">
          <h1 className="text-xl font-semibold tracking-tight">Join a team</h1>
          {invite.ok ? (
            <>
              <p className="mt-2 text-sm text-zinc-600" data-testid="invite-offer">
                You are invited to join {invite.team} as <strong>{invite.role}</strong>. Sign in with the wallet that should join: this link
                works once.
              </p>
              <div className="mt-6">
                <SignIn initialError={null} callbackUrl="/dashboard" contractWallets={contractWallets} invite={secret} />
              </div>
            </>
          ) : (
            <div className="mt-4" data-testid="invite-error" data-code={invite.code}>
              <Alert title={invite.code}>{invite.message}</Alert>
            </div>
          )}
        </div>
      </div>
    </main>
  );
}
