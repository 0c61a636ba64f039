import "server-only";
import { getAddress, isAddress } from "viem";
import { checkMarkupCap } from "@/lib/channels/channels";
import { getConfig, markupRange, markupRangeMessage } from "@/lib/config";
import { type Db, isUniqueViolation, type Reseller } from "@/lib/db/client";
import { announceKeyChange } from "@/lib/db/key-changes";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";

/** Lower-case 0x address; throws on anything that is not an Ethereum address. */
export function normalizeWallet(address: string): string {
  if (!isAddress(address, { strict: false })) throw new AppError("INVALID_REQUEST", "Not an Ethereum address.");
  return getAddress(address).toLowerCase();
}

/**
 * The first sign-in of a wallet creates its reseller; later ones find it. A find, then an
 * insert that loses gracefully to a concurrent one, rather than Prisma's upsert: on SQLite
 * the upsert reads and then writes in one deferred transaction, which fails at once with
 * SQLITE_BUSY (no busy wait) when another connection commits in between, as the worker does
 * all the time. Each statement on its own waits for the lock like any other write.
 */
/** The wallet's reseller; one made now starts with `markupBps` (checked by the caller), else 0. */
export async function getOrCreateReseller(db: Db, opts: { walletAddress: string; markupBps?: number }): Promise<Reseller> {
  const walletAddress = normalizeWallet(opts.walletAddress);
  const found = await db.reseller.findUnique({ where: { walletAddress } });
  if (found) return found;
  try {
    // Its wallet is its team's first owner (issue 54, lib/teams), made in the same transaction.
    const id = newId();
    const [reseller] = await db.$transaction([
      db.reseller.create({ data: { id, walletAddress, markupBps: opts.markupBps ?? 0 } }),
      db.resellerMember.create({ data: { id: `owner_${id}`, resellerId: id, walletAddress, role: "owner" } }),
    ]);
    return reseller;
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    return db.reseller.findUniqueOrThrow({ where: { walletAddress } });
  }
}

export function getResellerById(db: Db, opts: { resellerId: string }) {
  return db.reseller.findUnique({ where: { id: opts.resellerId } });
}

export function getResellerByWallet(db: Db, opts: { walletAddress: string }) {
  return db.reseller.findUnique({ where: { walletAddress: normalizeWallet(opts.walletAddress) } });
}

/** A reseller's markup checked against MARKUP_CAP_BPS and what the enabled providers route; INVALID_MARKUP otherwise. */
function checkResellerMarkup(markupBps: number): number {
  const range = markupRange(getConfig());
  const cap = range.maxBps;
  if (!Number.isInteger(markupBps) || markupBps < 0 || markupBps > cap)
    throw new AppError("INVALID_MARKUP", markupRangeMessage(range), { maxBps: cap });
  return markupBps;
}

/** Markup applies to orders created after the change; existing orders keep their snapshot. At most the reseller's markupCapBps. */
export async function setMarkup(db: Db, opts: { resellerId: string; markupBps: number }): Promise<Reseller> {
  const markupBps = checkResellerMarkup(opts.markupBps);
  // Conditional on the cap, in one statement: a cap lowered meanwhile (the console) is never passed.
  const w = await db.reseller.updateMany({
    where: { id: opts.resellerId, OR: [{ markupCapBps: null }, { markupCapBps: { gte: markupBps } }] },
    data: { markupBps },
  });
  if (w.count !== 1) {
    await checkMarkupCap(db, { resellerId: opts.resellerId, markupBps });
    throw new AppError("NOT_FOUND", "No such reseller.");
  }
  const r = await db.reseller.findUniqueOrThrow({ where: { id: opts.resellerId } });
  await announceKeyChange(`r:${opts.resellerId}`);
  return r;
}

/**
 * The operator's reseller:create: the wallet's reseller, made when it does not exist, with a
 * markup when one is given. The markup is checked before anything is written, so a refused
 * command changes nothing (issue 48: it used to create the reseller, then refuse its markup).
 */
export async function createReseller(db: Db, opts: { walletAddress: string; markupBps?: number }): Promise<Reseller> {
  const markupBps = opts.markupBps === undefined ? undefined : checkResellerMarkup(opts.markupBps);
  const r = await getOrCreateReseller(db, { walletAddress: opts.walletAddress, markupBps });
  return markupBps === undefined || r.markupBps === markupBps ? r : setMarkup(db, { resellerId: r.id, markupBps });
}

/**
 * Ends every dashboard session of the reseller at once ("Sign out everywhere"): their rows end,
 * and a session carries the version it was issued under and stops being accepted once the
 * version moves on (lib/auth/session-version.ts).
 */
export async function endAllSessions(db: Db, opts: { resellerId: string; now?: Date }): Promise<{ sessionVersion: number }> {
  const now = opts.now ?? new Date();
  return db.$transaction(async (tx) => {
    const r = await tx.reseller.update({ where: { id: opts.resellerId }, data: { sessionVersion: { increment: 1 } } });
    await tx.dashboardSession.updateMany({ where: { resellerId: opts.resellerId, endedAt: null }, data: { endedAt: now } });
    return { sessionVersion: r.sessionVersion };
  });
}

/**
 * The operator takes a reseller off the platform: its sessions end, its API keys stop working,
 * and its wallet can no longer sign in (until restoreReseller). Orders and ledger stay.
 */
export async function revokeReseller(db: Db, opts: { resellerId: string; now?: Date }): Promise<{ keysRevoked: number }> {
  const now = opts.now ?? new Date();
  const r = await db.$transaction(async (tx) => {
    await tx.reseller.update({ where: { id: opts.resellerId }, data: { revokedAt: now, sessionVersion: { increment: 1 } } });
    await tx.dashboardSession.updateMany({ where: { resellerId: opts.resellerId, endedAt: null }, data: { endedAt: now } });
    const keys = await tx.apiKey.updateMany({ where: { resellerId: opts.resellerId, revokedAt: null }, data: { revokedAt: now } });
    return { keysRevoked: keys.count };
  });
  await announceKeyChange(`r:${opts.resellerId}`);
  return r;
}

/** Lets a revoked reseller's wallet sign in again; the keys revoked with it stay revoked. */
export async function restoreReseller(db: Db, opts: { resellerId: string }): Promise<Reseller> {
  const r = await db.reseller.update({ where: { id: opts.resellerId }, data: { revokedAt: null } });
  await announceKeyChange(`r:${opts.resellerId}`);
  return r;
}
