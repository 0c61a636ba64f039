import "server-only";
import crypto from "node:crypto";
import { SiweError, verifySiweSignIn } from "@/lib/auth/siwe";
import { getConfig } from "@/lib/config";
import type { Db, Operator } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { AppError } from "@/lib/errors";
import { recordAudit } from "./audit";

// Console sessions (issue 52). An operator signs in with their wallet (Sign-In with Ethereum,
// the same verification as a reseller's, lib/auth/siwe.ts) and gets a session of its own,
// separate from any reseller's: a random token in an http-only, SameSite=Strict cookie
// (OPERATOR_COOKIE), stored here only as its SHA-256. Every request re-reads the session and
// its operator, so a removed operator, a changed role or a sign-out applies at once.
// Not next-auth: its one cookie per app belongs to the resellers' dashboard, and an opaque
// token that the database can end is all the console needs.

export const OPERATOR_COOKIE = "op_session";

const hashOf = (token: string) => crypto.createHash("sha256").update(token).digest("hex");

export interface OperatorSession {
  sessionId: string;
  operator: Operator;
}

export interface OperatorSignIn {
  /** The cookie's value: shown once, never stored. */
  token: string;
  expiresAt: Date;
  operator: Operator;
}

/**
 * Verifies the signed message and opens a session for the wallet's operator. A wallet that is
 * no active operator is refused (UNAUTHORIZED), and the refusal is in the audit log too.
 */
export async function signInOperator(db: Db, input: { message: unknown; signature: unknown; now?: Date }): Promise<OperatorSignIn> {
  const now = input.now ?? new Date();
  let wallet: string;
  try {
    wallet = (await verifySiweSignIn(db, input, now)).walletAddress.toLowerCase();
  } catch (e) {
    if (e instanceof SiweError) throw new AppError("UNAUTHORIZED", `Sign-in refused: ${e.code}.`, { reason: e.code });
    throw e;
  }
  const token = crypto.randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + getConfig().OPERATOR_SESSION_HOURS * 3600_000);
  return writeTransaction(db, async (tx) => {
    const operator = await tx.operator.findFirst({ where: { walletAddress: wallet, removedAt: null } });
    if (!operator) {
      await recordAudit(tx, { operatorId: null, actor: wallet, role: null }, { action: "operator.sign_in_refused", at: now });
      return null;
    }
    await tx.operatorSession.create({ data: { id: hashOf(token), operatorId: operator.id, createdAt: now, expiresAt } });
    await recordAudit(
      tx,
      { operatorId: operator.id, actor: operator.walletAddress, role: operator.role },
      { action: "operator.sign_in", at: now },
    );
    // Ended and expired sessions are dead weight.
    await tx.operatorSession.deleteMany({ where: { expiresAt: { lt: new Date(now.getTime() - 24 * 3600_000) } } });
    return { token, expiresAt, operator };
  }).then((r) => {
    if (!r) throw new AppError("UNAUTHORIZED", "This wallet is not an operator of this platform.", { reason: "NOT_AN_OPERATOR" });
    return r;
  });
}

/** The session a cookie's token names, while it and its operator are current; else null. */
export async function operatorOfSession(db: Db, token: string | null | undefined, now = new Date()): Promise<OperatorSession | null> {
  if (!token || token.length > 100) return null;
  const s = await db.operatorSession.findUnique({ where: { id: hashOf(token) }, include: { operator: true } });
  if (!s || s.endedAt || s.expiresAt <= now || s.operator.removedAt) return null;
  return { sessionId: s.id, operator: s.operator };
}

/** Sign out: the cookie, and every copy of it, is no session from now on. */
export async function signOutOperator(db: Db, session: OperatorSession, now = new Date()): Promise<void> {
  const op = session.operator;
  await writeTransaction(db, async (tx) => {
    const r = await tx.operatorSession.updateMany({ where: { id: session.sessionId, endedAt: null }, data: { endedAt: now } });
    if (r.count)
      await recordAudit(tx, { operatorId: op.id, actor: op.walletAddress, role: op.role }, { action: "operator.sign_out", at: now });
  });
}
