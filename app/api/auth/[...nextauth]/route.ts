import NextAuth from "next-auth";
import { getAuthOptions } from "@/app/_server/auth-options";
import { nextAuthRefusal } from "@/app/_server/lib";

// next-auth's own endpoints (csrf, callback/siwe, session, signout). The options are built
// on the first request, not at import, so the build never reads the secret. server.ts has
// bounded the body's size; requests next-auth would fail on with a 500 are answered first
// (a malformed JSON body: 400; a GET of a callback: 405).
type Ctx = { params: Promise<{ nextauth: string[] }> };

const handler = async (req: Request, ctx: Ctx) =>
  (await nextAuthRefusal(req, (await ctx.params).nextauth?.[0])) ?? NextAuth(getAuthOptions())(req, ctx);

export { handler as GET, handler as POST };
