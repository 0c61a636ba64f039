import NextAuth from "next-auth";
import { getAuthOptions } from "@/app/_server/auth-options";
import { malformedJsonAnswer } from "@/app/_server/lib";

// next-auth's own endpoints (csrf, callback/siwe, session, signout). The options are built
// on the first request, not at import, so the build never reads the secret. server.ts has
// bounded the body's size; a malformed JSON body is a 400 here, not next-auth's 500.
type Ctx = { params: Promise<{ nextauth: string[] }> };

const handler = async (req: Request, ctx: Ctx) => (await malformedJsonAnswer(req)) ?? NextAuth(getAuthOptions())(req, ctx);

export { handler as GET, handler as POST };
