import fs from "node:fs";
import path from "node:path";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { DASHBOARD_READS } from "@/lib/dashboard/reads";
import type { DashboardReadName } from "@/lib/dashboard/types";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { DASHBOARD_PERMISSIONS, PAGE_PERMISSIONS, TEAM_ROLES, type TeamRole, teamCan } from "@/lib/teams/roles";
import { testDb } from "../support/api";
import { callServerAction, readDashboard, signInOverHttp } from "../support/dashboard";
import { ROOT } from "../support/server";

// Issue 54, "every server action and read checks the member's role on the server": every server
// action of app/dashboard/actions.ts, every read of lib/dashboard/reads.ts, every CSV export under
// app/dashboard/export and every page, called on the built server by a member of each role, is
// refused (FORBIDDEN, 403, or the page's "not available") exactly when lib/teams/roles.ts says the
// role may not. The lists come from the sources, so an action, read or export added without an
// entry in the table fails here. Arguments are nonsense on purpose: an allowed call answers its
// own error (invalid, not found) or succeeds, never FORBIDDEN.

const origin = () => inject("baseUrl");
const ACTIONS_FILE = fs.readFileSync(path.join(ROOT, "app/dashboard/actions.ts"), "utf8");
/** Every export of the "use server" module but its types: each is a server action anyone can POST to. */
const ACTIONS = [...ACTIONS_FILE.matchAll(/^export (?:const|async function|function) (\w+)/gm)].map((m) => m[1]);
const EXPORTS = fs
  .readdirSync(path.join(ROOT, "app/dashboard/export"))
  .filter((d) => fs.existsSync(path.join(ROOT, "app/dashboard/export", d, "route.ts")));
const READ_QUERIES: Record<DashboardReadName, string> = {
  overview: "days=30",
  earnings: "days=30",
  channels: "days=30",
  widgets: "",
  brand: "",
  orders: "",
  order: "id=0123456789abcdef01234567",
  keys: "",
  "webhook-endpoints": "",
  "webhook-deliveries": "endpoint=x",
  settings: "",
  withdrawals: "",
  statements: "",
  requests: "",
  team: "",
  payouts: "",
};
/** Actions that end the caller's session or membership when allowed: called last, each role then signs in again. */
const ENDING = ["signOutEverywhereAction", "leaveTeamAction"];

const forbidden = { ok: false, error: { code: "FORBIDDEN", message: expect.any(String) } };
const account = () => privateKeyToAccount(generatePrivateKey());

describe("the dashboard's permissions, role by action, read, export and page", () => {
  const wallets = {} as Record<TeamRole, PrivateKeyAccount>;
  const cookies = {} as Record<TeamRole, string>;
  const invite = async (ownerCookie: string, role: TeamRole) => {
    const r = await callServerAction(origin(), ownerCookie, "createInviteAction", [role]);
    expect(r.result.ok, JSON.stringify(r.result)).toBe(true);
    return (r.result.data.path as string).replace("/join/", "");
  };
  const join = async (who: PrivateKeyAccount, secret: string) => {
    const s = await signInOverHttp(origin(), who, { invite: secret });
    expect(s.error).toBeNull();
    return s.cookie;
  };

  beforeAll(async () => {
    wallets.owner = account();
    const o = await signInOverHttp(origin(), wallets.owner);
    expect(o.error).toBeNull();
    cookies.owner = o.cookie;
    for (const role of TEAM_ROLES.filter((r) => r !== "owner")) {
      wallets[role] = account();
      cookies[role] = await join(wallets[role], await invite(cookies.owner, role));
    }
  });

  it("the table names every action, read and export of the sources, and nothing else", () => {
    expect(ACTIONS.length).toBeGreaterThan(20);
    const expected = [
      ...ACTIONS.map((a) => `action:${a}`),
      ...Object.keys(DASHBOARD_READS).map((r) => `read:${r}`),
      ...EXPORTS.map((e) => `export:${e}`),
    ];
    expect(Object.keys(DASHBOARD_PERMISSIONS).sort()).toEqual(expected.sort());
    expect(Object.keys(READ_QUERIES).sort()).toEqual(Object.keys(DASHBOARD_READS).sort());
    // Each action is made with sessionAction under its own name's permission: none goes round the check.
    for (const a of ACTIONS) expect(ACTIONS_FILE, a).toMatch(new RegExp(`export const ${a} = sessionAction\\(\\s*"action:${a}",`));
    // The owner may do everything.
    for (const p of Object.keys(DASHBOARD_PERMISSIONS)) expect(teamCan("owner", p), p).toBe(true);
  });

  for (const role of TEAM_ROLES) {
    it(`${role}: every read is answered or refused as the table says`, async () => {
      for (const name of Object.keys(DASHBOARD_READS) as DashboardReadName[]) {
        const r = await readDashboard(origin(), cookies[role], name, READ_QUERIES[name]);
        if (teamCan(role, `read:${name}`)) expect([200, 404], `${role} read ${name}: ${r.text.slice(0, 200)}`).toContain(r.status);
        else expect([r.status, r.body.error?.code], `${role} read ${name}`).toEqual([403, "FORBIDDEN"]);
      }
    });

    it(`${role}: every CSV export is answered or refused as the table says`, async () => {
      for (const name of EXPORTS) {
        const r = await fetch(`${origin()}/dashboard/export/${name}`, { headers: { cookie: cookies[role] } });
        const text = await r.text();
        if (teamCan(role, `export:${name}`))
          expect([r.status, r.headers.get("content-type")], `${role} export ${name}`).toEqual([200, "text/csv; charset=utf-8"]);
        else expect([r.status, JSON.parse(text).error.code], `${role} export ${name}`).toEqual([403, "FORBIDDEN"]);
      }
    });

    it(`${role}: every page shows its data or "not available" as the table says`, async () => {
      for (const [page, permission] of Object.entries(PAGE_PERMISSIONS)) {
        const r = await fetch(origin() + page, { headers: { cookie: cookies[role] }, redirect: "manual" });
        const html = await r.text();
        expect(r.status, `${role} ${page}`).toBe(200);
        expect(html.includes('data-testid="no-access"'), `${role} ${page}`).toBe(!teamCan(role, permission));
      }
    });

    it(`${role}: every server action is done or refused as the table says`, async () => {
      for (const name of ACTIONS.filter((a) => !ENDING.includes(a))) {
        const r = await callServerAction(origin(), cookies[role], name, []);
        if (teamCan(role, `action:${name}`))
          expect(r.result.error?.code, `${role} ${name}: ${JSON.stringify(r.result)}`).not.toMatch(/^(FORBIDDEN|UNAUTHORIZED)$/);
        else expect(r.result, `${role} ${name}`).toEqual(forbidden);
      }
    });
  }

  it("a role change takes effect at the member's next request", async () => {
    const team = (await readDashboard(origin(), cookies.owner, "team", "")).body;
    const viewer = team.members.find((m: { wallet: string }) => m.wallet === wallets.viewer.address.toLowerCase());
    expect((await readDashboard(origin(), cookies.viewer, "keys", "")).status).toBe(403);
    expect((await callServerAction(origin(), cookies.owner, "setMemberRoleAction", [viewer.id, "developer"])).result.ok).toBe(true);
    expect((await readDashboard(origin(), cookies.viewer, "keys", "")).status).toBe(200);
    expect((await callServerAction(origin(), cookies.owner, "setMemberRoleAction", [viewer.id, "viewer"])).result.ok).toBe(true);
    expect((await readDashboard(origin(), cookies.viewer, "keys", "")).status).toBe(403);
  });

  it("the session-ending actions: everyone may sign out everywhere and leave, but the last owner stays", async () => {
    for (const role of TEAM_ROLES) {
      const r = await callServerAction(origin(), cookies[role], "signOutEverywhereAction", []);
      expect(r.result, role).toEqual({ ok: true, data: null });
      expect((await readDashboard(origin(), cookies[role], "overview", "days=30")).status, role).toBe(401);
      // Signing in again without a link opens the wallet's team, with its role.
      const again = await signInOverHttp(origin(), wallets[role]);
      expect(again.error).toBeNull();
      cookies[role] = again.cookie;
      expect((await readDashboard(origin(), cookies[role], "team", "")).status, role).toBe(role === "owner" ? 200 : 403);
    }
    const left = await callServerAction(origin(), cookies.owner, "leaveTeamAction", []);
    expect(left.result.error.code).toBe("LAST_OWNER");
    const finance = await callServerAction(origin(), cookies.finance, "leaveTeamAction", []);
    expect(finance.result).toEqual({ ok: true, data: null });
    expect((await readDashboard(origin(), cookies.finance, "overview", "days=30")).status).toBe(401);
    const team = (await readDashboard(origin(), cookies.owner, "team", "")).body;
    expect(team.events[0]).toMatchObject({ action: "member.left", actor: wallets.finance.address.toLowerCase() });
  });

  it("a removed member's session ends at its next request", async () => {
    const team = (await readDashboard(origin(), cookies.owner, "team", "")).body;
    const dev = team.members.find((m: { wallet: string }) => m.wallet === wallets.developer.address.toLowerCase());
    expect((await readDashboard(origin(), cookies.developer, "keys", "")).status).toBe(200);
    expect((await callServerAction(origin(), cookies.owner, "removeMemberAction", [dev.id])).result.ok).toBe(true);
    expect((await readDashboard(origin(), cookies.developer, "keys", "")).status).toBe(401);
    expect((await callServerAction(origin(), cookies.developer, "createKeyAction", ["x"])).result.error.code).toBe("UNAUTHORIZED");
  });
});

describe("invitation links at sign-in", () => {
  let ownerCookie = "";
  const owner = account();
  beforeAll(async () => {
    const o = await signInOverHttp(origin(), owner);
    ownerCookie = o.cookie;
  });
  const invite = async (role: TeamRole) => {
    const r = await callServerAction(origin(), ownerCookie, "createInviteAction", [role]);
    return { secret: (r.result.data.path as string).replace("/join/", ""), id: r.result.data.id as string };
  };

  it("a used link: INVITE_USED, and the second wallet gets no team and no reseller", async () => {
    const { secret } = await invite("developer");
    expect((await signInOverHttp(origin(), account(), { invite: secret })).error).toBeNull();
    const page = await (await fetch(`${origin()}/join/${secret}`)).text();
    expect(page).toContain('data-code="INVITE_USED"');
    const late = await signInOverHttp(origin(), account(), { invite: secret });
    expect([late.error, late.cookie]).toEqual(["INVITE_USED", ""]);
  });

  it("a revoked link: INVITE_REVOKED; an unknown one: INVITE_NOT_FOUND", async () => {
    const { secret, id } = await invite("viewer");
    expect(await (await fetch(`${origin()}/join/${secret}`)).text()).toContain('data-testid="invite-offer"');
    expect((await callServerAction(origin(), ownerCookie, "revokeInviteAction", [id])).result.ok).toBe(true);
    expect(await (await fetch(`${origin()}/join/${secret}`)).text()).toContain('data-code="INVITE_REVOKED"');
    expect((await signInOverHttp(origin(), account(), { invite: secret })).error).toBe("INVITE_REVOKED");
    expect((await signInOverHttp(origin(), account(), { invite: "A".repeat(43) })).error).toBe("INVITE_NOT_FOUND");
  });

  it("a wallet in two teams signs in to its own, and switches to the other with the role it has there", async () => {
    // A wallet with its own reseller joins this team as viewer.
    const wallet = account();
    const own = await signInOverHttp(origin(), wallet);
    expect((await readDashboard(origin(), own.cookie, "team", "")).status).toBe(200);
    const { secret } = await invite("viewer");
    const joined = await signInOverHttp(origin(), wallet, { invite: secret });
    expect(joined.error).toBeNull();
    // The invitation's sign-in opens the team it joined: a viewer there.
    expect((await readDashboard(origin(), joined.cookie, "team", "")).status).toBe(403);
    // A plain sign-in opens its own team; the switcher moves the session to the other.
    const plain = await signInOverHttp(origin(), wallet);
    expect((await readDashboard(origin(), plain.cookie, "team", "")).status).toBe(200);
    const other = (await readDashboard(origin(), ownerCookie, "team", "")).body;
    expect(other.members.map((m: { wallet: string }) => m.wallet)).toContain(wallet.address.toLowerCase());
    const ownerTeamId = (await getResellerByWallet(testDb(), { walletAddress: owner.address }))!.id;
    expect((await callServerAction(origin(), plain.cookie, "switchTeamAction", [ownerTeamId])).result.ok).toBe(true);
    expect((await readDashboard(origin(), plain.cookie, "team", "")).status).toBe(403);
    // Not a member there: NOT_FOUND, and the session stays where it was.
    expect((await callServerAction(origin(), plain.cookie, "switchTeamAction", ["no-such-team"])).result.error.code).toBe("NOT_FOUND");
  });
});
