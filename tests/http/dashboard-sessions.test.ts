import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, inject, it } from "vitest";
import { createApiKey } from "@/lib/keys/api-keys";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { api, testDb, withinKeyChangeBound } from "../support/api";
import { runCli } from "../support/cli";
import { callServerAction, readDashboard, signInOverHttp, signOutOverHttp } from "../support/dashboard";

// Sessions that can be ended: "Sign out everywhere" and the operator's reseller:revoke both
// end every session of a wallet at once, and an old session cookie then gets the sign-in page.

const origin = () => inject("baseUrl");

/** What a browser holding `cookie` gets for the dashboard: the page, or the sign-in page. */
async function dashboardWith(cookie: string) {
  const r = await fetch(`${origin()}/dashboard`, { headers: { cookie }, redirect: "manual" });
  if (r.status === 200) return "dashboard";
  const to = r.headers.get("location") ?? "";
  if (![302, 303, 307].includes(r.status) || !/\/signin/.test(to)) throw new Error(`unexpected ${r.status} ${to}`);
  const signin = await fetch(new URL(to, origin()), { headers: { cookie }, redirect: "manual" });
  expect(signin.status).toBe(200); // not bounced back to the dashboard: the cookie is no session
  expect(await signin.text()).toContain("Sign in with your wallet");
  return "signin";
}

async function cli(...args: string[]) {
  const r = await runCli(inject("databaseUrl"), args);
  if (r.code !== 0) throw new Error(`cli ${args.join(" ")} exited ${r.code}: ${r.err}`);
  return r;
}

describe("ending sessions", () => {
  it("Sign out ends that session on the server: a copy of its cookie gets the sign-in page, other sessions stay", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const laptop = (await signInOverHttp(origin(), wallet)).cookie;
    const phone = (await signInOverHttp(origin(), wallet)).cookie;
    expect([await dashboardWith(laptop), await dashboardWith(phone)]).toEqual(["dashboard", "dashboard"]);

    // What the Sign out button does: next-auth's signout with its CSRF token. The browser then
    // drops its cookie; someone who copied the cookie before keeps it.
    await signOutOverHttp(origin(), laptop);
    expect(await dashboardWith(laptop)).toBe("signin");
    expect((await readDashboard(origin(), laptop, "settings", {})).body.error.code).toBe("UNAUTHORIZED");
    expect((await fetch(`${origin()}/dashboard/export/orders`, { headers: { cookie: laptop } })).status).toBe(401);
    // Only that session: the same wallet's other one goes on.
    expect(await dashboardWith(phone)).toBe("dashboard");
  });

  it("after Sign out everywhere, every old session cookie of the wallet gets the sign-in page", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const laptop = (await signInOverHttp(origin(), wallet)).cookie;
    const phone = (await signInOverHttp(origin(), wallet)).cookie;
    const other = (await signInOverHttp(origin(), privateKeyToAccount(generatePrivateKey()))).cookie;
    expect([await dashboardWith(laptop), await dashboardWith(phone)]).toEqual(["dashboard", "dashboard"]);

    expect((await callServerAction(origin(), laptop, "signOutEverywhereAction")).result).toEqual({ ok: true, data: null });

    for (const cookie of [laptop, phone]) {
      expect(await dashboardWith(cookie)).toBe("signin");
      expect((await readDashboard(origin(), cookie, "settings", {})).body.error.code).toBe("UNAUTHORIZED");
      expect((await fetch(`${origin()}/dashboard/export/orders`, { headers: { cookie } })).status).toBe(401);
      // next-auth's own endpoint agrees, and tells the browser to drop the cookie.
      const s = await fetch(`${origin()}/api/auth/session`, { headers: { cookie } });
      expect(await s.json()).toEqual({});
      expect(s.headers.getSetCookie().some((c) => /session-token=;/.test(c) && /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(c))).toBe(true);
    }
    // Another wallet's session is untouched; the same wallet can sign in again.
    expect(await dashboardWith(other)).toBe("dashboard");
    const again = (await signInOverHttp(origin(), wallet)).cookie;
    expect(await dashboardWith(again)).toBe("dashboard");
  });

  it("reseller:revoke ends the reseller's sessions, stops its keys and refuses its sign-in until reseller:restore", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const cookie = (await signInOverHttp(origin(), wallet)).cookie;
    const reseller = (await getResellerByWallet(testDb(), { walletAddress: wallet.address }))!;
    const { key } = await createApiKey(testDb(), { resellerId: reseller.id, name: "app" });
    expect((await api("/estimate?from=btc&to=eth&amount=0.1", { key })).status).toBe(200);
    expect(await dashboardWith(cookie)).toBe("dashboard");

    await cli("reseller:revoke", wallet.address);
    expect(await dashboardWith(cookie)).toBe("signin");
    // The CLI is another process: its revocation reaches the server's key cache within the bound.
    const estimate = () => api("/estimate?from=btc&to=eth&amount=0.1", { key });
    expect((await withinKeyChangeBound(estimate, (r) => r.status === 401)).status).toBe(401);
    const refused = await signInOverHttp(origin(), wallet);
    expect(refused).toEqual({ error: "ACCOUNT_DISABLED", cookie: "" });

    await cli("reseller:restore", wallet.address);
    const back = await signInOverHttp(origin(), wallet);
    expect(back.error).toBeNull();
    expect(await dashboardWith(back.cookie)).toBe("dashboard");
    expect(await dashboardWith(cookie)).toBe("signin"); // the session from before the revocation stays ended
  });
});
