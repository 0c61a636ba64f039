import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getAllowedChainIds, getAppOrigin, getContractWalletChainIds, SERVICE_INSTANCE_ID } from "@/app/_server/lib";
import { getSessionReseller } from "@/app/_server/session";
import { SignIn } from "@/components/auth/SignIn";
import { Logo } from "@/components/Logo";
import { safeCallbackPath } from "@/lib/auth/callback";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? null;
  if (await getSessionReseller()) redirect("/dashboard");
  const origin = getAppOrigin();
  const host = origin.host;
  const contractWallets = getContractWalletChainIds().length === getAllowedChainIds().length;

  return (
    <main className="flex min-h-dvh items-center justify-center bg-gradient-to-b from-white to-zinc-100 px-4 py-10">
      <meta name="service-instance" content={SERVICE_INSTANCE_ID} />
      <div className="w-full max-w-md">
        <div className="mb-6 flex items-center justify-center gap-2">
          <Logo />
          <span className="text-lg font-semibold tracking-tight">Reseller dashboard</span>
        </div>
        <div className="rounded-xl border border-zinc-200 bg-white p-6 shadow-sm sm:p-8">
          <h1 className="text-xl font-semibold tracking-tight">Sign in with your wallet</h1>
          <p className="mt-2 text-sm text-zinc-600">
            Your Ethereum wallet is your account: no email, no password. The first sign-in creates your reseller account; to join a team,
            open the invitation link you were sent.
          </p>
          <ul className="mt-4 space-y-1.5 text-sm text-zinc-600">
            <li className="flex gap-2">
              <Check /> Issue and rotate API keys for the exchange API
            </li>
            <li className="flex gap-2">
              <Check /> Set your markup and follow orders and earnings
            </li>
            <li className="flex gap-2">
              <Check /> Signing is free: no transaction is sent
            </li>
          </ul>
          <div className="mt-6">
            <SignIn
              initialError={one(sp.error)}
              callbackUrl={safeCallbackPath(one(sp.callbackUrl), origin.origin)}
              contractWallets={contractWallets}
            />
          </div>
          <p className="mt-2 text-center text-xs text-zinc-500">
            Your wallet will ask you to sign a message for <span className="font-medium text-zinc-700">{host}</span>. Check that it matches
            the address bar.
          </p>
        </div>
      </div>
    </main>
  );
}

function Check() {
  return (
    <svg aria-hidden viewBox="0 0 20 20" className="mt-0.5 size-4 shrink-0 text-emerald-600" fill="currentColor">
      <path
        fillRule="evenodd"
        d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.6l7.3-7.3a1 1 0 0 1 1.4 0Z"
        clipRule="evenodd"
      />
    </svg>
  );
}
