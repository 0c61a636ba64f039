import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionMember, startDashboardSession } from "@/lib/auth/session-version";
import { type Clock, provideClock } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import { getOrCreateReseller } from "@/lib/resellers/resellers";
import { currentScope } from "@/lib/scope";
import {
  acceptInvite,
  changeRole,
  createInvite,
  describeInvite,
  findMember,
  getTeamView,
  leaveTeam,
  removeMember,
  revokeInvite,
} from "@/lib/teams/team";
import { refusalOf } from "../support/app-error";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// Issue 54: invitations are single-use links that expire (the app's clock, lib/clock.ts) and can
// be revoked, each refusal with its own code and granting nothing; the last owner cannot leave or
// be demoted; a removed member's sessions end at their next request; a role change takes effect
// at the next request; the record is append-only, refused by the database itself.

const expectAppError = async (p: Promise<unknown>, code: string) => expect((await refusalOf(p)).code).toBe(code);
const wallet = (n: number) => `0x${n.toString(16).padStart(2, "0").repeat(20)}`;

/** The app's clock, moved by the tests (never the wall clock). */
let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.UTC(2026, 10, 1) + offsetMs) };

beforeAll(() => provideClock(currentScope(), clock));

describe.each(["sqlite", "postgres"] as const)("teams on %s", (kind) => {
  let t: TempDb;
  let resellerId: string;
  const owner = wallet(1);
  beforeAll(async () => {
    t = await tempDatabase(kind);
    resellerId = (await getOrCreateReseller(t.db, { walletAddress: owner })).id;
  });
  afterAll(async () => t?.cleanup());

  it("a new reseller's wallet is its team's owner", async () => {
    expect(await findMember(t.db, { resellerId, walletAddress: owner })).toMatchObject({ role: "owner" });
  });

  it("an invitation is used once: the second wallet gets INVITE_USED and joins nothing", async () => {
    const invite = await createInvite(t.db, { resellerId, actor: owner, role: "developer" });
    expect(await describeInvite(t.db, { secret: invite.secret })).toMatchObject({ ok: true, role: "developer" });
    // Only the hash is stored.
    const row = await t.db.resellerInvite.findUniqueOrThrow({ where: { id: invite.id } });
    expect(JSON.stringify(row)).not.toContain(invite.secret);
    const m = await acceptInvite(t.db, { secret: invite.secret, walletAddress: wallet(2) });
    expect(m).toMatchObject({ resellerId, walletAddress: wallet(2), role: "developer" });
    await expectAppError(acceptInvite(t.db, { secret: invite.secret, walletAddress: wallet(3) }), "INVITE_USED");
    expect(await findMember(t.db, { resellerId, walletAddress: wallet(3) })).toBeNull();
    expect(await describeInvite(t.db, { secret: invite.secret })).toMatchObject({ ok: false, code: "INVITE_USED" });
    await expectAppError(acceptInvite(t.db, { secret: "x".repeat(43), walletAddress: wallet(3) }), "INVITE_NOT_FOUND");
  });

  it("two uses at once: exactly one joins", async () => {
    const invite = await createInvite(t.db, { resellerId, actor: owner, role: "viewer" });
    const results = await Promise.allSettled([
      acceptInvite(t.db, { secret: invite.secret, walletAddress: wallet(10) }),
      acceptInvite(t.db, { secret: invite.secret, walletAddress: wallet(11) }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const joined = await t.db.resellerMember.count({ where: { resellerId, walletAddress: { in: [wallet(10), wallet(11)] } } });
    expect(joined).toBe(1);
  });

  it("an invitation expires after TEAM_INVITE_TTL_HOURS on the app's clock: INVITE_EXPIRED", async () => {
    const ttlMs = getConfig().TEAM_INVITE_TTL_HOURS * 3600_000;
    const invite = await createInvite(t.db, { resellerId, actor: owner, role: "finance" });
    offsetMs += ttlMs - 1000;
    expect(await describeInvite(t.db, { secret: invite.secret })).toMatchObject({ ok: true });
    offsetMs += 1000;
    await expectAppError(acceptInvite(t.db, { secret: invite.secret, walletAddress: wallet(4) }), "INVITE_EXPIRED");
    expect(await findMember(t.db, { resellerId, walletAddress: wallet(4) })).toBeNull();
  });

  it("a revoked invitation: INVITE_REVOKED, and it cannot be revoked twice", async () => {
    const invite = await createInvite(t.db, { resellerId, actor: owner, role: "finance" });
    await revokeInvite(t.db, { resellerId, actor: owner, inviteId: invite.id });
    await expectAppError(acceptInvite(t.db, { secret: invite.secret, walletAddress: wallet(5) }), "INVITE_REVOKED");
    await expectAppError(revokeInvite(t.db, { resellerId, actor: owner, inviteId: invite.id }), "INVITE_REVOKED");
    expect(await findMember(t.db, { resellerId, walletAddress: wallet(5) })).toBeNull();
    // Another team's owner cannot revoke it (it is not theirs).
    const other = await getOrCreateReseller(t.db, { walletAddress: wallet(6) });
    const open = await createInvite(t.db, { resellerId, actor: owner, role: "viewer" });
    await expectAppError(revokeInvite(t.db, { resellerId: other.id, actor: wallet(6), inviteId: open.id }), "INVITE_NOT_FOUND");
  });

  it("the last owner can be neither demoted, nor removed, nor leave: LAST_OWNER", async () => {
    const me = (await findMember(t.db, { resellerId, walletAddress: owner }))!;
    await expectAppError(changeRole(t.db, { resellerId, actor: owner, memberId: me.id, role: "viewer" }), "LAST_OWNER");
    await expectAppError(removeMember(t.db, { resellerId, actor: owner, memberId: me.id }), "LAST_OWNER");
    await expectAppError(leaveTeam(t.db, { resellerId, walletAddress: owner }), "LAST_OWNER");
    // With a second owner, the first may step down; then the second is the last.
    const dev = (await findMember(t.db, { resellerId, walletAddress: wallet(2) }))!;
    await changeRole(t.db, { resellerId, actor: owner, memberId: dev.id, role: "owner" });
    await changeRole(t.db, { resellerId, actor: owner, memberId: me.id, role: "finance" });
    await expectAppError(changeRole(t.db, { resellerId, actor: wallet(2), memberId: dev.id, role: "developer" }), "LAST_OWNER");
    await changeRole(t.db, { resellerId, actor: wallet(2), memberId: me.id, role: "owner" });
    await changeRole(t.db, { resellerId, actor: owner, memberId: dev.id, role: "developer" });
    await expectAppError(changeRole(t.db, { resellerId, actor: owner, memberId: dev.id, role: "admin" }), "INVALID_REQUEST");
  });

  it("two owners demoting each other at once: one stays owner", async () => {
    const a = (await findMember(t.db, { resellerId, walletAddress: owner }))!;
    const b = (await findMember(t.db, { resellerId, walletAddress: wallet(2) }))!;
    await changeRole(t.db, { resellerId, actor: owner, memberId: b.id, role: "owner" });
    await Promise.allSettled([
      changeRole(t.db, { resellerId, actor: owner, memberId: b.id, role: "viewer" }),
      changeRole(t.db, { resellerId, actor: wallet(2), memberId: a.id, role: "viewer" }),
    ]);
    expect(await t.db.resellerMember.count({ where: { resellerId, role: "owner" } })).toBeGreaterThanOrEqual(1);
    // Back to one owner (the first wallet) and a developer.
    const owners = await t.db.resellerMember.findMany({ where: { resellerId, role: "owner" } });
    const keep = owners.find((o) => o.walletAddress === owner) ?? owners[0];
    if (keep.walletAddress !== owner) await changeRole(t.db, { resellerId, actor: keep.walletAddress, memberId: a.id, role: "owner" });
    for (const m of await t.db.resellerMember.findMany({ where: { resellerId, walletAddress: wallet(2) } }))
      await changeRole(t.db, { resellerId, actor: owner, memberId: m.id, role: "developer" });
  });

  it("a role change takes effect at the member's next request; a removal ends their sessions there", async () => {
    const dev = (await findMember(t.db, { resellerId, walletAddress: wallet(2) }))!;
    const sessionId = await startDashboardSession(t.db, { resellerId, walletAddress: wallet(2) });
    const claims = { sessionId, wallet: wallet(2) };
    expect((await sessionMember(t.db, claims))?.member.role).toBe("developer");
    await changeRole(t.db, { resellerId, actor: owner, memberId: dev.id, role: "viewer" });
    expect((await sessionMember(t.db, claims))?.member.role).toBe("viewer");
    // A cookie naming another wallet than the session's is no session.
    expect(await sessionMember(t.db, { sessionId, wallet: owner })).toBeNull();
    await removeMember(t.db, { resellerId, actor: owner, memberId: dev.id });
    expect(await sessionMember(t.db, claims)).toBeNull();
    expect((await t.db.dashboardSession.findUniqueOrThrow({ where: { id: sessionId } })).endedAt).not.toBeNull();
    await expectAppError(removeMember(t.db, { resellerId, actor: owner, memberId: dev.id }), "NOT_FOUND");
  });

  it("every change is in the record, with actor, time, before and after; the record is append-only", async () => {
    const { events } = await getTeamView(t.db, { resellerId });
    const actions = new Set(events.map((e) => e.action));
    for (const a of ["invite.created", "invite.used", "invite.revoked", "member.role_changed", "member.removed"])
      expect(actions).toContain(a);
    const removed = events.find((e) => e.action === "member.removed")!;
    expect(removed).toMatchObject({ actor: owner, target: wallet(2), before: { role: "viewer" }, after: null });
    const changed = events.find((e) => e.action === "member.role_changed")!;
    expect(changed.before).toHaveProperty("role");
    expect(changed.after).toHaveProperty("role");

    const row = await t.db.teamEvent.findFirstOrThrow({ where: { resellerId } });
    // Through Prisma too (whose SQLite adapter words a trigger's refusal as a constraint's).
    await expect(t.db.teamEvent.update({ where: { id: row.id }, data: { actor: "someone else" } })).rejects.toThrow();
    await expect(t.db.$executeRawUnsafe(`UPDATE "TeamEvent" SET "action" = 'x'`)).rejects.toThrow(/append-only/);
    await expect(t.db.teamEvent.delete({ where: { id: row.id } })).rejects.toThrow();
    await expect(t.db.$executeRawUnsafe(`DELETE FROM "TeamEvent"`)).rejects.toThrow(/append-only/);
    if (kind === "postgres") await expect(t.db.$executeRawUnsafe(`TRUNCATE "TeamEvent"`)).rejects.toThrow(/append-only/);
    expect(await t.db.teamEvent.findUniqueOrThrow({ where: { id: row.id } })).toEqual(row);
  });

  it("a member who leaves: recorded as left, sessions ended", async () => {
    const invite = await createInvite(t.db, { resellerId, actor: owner, role: "finance" });
    await acceptInvite(t.db, { secret: invite.secret, walletAddress: wallet(7) });
    const sessionId = await startDashboardSession(t.db, { resellerId, walletAddress: wallet(7) });
    await leaveTeam(t.db, { resellerId, walletAddress: wallet(7) });
    expect(await sessionMember(t.db, { sessionId, wallet: wallet(7) })).toBeNull();
    const { events } = await getTeamView(t.db, { resellerId });
    expect(events[0]).toMatchObject({ action: "member.left", actor: wallet(7), target: wallet(7), before: { role: "finance" } });
  });
});
