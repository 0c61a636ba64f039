import type { LocalAccount } from "viem";
import { createSiweMessage } from "viem/siwe";
import { newIp } from "./api";

// The operator's console over HTTP (issue 52): sign in with a wallet (a nonce, the EIP-4361
// message the console's page builds, signed by a viem account) and call its API as the
// console's own page does (Origin: the app's origin; the session cookie).

export interface ConsoleClient {
  cookie: string;
  call<T = any>(
    path: string,
    opts?: { method?: "GET" | "POST"; body?: unknown; origin?: string | null; cookie?: string; ip?: string },
  ): Promise<{
    status: number;
    body: T;
    headers: Headers;
  }>;
}

/** The app's origin as its pages have it (APP_URL: localhost), for a server reached at 127.0.0.1. */
export const appOriginOf = (baseUrl: string) => baseUrl.replace("127.0.0.1", "localhost");

export async function consoleCall<T = any>(
  baseUrl: string,
  path: string,
  opts: { method?: "GET" | "POST"; body?: unknown; origin?: string | null; cookie?: string; ip?: string } = {},
) {
  const headers: Record<string, string> = { "x-forwarded-for": opts.ip ?? newIp() };
  if (opts.origin !== null) headers.origin = opts.origin ?? appOriginOf(baseUrl);
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${baseUrl}/api/console${path}`, {
    method: opts.method ?? (opts.body !== undefined ? "POST" : "GET"),
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body: body as T, headers: res.headers };
}

/** Signs `signer` in to the console; the session cookie, or the refusal's status and body. */
export async function signInConsole(baseUrl: string, signer: LocalAccount, opts: { chainId?: number } = {}) {
  const n = await consoleCall<{ nonce: string; domain: string; uri: string }>(baseUrl, "/auth/nonce", { method: "POST" });
  if (n.status !== 200) throw new Error(`nonce: ${n.status} ${JSON.stringify(n.body)}`);
  const issuedAt = new Date();
  const message = createSiweMessage({
    domain: n.body.domain,
    address: signer.address,
    statement: "Sign in to the operator's console. This request costs nothing and sends no transaction.",
    uri: n.body.uri,
    version: "1",
    chainId: opts.chainId ?? 1,
    nonce: n.body.nonce,
    issuedAt,
    expirationTime: new Date(issuedAt.getTime() + 10 * 60_000),
  });
  const signature = await signer.signMessage({ message });
  const r = await consoleCall(baseUrl, "/auth/sign-in", { body: { message, signature } });
  const setCookie = r.headers.get("set-cookie") ?? "";
  const cookie = setCookie.split(";")[0];
  return { status: r.status, body: r.body, cookie };
}

/** A signed-in console client for `signer`. */
export async function consoleClient(baseUrl: string, signer: LocalAccount): Promise<ConsoleClient> {
  const s = await signInConsole(baseUrl, signer);
  if (s.status !== 200) throw new Error(`console sign-in: ${s.status} ${JSON.stringify(s.body)}`);
  return {
    cookie: s.cookie,
    call: (path, opts = {}) => consoleCall(baseUrl, path, { ...opts, cookie: opts.cookie ?? s.cookie }),
  };
}
