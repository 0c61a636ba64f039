import { issueNonce } from "@/lib/auth/nonce";
import { getAllowedChainIds, getAppOrigin, getContractWalletChainIds } from "@/lib/auth/origin";
import { jsonResponse } from "@/lib/dashboard/route";
import { getDb } from "@/lib/db/client";
import { isAppError } from "@/lib/errors";
import { limitSigninNonce, rateLimitHeaders } from "@/lib/ratelimit/limiter";

// Issues a single-use Sign-In with Ethereum nonce (POST: it creates server state and must
// never be cached). The answer also says which origin and chains the server will accept,
// so the page can explain a mismatch before asking the wallet to sign, and on which chains a
// smart-contract wallet can sign in (those with an RPC node, SIWE_RPC_URL). Rate limited per
// client IP (server.ts sets x-client-ip from the socket, or X-Forwarded-For behind TRUST_PROXY).
export async function POST(req: Request) {
  let limits: Awaited<ReturnType<typeof limitSigninNonce>>;
  try {
    limits = await limitSigninNonce(req.headers.get("x-client-ip") ?? "unknown");
  } catch (e) {
    if (!isAppError(e)) throw e;
    return jsonResponse({ error: { code: e.code, message: e.message } }, { status: e.status, headers: e.headers });
  }
  const { nonce, expiresAt } = await issueNonce(getDb());
  const origin = getAppOrigin();
  return jsonResponse(
    {
      nonce,
      expiresAt: expiresAt.toISOString(),
      domain: origin.host,
      uri: origin.origin,
      chainIds: getAllowedChainIds(),
      contractWalletChainIds: getContractWalletChainIds(),
    },
    { headers: { "Cache-Control": "no-store", ...rateLimitHeaders(limits) } },
  );
}
