import {
  dashboardError,
  getAllowedChainIds,
  getAppOrigin,
  getContractWalletChainIds,
  getDb,
  issueNonce,
  jsonResponse,
  limitSigninNonce,
  rateLimitHeaders,
} from "@/app/_server/lib";

// Issues a single-use Sign-In with Ethereum nonce (POST: it creates server state and must
// never be cached). The answer also says which origin and chains the server will accept,
// so the page can explain a mismatch before asking the wallet to sign, and on which chains a
// smart-contract wallet can sign in (those with an RPC node, SIWE_RPC_URL). Rate limited per
// client IP (server.ts sets x-client-ip from the socket, or X-Forwarded-For behind TRUST_PROXY).
export async function POST(req: Request) {
  try {
    const limits = await limitSigninNonce(req.headers.get("x-client-ip") ?? "unknown");
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
  } catch (e) {
    return dashboardError(e, { "Cache-Control": "no-store" });
  }
}
