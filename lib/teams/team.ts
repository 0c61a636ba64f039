import "server-only";
import crypto from "node:crypto";
import { now as clockNow } from "@/lib/clock";
import { getConfig } from "@/lib/config";
import type { Db, ResellerMember, Tx } from "@/lib/db/client";
import { lockReseller } from "@/lib/db/reseller-lock";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { normalizeWallet } from "@/lib/resellers/resellers";
import { type DashboardPermission, isTeamRole, type TeamRole, teamCan } from "./roles";

// A reseller's team (issue 54): members (a wallet and a role each), invitations by single-use
// links that expire, and the append-only record of every change (TeamEvent; the database refuses
// UPDATE and DELETE). Each change and its record are written in one transaction that first locks
// the reseller's row, so two owners demoting each other at once cannot leave the team ownerless.

/** Invitation links carry 32 random bytes; only their SHA-256 is stored. */
const hashSecret = (secret: string) => crypto.createHash("sha256").update(secret).digest("hex");
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;

export type TeamAction = "invite.created" | "invite.revoked" | "invite.used" | "member.role_changed" | "member.removed" | "member.left";

const asJson = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

async function record(
  tx: Tx,
  e: { resellerId: string; actor: string; action: TeamAction; target: string; before?: unknown; after?: unknown; at: Date },
) {
  await tx.teamEvent.create({
    data: {
      resellerId: e.resellerId,
      at: e.at,
      actor: e.actor,
      action: e.action,
      target: e.target,
      before: asJson(e.before),
      after: asJson(e.after),
    },
  });
}

function role(v: unknown): TeamRole {
  if (!isTeamRole(v)) throw new AppError("INVALID_REQUEST", "A role is one of owner, developer, finance, viewer.");
  return v;
}

/** FORBIDDEN unless the member's role may do `permission` (lib/teams/roles.ts). */
export function requirePermission(member: { role: string }, permission: DashboardPermission | string): void {
  if (!teamCan(member.role, permission)) throw new AppError("FORBIDDEN", "Your role in this team does not allow this.");
}

/** The wallet's membership of a reseller's team, or null. */
export function findMember(db: Db | Tx, opts: { resellerId: string; walletAddress: string }): Promise<ResellerMember | null> {
  return db.resellerMember.findUnique({
    where: { resellerId_walletAddress: { resellerId: opts.resellerId, walletAddress: opts.walletAddress.toLowerCase() } },
  });
}

/** Every team the wallet belongs to, oldest membership first, with its reseller. */
export function teamsOf(db: Db, opts: { walletAddress: string }) {
  return db.resellerMember.findMany({
    where: { walletAddress: opts.walletAddress.toLowerCase() },
    include: { reseller: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
}

/**
 * The team a wallet signs in to when it names none: its own reseller's (the one whose account
 * wallet it is), else its oldest membership. Null when it belongs to no team.
 */
export async function defaultTeam(db: Db, opts: { walletAddress: string }) {
  const teams = await teamsOf(db, opts);
  return teams.find((t) => t.reseller.walletAddress === opts.walletAddress.toLowerCase()) ?? teams[0] ?? null;
}

async function ownerCount(tx: Tx, resellerId: string): Promise<number> {
  return tx.resellerMember.count({ where: { resellerId, role: "owner" } });
}

/** Ends a wallet's sessions in one team: its next request is signed out. */
async function endMemberSessions(tx: Tx, resellerId: string, walletAddress: string, at: Date) {
  await tx.dashboardSession.updateMany({ where: { resellerId, walletAddress, endedAt: null }, data: { endedAt: at } });
}

export interface NewInvite {
  /** The link's secret, shown once to the owner; only its hash is kept. */
  secret: string;
  id: string;
  role: TeamRole;
  expiresAt: Date;
}

/** An owner invites someone with `role`; the link works once, until TEAM_INVITE_TTL_HOURS from now. */
export async function createInvite(db: Db, opts: { resellerId: string; actor: string; role: unknown }): Promise<NewInvite> {
  const inviteRole = role(opts.role);
  const at = clockNow();
  const secret = crypto.randomBytes(32).toString("base64url");
  const expiresAt = new Date(at.getTime() + getConfig().TEAM_INVITE_TTL_HOURS * 3600_000);
  const id = newId();
  await writeTransaction(db, async (tx) => {
    await tx.resellerInvite.create({
      data: {
        id,
        resellerId: opts.resellerId,
        secretHash: hashSecret(secret),
        role: inviteRole,
        createdBy: opts.actor,
        createdAt: at,
        expiresAt,
      },
    });
    await record(tx, {
      resellerId: opts.resellerId,
      actor: opts.actor,
      action: "invite.created",
      target: id,
      after: { role: inviteRole, expiresAt },
      at,
    });
  });
  return { secret, id, role: inviteRole, expiresAt };
}

/** An owner revokes an open invitation of the team: its link grants nothing from now on. */
export async function revokeInvite(db: Db, opts: { resellerId: string; actor: string; inviteId: string }): Promise<void> {
  const at = clockNow();
  await writeTransaction(db, async (tx) => {
    const invite = await tx.resellerInvite.findFirst({ where: { id: opts.inviteId, resellerId: opts.resellerId } });
    if (!invite) throw new AppError("INVITE_NOT_FOUND", "There is no such invitation.");
    openInvite(invite, at);
    await tx.resellerInvite.update({ where: { id: invite.id }, data: { revokedAt: at } });
    await record(tx, {
      resellerId: opts.resellerId,
      actor: opts.actor,
      action: "invite.revoked",
      target: invite.id,
      before: { role: invite.role },
      at,
    });
  });
}

type InviteRow = { usedAt: Date | null; revokedAt: Date | null; expiresAt: Date };

/** Throws the invitation's own code when it can no longer be used: used, revoked, or past its time (in that order). */
function openInvite(invite: InviteRow, at: Date): void {
  if (invite.usedAt) throw new AppError("INVITE_USED", "This invitation link has already been used.");
  if (invite.revokedAt) throw new AppError("INVITE_REVOKED", "This invitation was revoked by the team's owner.");
  if (invite.expiresAt <= at) throw new AppError("INVITE_EXPIRED", "This invitation link has expired. Ask the team's owner for a new one.");
}

function inviteBySecret(db: Db | Tx, secret: unknown) {
  if (typeof secret !== "string" || !SECRET_RE.test(secret)) return null;
  return db.resellerInvite.findUnique({ where: { secretHash: hashSecret(secret) } });
}

/** What the join page shows for a link: the team's name and the role, or the link's error code. */
export async function describeInvite(
  db: Db,
  opts: { secret: unknown },
): Promise<{ ok: true; role: TeamRole; team: string; expiresAt: Date } | { ok: false; code: string; message: string }> {
  try {
    const invite = await inviteBySecret(db, opts.secret);
    if (!invite) throw new AppError("INVITE_NOT_FOUND", "This invitation link is not valid.");
    openInvite(invite, clockNow());
    const brand = await db.resellerBrand.findUnique({ where: { resellerId: invite.resellerId } });
    return { ok: true, role: role(invite.role), team: brand?.displayName || "a reseller's team", expiresAt: invite.expiresAt };
  } catch (e) {
    if (e instanceof AppError) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
}

/**
 * The invitee's wallet joins with the invited role; the link is used up in the same statement
 * that checks it is open (two uses at once: one wins, the other is INVITE_USED). A wallet
 * already in the team is ALREADY_MEMBER, and the link stays open.
 */
export async function acceptInvite(db: Db, opts: { secret: unknown; walletAddress: string }): Promise<ResellerMember> {
  const walletAddress = normalizeWallet(opts.walletAddress);
  const at = clockNow();
  return writeTransaction(db, async (tx) => {
    const invite = await inviteBySecret(tx, opts.secret);
    if (!invite) throw new AppError("INVITE_NOT_FOUND", "This invitation link is not valid.");
    await lockReseller(tx, invite.resellerId);
    openInvite(invite, at);
    if (await findMember(tx, { resellerId: invite.resellerId, walletAddress }))
      throw new AppError("ALREADY_MEMBER", "This wallet is already a member of the team.");
    const used = await tx.resellerInvite.updateMany({
      where: { id: invite.id, usedAt: null, revokedAt: null, expiresAt: { gt: at } },
      data: { usedAt: at, usedBy: walletAddress },
    });
    if (used.count !== 1) throw new AppError("INVITE_USED", "This invitation link has already been used.");
    const member = await tx.resellerMember.create({
      data: { id: newId(), resellerId: invite.resellerId, walletAddress, role: invite.role, createdAt: at },
    });
    await record(tx, {
      resellerId: invite.resellerId,
      actor: walletAddress,
      action: "invite.used",
      target: invite.id,
      after: { wallet: walletAddress, role: invite.role },
      at,
    });
    return member;
  });
}

/** A member of the team, by id, inside the change's transaction; NOT_FOUND when not of this team. */
async function memberById(tx: Tx, resellerId: string, memberId: string): Promise<ResellerMember> {
  const m = await tx.resellerMember.findFirst({ where: { id: memberId, resellerId } });
  if (!m) throw new AppError("NOT_FOUND", "There is no such member in this team.");
  return m;
}

const lastOwner = () => new AppError("LAST_OWNER", "A team keeps at least one owner: make another member owner first.");

/** An owner changes a member's role; the last owner cannot be demoted. Takes effect at the member's next request. */
export async function changeRole(
  db: Db,
  opts: { resellerId: string; actor: string; memberId: string; role: unknown },
): Promise<ResellerMember> {
  const newRole = role(opts.role);
  const at = clockNow();
  return writeTransaction(db, async (tx) => {
    await lockReseller(tx, opts.resellerId);
    const m = await memberById(tx, opts.resellerId, opts.memberId);
    if (m.role === newRole) return m;
    if (m.role === "owner" && (await ownerCount(tx, opts.resellerId)) <= 1) throw lastOwner();
    const updated = await tx.resellerMember.update({ where: { id: m.id }, data: { role: newRole } });
    await record(tx, {
      resellerId: opts.resellerId,
      actor: opts.actor,
      action: "member.role_changed",
      target: m.walletAddress,
      before: { role: m.role },
      after: { role: newRole },
      at,
    });
    return updated;
  });
}

/** An owner removes a member (leaving is `leaveTeam`); the last owner cannot be removed. Their sessions in the team end now. */
export async function removeMember(db: Db, opts: { resellerId: string; actor: string; memberId: string }): Promise<void> {
  const at = clockNow();
  await writeTransaction(db, async (tx) => {
    await lockReseller(tx, opts.resellerId);
    const m = await memberById(tx, opts.resellerId, opts.memberId);
    await dropMember(tx, m, opts.actor === m.walletAddress ? "member.left" : "member.removed", opts.actor, at);
  });
}

/** A member leaves the team; the last owner cannot. Their sessions in the team end now. */
export async function leaveTeam(db: Db, opts: { resellerId: string; walletAddress: string }): Promise<void> {
  const at = clockNow();
  await writeTransaction(db, async (tx) => {
    await lockReseller(tx, opts.resellerId);
    const m = await findMember(tx, opts);
    if (!m) throw new AppError("NOT_FOUND", "You are not a member of this team.");
    await dropMember(tx, m, "member.left", m.walletAddress, at);
  });
}

async function dropMember(tx: Tx, m: ResellerMember, action: "member.removed" | "member.left", actor: string, at: Date) {
  if (m.role === "owner" && (await ownerCount(tx, m.resellerId)) <= 1) throw lastOwner();
  await tx.resellerMember.delete({ where: { id: m.id } });
  await endMemberSessions(tx, m.resellerId, m.walletAddress, at);
  await record(tx, { resellerId: m.resellerId, actor, action, target: m.walletAddress, before: { role: m.role }, at });
}

/** The Team page: members, open invitations (never their secrets), and the newest 200 records. */
export async function getTeamView(db: Db, opts: { resellerId: string }) {
  const at = clockNow();
  const [members, invites, events] = await Promise.all([
    db.resellerMember.findMany({ where: { resellerId: opts.resellerId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    db.resellerInvite.findMany({
      where: { resellerId: opts.resellerId, usedAt: null, revokedAt: null, expiresAt: { gt: at } },
      orderBy: { createdAt: "desc" },
      take: 200,
    }),
    db.teamEvent.findMany({ where: { resellerId: opts.resellerId }, orderBy: { id: "desc" }, take: 200 }),
  ]);
  return {
    members: members.map((m) => ({ id: m.id, wallet: m.walletAddress, role: role(m.role), since: m.createdAt.toISOString() })),
    invites: invites.map((i) => ({
      id: i.id,
      role: role(i.role),
      createdBy: i.createdBy,
      createdAt: i.createdAt.toISOString(),
      expiresAt: i.expiresAt.toISOString(),
    })),
    events: events.map((e) => ({
      id: e.id,
      at: e.at.toISOString(),
      actor: e.actor,
      action: e.action,
      target: e.target,
      before: e.before === null ? null : (JSON.parse(e.before) as unknown),
      after: e.after === null ? null : (JSON.parse(e.after) as unknown),
    })),
  };
}
