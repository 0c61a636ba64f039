import type { Metadata } from "next";
import { ConsoleSignIn } from "@/components/console/SignIn";

export const metadata: Metadata = { title: "Sign in" };

export default async function ConsoleSignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const sp = await searchParams;
  const next = Array.isArray(sp.next) ? sp.next[0] : sp.next;
  // Only a console path: no open redirect.
  const back = next && /^\/console(\/[^/\\]|$|\?)/.test(next) && !next.startsWith("/console/signin") ? next : "/console";
  return (
    <main className="flex min-h-dvh items-center justify-center bg-zinc-100 px-4">
      <div className="w-full max-w-sm border border-zinc-300 bg-white p-5 text-sm">
        <h1 className="text-base font-semibold text-zinc-900">Operator console</h1>
        <p className="mt-1 text-zinc-600">
          Sign in with the wallet an admin added as an operator. Your wallet signs a message; no transaction is sent. A reseller&apos;s
          dashboard sign-in does not open the console.
        </p>
        <div className="mt-4">
          <ConsoleSignIn next={back} />
        </div>
      </div>
    </main>
  );
}
