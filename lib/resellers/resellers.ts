import "server-only";
import { getAddress, isAddress } from "viem";
import { getConfig } from "@/lib/config";
import type { Db, Reseller } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";

/** Lower-case 0x address; throws on anything that is not an Ethereum address. */
export function normalizeWallet(address: string): string {
  if (!isAddress(address, { strict: false })) throw new AppError("INVALID_REQUEST", "Not an Ethereum address.");
  return getAddress(address).toLowerCase();
}

/** The first sign-in of a wallet creates its reseller; later ones find it. */
export async function getOrCreateReseller(db: Db, opts: { walletAddress: string }): Promise<Reseller> {
  const walletAddress = normalizeWallet(opts.walletAddress);
  return db.reseller.upsert({ where: { walletAddress }, update: {}, create: { id: newId(), walletAddress } });
}

export function getResellerById(db: Db, opts: { resellerId: string }) {
  return db.reseller.findUnique({ where: { id: opts.resellerId } });
}

export function getResellerByWallet(db: Db, opts: { walletAddress: string }) {
  return db.reseller.findUnique({ where: { walletAddress: normalizeWallet(opts.walletAddress) } });
}

/** Markup applies to orders created after the change; existing orders keep their snapshot. */
export async function setMarkup(db: Db, opts: { resellerId: string; markupBps: number }): Promise<Reseller> {
  const cap = getConfig().MARKUP_CAP_BPS;
  if (!Number.isInteger(opts.markupBps) || opts.markupBps < 0 || opts.markupBps > cap)
    throw new AppError("INVALID_MARKUP", `Markup must be a whole number of basis points from 0 to ${cap}.`, { maxBps: cap });
  return db.reseller.update({ where: { id: opts.resellerId }, data: { markupBps: opts.markupBps } });
}
