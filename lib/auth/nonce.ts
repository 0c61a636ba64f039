import "server-only";
import crypto from "node:crypto";
import type { Db } from "@/lib/db/client";
import { slot } from "@/lib/scope";

// Sign-In with Ethereum nonces: issued by the server, stored with an expiry, consumed once.
// A nonce is what makes a signed message single-use: the message names it, and the server
// accepts the message only while it can atomically flip that nonce from unused to used.

export const NONCE_TTL_SECONDS = 10 * 60;

/** When the current app last swept (at most once a minute). */
const lastSweep = slot(() => ({ at: 0 }));

export async function issueNonce(db: Db, now = new Date()): Promise<{ nonce: string; expiresAt: Date }> {
  // 128 random bits, hex: alphanumeric as EIP-4361 requires, 32 characters.
  const nonce = crypto.randomBytes(16).toString("hex");
  const expiresAt = new Date(now.getTime() + NONCE_TTL_SECONDS * 1000);
  await db.authNonce.create({ data: { nonce, expiresAt } });
  // Expired and used nonces are dead weight; sweep them at most once a minute per process.
  const swept = lastSweep();
  if (now.getTime() - swept.at > 60_000) {
    swept.at = now.getTime();
    await db.authNonce.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - 60_000) } } }).catch(() => {});
  }
  return { nonce, expiresAt };
}

/** True exactly once per issued, unexpired nonce: the conditional update is the lock. */
export async function consumeNonce(db: Db, nonce: string, now = new Date()): Promise<boolean> {
  const r = await db.authNonce.updateMany({
    where: { nonce, usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  return r.count === 1;
}
