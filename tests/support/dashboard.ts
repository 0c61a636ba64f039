import fs from "node:fs";
import path from "node:path";
import type { Hex, LocalAccount } from "viem";
import { createSiweMessage } from "viem/siwe";
import { readUrl } from "@/app/dashboard/read";
import type { DashboardReadName, DashboardReads } from "@/lib/dashboard/types";
import { newIp } from "./api";
import { ROOT } from "./server";

// Drives the dashboard of a running server over plain HTTP, as a browser would: signs in
// with Sign-In with Ethereum through next-auth's own endpoints (a real signature), reads as
// its react-query hooks do (GET /dashboard/api/<read>, the URL made by the page's own
// readUrl), and calls the write server actions the way Next's client does (POST with a
// Next-Action header, answered in React's Flight format). Action ids come from the build's
// server-reference manifest.

/** Set-Cookie headers of a response, as name=value pairs for a Cookie header. */
function cookiesOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const at = pair.indexOf("=");
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}
const cookieHeader = (jar: Record<string, string>) =>
  Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");

export interface SignInResult {
  /** next-auth's error code (null when signed in). */
  error: string | null;
  /** Cookie header carrying the session (empty when refused). */
  cookie: string;
}

/**
 * Signs in over HTTP: a nonce from /api/auth/nonce, the EIP-4361 message the sign-in page
 * would build (for `address`, default the signer's own), signed by `signer`, posted to
 * next-auth's credentials callback with its CSRF token; with `invite`, an invitation link's
 * secret, as the join page sends it.
 */
export async function signInOverHttp(
  origin: string,
  signer: LocalAccount,
  opts: { address?: Hex; chainId?: number; appUrl?: string; invite?: string } = {},
): Promise<SignInResult> {
  const ip = newIp();
  const nonceRes = await fetch(`${origin}/api/auth/nonce`, { method: "POST", headers: { "x-forwarded-for": ip } });
  if (!nonceRes.ok) throw new Error(`nonce: ${nonceRes.status} ${await nonceRes.text()}`);
  const server = (await nonceRes.json()) as { nonce: string; uri: string; domain: string };
  const csrfRes = await fetch(`${origin}/api/auth/csrf`, { headers: { "x-forwarded-for": ip } });
  const jar = cookiesOf(csrfRes);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const issuedAt = new Date();
  const message = createSiweMessage({
    domain: server.domain,
    address: opts.address ?? signer.address,
    statement: "Sign in to the reseller dashboard. This request costs nothing and sends no transaction.",
    uri: server.uri,
    version: "1",
    chainId: opts.chainId ?? 1,
    nonce: server.nonce,
    issuedAt,
    expirationTime: new Date(issuedAt.getTime() + 10 * 60_000),
  });
  const signature = await signer.signMessage({ message });
  const res = await fetch(`${origin}/api/auth/callback/siwe`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(jar), "x-forwarded-for": ip },
    body: new URLSearchParams({ csrfToken, message, signature, ...(opts.invite ? { invite: opts.invite } : {}), json: "true" }),
    redirect: "manual",
  });
  const body = (await res.json()) as { url: string };
  const error = new URL(body.url).searchParams.get("error");
  const session = Object.entries(cookiesOf(res)).filter(([k, v]) => k.includes("session-token") && v);
  return { error, cookie: error ? "" : cookieHeader(Object.fromEntries(session)) };
}

/** What the Sign out button does: next-auth's signout endpoint, with its CSRF token, for the session in `cookie`. */
export async function signOutOverHttp(origin: string, cookie: string): Promise<void> {
  const ip = newIp();
  const csrfRes = await fetch(`${origin}/api/auth/csrf`, { headers: { cookie, "x-forwarded-for": ip } });
  const jar = { ...Object.fromEntries(cookie.split("; ").map((p) => p.split(/=(.*)/s).slice(0, 2))), ...cookiesOf(csrfRes) };
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const res = await fetch(`${origin}/api/auth/signout`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(jar), "x-forwarded-for": ip },
    body: new URLSearchParams({ csrfToken, json: "true" }),
    redirect: "manual",
  });
  if (res.status !== 200) throw new Error(`signout: ${res.status} ${await res.text()}`);
  // next-auth tells the browser to drop the cookie.
  if (!res.headers.getSetCookie().some((c) => /session-token=;/.test(c))) throw new Error("signout did not clear the session cookie");
}

interface ManifestEntry {
  workers: Record<string, unknown>;
  filename: string;
  exportedName: string;
}

/** The action's id and a page that serves it, from the production build. */
function findAction(name: string): { id: string; page: string } {
  const file = path.join(ROOT, ".next/server/server-reference-manifest.json");
  const manifest = JSON.parse(fs.readFileSync(file, "utf8")) as { node: Record<string, ManifestEntry> };
  const hit = Object.entries(manifest.node).find(([, e]) => e.exportedName === name && e.filename.startsWith("app/dashboard/"));
  if (!hit) throw new Error(`no server action ${name} in ${file}`);
  const worker = Object.keys(hit[1].workers)[0]; // e.g. "app/dashboard/orders/[id]/page"
  const page = `/${worker.replace(/^app\//, "").replace(/\/page$/, "")}`.replace(/\[[^\]]+\]/g, "x");
  return { id: hit[0], page };
}

/**
 * Decodes the Flight answer of an action call: row 0 names the row holding the result. Only
 * what plain JSON data needs: references to other rows, text rows, "$$" escapes, undefined.
 */
export function decodeFlight(text: string): unknown {
  const rows = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    const colon = text.indexOf(":", i);
    const id = text.slice(i, colon);
    if (text[colon + 1] === "T") {
      const comma = text.indexOf(",", colon);
      const len = Number.parseInt(text.slice(colon + 2, comma), 16);
      const bytes = Buffer.from(text.slice(comma + 1), "utf8")
        .subarray(0, len)
        .toString("utf8");
      rows.set(id, JSON.stringify(bytes));
      i = comma + 1 + bytes.length;
    } else {
      const end = text.indexOf("\n", colon);
      rows.set(id, text.slice(colon + 1, end));
      i = end + 1;
    }
  }
  const resolve = (v: unknown): unknown => {
    if (typeof v === "string" && v.startsWith("$")) {
      if (v.startsWith("$$")) return v.slice(1);
      if (v === "$undefined") return undefined;
      const ref = /^\$@?([0-9a-f]+)$/.exec(v);
      if (ref) return resolve(JSON.parse(rows.get(ref[1]) ?? "null"));
      throw new Error(`unsupported Flight value ${v}`);
    }
    if (Array.isArray(v)) return v.map(resolve);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
    return v;
  };
  const root = JSON.parse(rows.get("0") ?? "null") as { a?: unknown } | null;
  if (!root || !("a" in root)) throw new Error(`not an action answer: ${text.slice(0, 300)}`);
  return resolve(root.a);
}

export interface ActionCall<T = any> {
  status: number;
  /** The decoded result (the action's return value). */
  result: T;
  /** The raw answer, for "contains nothing of" assertions. */
  text: string;
}

/** Calls a dashboard server action by its export name, with `cookie` (or none), as Next's client does. */
export async function callServerAction<T = any>(
  origin: string,
  cookie: string | null,
  name: string,
  args: unknown[] = [],
): Promise<ActionCall<T>> {
  const { id, page } = findAction(name);
  const res = await fetch(origin + page, {
    method: "POST",
    headers: {
      "next-action": id,
      "content-type": "text/plain;charset=UTF-8",
      accept: "text/x-component",
      origin,
      ...(cookie ? { cookie } : {}),
    },
    body: JSON.stringify(args),
    redirect: "manual",
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status}: ${text.slice(0, 300)}`);
  return { status: res.status, result: decodeFlight(text) as T, text };
}

export interface ReadCall<T = any> {
  status: number;
  /** The parsed JSON answer: the read's data (200), or the error shape. */
  body: T;
  headers: Headers;
  /** The raw answer, for "contains nothing of" assertions. */
  text: string;
}

/**
 * A dashboard read as its react-query hook makes it: GET /dashboard/api/<name> with `cookie`
 * (or none). `query` is the read's typed query (made into the URL as the page makes it), or a
 * raw query string, for the reads that the page would never send.
 */
export async function readDashboard<K extends DashboardReadName, T = any>(
  origin: string,
  cookie: string | null,
  name: K,
  query: DashboardReads[K]["query"] | string,
): Promise<ReadCall<T>> {
  const url = typeof query === "string" ? `/dashboard/api/${name}${query ? `?${query}` : ""}` : readUrl(name, query);
  const res = await fetch(origin + url, { headers: { accept: "application/json", ...(cookie ? { cookie } : {}) }, redirect: "manual" });
  const text = await res.text();
  let body: T;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`GET ${url}: HTTP ${res.status}, not JSON: ${text.slice(0, 300)}`);
  }
  return { status: res.status, body, headers: res.headers, text };
}
