import NextAuth from "next-auth";
import { getAuthOptions } from "@/app/_server/auth-options";

// next-auth's own endpoints (csrf, callback/siwe, session, signout). The options are built
// on the first request, not at import, so the build never reads or creates the secret.
type Ctx = { params: Promise<{ nextauth: string[] }> };

const handler = (req: Request, ctx: Ctx) => NextAuth(getAuthOptions())(req, ctx);

export { handler as GET, handler as POST };
