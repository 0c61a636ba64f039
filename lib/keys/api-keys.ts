import "server-only";
import crypto from "node:crypto";
import { base58 } from "@scure/base";
import { effectiveMarkup } from "@/lib/channels/channels";
import type { ApiKey, Db, Tx as DbTx } from "@/lib/db/client";
import { dateParam, driverOf, emptySql, isUniqueViolation, providerOf, queryOnPool, sql } from "@/lib/db/client";
import { announceKeyChange, KEY_CHANGES_CHANNEL } from "@/lib/db/key-changes";
import { lockReseller } from "@/lib/db/reseller-lock";
import { statementOf } from "@/lib/db/sqlite-direct";
import { nameProblem } from "@/lib/domain/names";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { keyCacheOf } from "./key-cache";

// API keys: 192 random bits behind a recognisable prefix. Only the SHA-256 of the key is
// stored (a fast hash is right for high-entropy secrets; a password hash would only slow
// every API call); the key is returned once, at creation or rotation.

export const KEY_PREFIX = "rsk_live_";
const DISPLAY_CHARS = KEY_PREFIX.length + 8;
const KEY_RE = /^rsk_live_[1-9A-HJ-NP-Za-km-z]{20,40}$/;

// crypto.hash: the one-shot form, a third of createHash().update().digest()'s time on a key.
export const hashApiKey = (key: string) => crypto.hash("sha256", key, "hex");

export interface PublicApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The key's own markup; null: the reseller's. */
  markupBps: number | null;
}

const toPublic = (k: ApiKey): PublicApiKey => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
  revokedAt: k.revokedAt,
  markupBps: k.markupBps,
});

function cleanName(name: string): string {
  const n = String(name).trim();
  const problem = nameProblem(n, { max: 64 });
  if (problem) throw new AppError("INVALID_REQUEST", `A key name ${problem}.`);
  return n;
}

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

async function insertKey(tx: Tx | Db, resellerId: string, name: string) {
  for (let attempt = 0; ; attempt++) {
    const key = KEY_PREFIX + base58.encode(crypto.randomBytes(24));
    try {
      const row = await tx.apiKey.create({
        data: { id: newId(), resellerId, name, prefix: key.slice(0, DISPLAY_CHARS), hash: hashApiKey(key) },
      });
      return { key, apiKey: toPublic(row) };
    } catch (e) {
      // A prefix collision (about 1 in 2^46 per pair) just draws again.
      if (!isUniqueViolation(e) || attempt >= 3) throw e;
    }
  }
}

/**
 * Active keys a reseller may hold (issue 48: any wallet is a reseller at its first sign-in, and
 * one session made 2,000 keys in 30 s). A rotation replaces its key and never counts twice; a
 * revoked key frees its place (revoked keys stay, for their orders' channel, and are read a page
 * at a time).
 */
export const MAX_ACTIVE_KEYS = 100;

/**
 * A new key (the dashboard's and the operator CLI's one way to make one), refused with
 * API_KEY_LIMIT_REACHED when the reseller already has MAX_ACTIVE_KEYS active ones. The count and
 * the insert run in one transaction behind the reseller's row lock, so creations at once (from
 * any process) queue and never pass the cap.
 */
export async function createApiKey(db: Db, opts: { resellerId: string; name: string }) {
  const name = cleanName(opts.name);
  return db.$transaction(async (tx) => {
    if (!(await lockReseller(tx, opts.resellerId))) throw new AppError("NOT_FOUND", "No such reseller.");
    if ((await tx.apiKey.count({ where: { resellerId: opts.resellerId, revokedAt: null } })) >= MAX_ACTIVE_KEYS)
      throw new AppError(
        "API_KEY_LIMIT_REACHED",
        `A reseller can have at most ${MAX_ACTIVE_KEYS} active API keys: revoke one first, or rotate one (a rotation replaces its key).`,
        { maxActiveKeys: MAX_ACTIVE_KEYS },
      );
    return insertKey(tx, opts.resellerId, name);
  });
}

/** Keys a page holds: active ones (half the cap: each has its markup field and buttons), revoked ones. */
export const ACTIVE_KEYS_PAGE = 50;
export const REVOKED_KEYS_PAGE = 20;

export interface ApiKeyPage {
  items: PublicApiKey[];
  /** The cursor of the next page (older keys), null on the last page. */
  older: string | null;
  /** The list of active keys: how many there are (a count of the index's range; at most MAX_ACTIVE_KEYS since the cap). */
  active?: number;
}

/** A page's cursor: its last key's revokedAt (revoked keys only) and createdAt in epoch milliseconds, and its id. */
const CURSOR_RE = /^(?:(\d{1,15})_)?(\d{1,15})_([0-9A-Za-z]{1,64})$/;
/** The last millisecond of year 9999 (a later date has no 4-digit ISO year). */
const MAX_CURSOR_MS = 253_402_300_799_999;

const cursorOf = (k: ApiKey) => `${k.revokedAt ? `${k.revokedAt.getTime()}_` : ""}${k.createdAt.getTime()}_${k.id}`;

function parseCursor(text: string, revoked: boolean): { revokedAt: Date | null; createdAt: Date; id: string } {
  const m = CURSOR_RE.exec(text);
  if (!m || !!m[1] !== revoked || Number(m[1] ?? 0) > MAX_CURSOR_MS || Number(m[2]) > MAX_CURSOR_MS)
    throw new AppError("INVALID_REQUEST", "Not a page of this list of keys.");
  return { revokedAt: m[1] ? new Date(Number(m[1])) : null, createdAt: new Date(Number(m[2])), id: m[3] };
}

/**
 * A page of a reseller's keys: the active ones, newest first, ACTIVE_KEYS_PAGE a page (with how
 * many there are), or the revoked ones, the last revoked first, REVOKED_KEYS_PAGE a page (`older`:
 * the cursor a page answered). Each page is a range of the (resellerId, revokedAt, createdAt, id)
 * index from its cursor on: the 10,000th revoked key costs what the first does, and nothing reads
 * more than a page however many keys were revoked.
 */
export async function listApiKeys(
  db: Db,
  opts: { resellerId: string; revoked?: boolean; older?: string | null; pageSize?: number },
): Promise<ApiKeyPage> {
  const revoked = !!opts.revoked;
  const pageSize = Math.min(Math.max(opts.pageSize ?? (revoked ? REVOKED_KEYS_PAGE : ACTIVE_KEYS_PAGE), 1), MAX_ACTIVE_KEYS);
  const c = opts.older ? parseCursor(opts.older, revoked) : null;
  const keyset = !c
    ? emptySql
    : c.revokedAt
      ? sql`AND ("revokedAt", "createdAt", "id") < (${dateParam(db, c.revokedAt)}, ${dateParam(db, c.createdAt)}, ${c.id})`
      : sql`AND ("createdAt", "id") < (${dateParam(db, c.createdAt)}, ${c.id})`;
  const ids = await db.$queryRaw<{ id: string }[]>(sql`
    SELECT "id" FROM "ApiKey"
    WHERE "resellerId" = ${opts.resellerId} AND "revokedAt" ${revoked ? sql`IS NOT NULL` : sql`IS NULL`} ${keyset}
    ORDER BY "revokedAt" DESC, "createdAt" DESC, "id" DESC LIMIT ${pageSize + 1}`);
  const [rows, active] = await Promise.all([
    db.apiKey.findMany({
      where: { id: { in: ids.slice(0, pageSize).map((r) => r.id) } },
      orderBy: [{ revokedAt: "desc" }, { createdAt: "desc" }, { id: "desc" }],
    }),
    revoked ? null : db.apiKey.count({ where: { resellerId: opts.resellerId, revokedAt: null } }),
  ]);
  return {
    items: rows.map(toPublic),
    older: ids.length > pageSize && rows.length ? cursorOf(rows[rows.length - 1]) : null,
    ...(active === null ? {} : { active }),
  };
}

export async function revokeApiKey(db: Db, opts: { resellerId: string; keyId: string }): Promise<void> {
  const r = await db.apiKey.updateMany({
    where: { id: opts.keyId, resellerId: opts.resellerId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (r.count !== 1) throw new AppError("NOT_FOUND", "No such active key.");
  await announceKeyChange(`k:${opts.keyId}`);
}

/** A new key with the same name works at once; the old one stops in the same transaction. */
export async function rotateApiKey(db: Db, opts: { resellerId: string; keyId: string }) {
  const fresh = await db.$transaction(async (tx) => {
    const old = await tx.apiKey.findFirst({ where: { id: opts.keyId, resellerId: opts.resellerId, revokedAt: null } });
    if (!old) throw new AppError("NOT_FOUND", "No such active key.");
    const fresh = await insertKey(tx, opts.resellerId, old.name);
    const r = await tx.apiKey.updateMany({
      where: { id: old.id, revokedAt: null },
      data: { revokedAt: new Date(), replacedById: fresh.apiKey.id },
    });
    if (r.count !== 1) throw new AppError("NOT_FOUND", "No such active key.");
    return fresh;
  });
  await announceKeyChange(`k:${opts.keyId}`);
  return fresh;
}

/**
 * Inside the transaction of a change to what a key lookup returns that the database's own
 * triggers do not announce (a reseller's suspension: the key_cache triggers of migration
 * 20261125090000 watch only markupBps and revokedAt), announce it as they would, at commit:
 * SQLite raises the version row every process reads, PostgreSQL notifies the key_cache channel
 * (NOTIFY is delivered when the transaction commits, never if it rolls back). After the commit
 * the caller still calls announceKeyChange (this process at once; Redis, when configured).
 */
export async function markResellerKeysChanged(tx: DbTx, resellerId: string): Promise<void> {
  if (providerOf(tx) === "postgresql")
    await tx.$queryRaw(sql`SELECT 1 AS "ok" FROM (SELECT pg_notify(${KEY_CHANGES_CHANNEL}, ${`r:${resellerId}`})) AS "n"`);
  else await tx.$executeRaw(sql`UPDATE "KeyCacheVersion" SET "version" = "version" + 1 WHERE "id" = 1`);
}

export interface Caller {
  apiKeyId: string;
  resellerId: string;
  markupBps: number;
}

/** When each key's lastUsedAt was last written, per client (so per app: a client belongs to one). */
const lastUsedWrites = new WeakMap<Db, Map<string, number>>();

interface KeyRow {
  id: string;
  resellerId: string;
  revoked: number | boolean;
  /** The key's reseller is suspended (issue 52): every keyed request is 403 RESELLER_SUSPENDED. */
  suspended: number | boolean;
  markupBps: number;
  keyMarkupBps: number | null;
}

// One statement with the join (Prisma reads a relation with a second query), on the bare
// driver: this runs on every keyed request, and through Prisma it cost more CPU than the rest
// of a keyed GET /exchange/{id} (bench/README.md). In the server the rows are cached
// (./key-cache.ts, started by server.ts): on PostgreSQL a keyed request then makes no round
// trip for its key. The bound: a revoked key or a new markup applies on every instance within
// KEY_CACHE_TTL_MS of the change, never later, and as soon as the change is announced
// (NOTIFY or Redis) while the announcements reach the instance; on SQLite on the very next
// request (a version row read per lookup); in the process that made it, at once. A client
// without a started cache (tests, the CLI) reads the database every time.
// The key's own markup (a channel's) overrides the reseller's. A suspension (Reseller.suspendedAt)
// is read with the key and cached with it: it applies within the same bound as a revocation
// (suspendReseller announces it: markResellerKeysChanged, then announceKeyChange).
const KEY_COLUMNS = `k."id" AS "id", k."resellerId" AS "resellerId", (k."revokedAt" IS NOT NULL) AS "revoked", (r."suspendedAt" IS NOT NULL) AS "suspended", r."markupBps" AS "markupBps", k."markupBps" AS "keyMarkupBps"`;
const KEY_FROM = `FROM "ApiKey" k JOIN "Reseller" r ON r."id" = k."resellerId" WHERE k."hash" = `;
// SQLite: the version row in the same statement (one snapshot), for the cache.
const SQLITE_KEY_SQL = `SELECT ${KEY_COLUMNS}, (SELECT "version" FROM "KeyCacheVersion" WHERE "id" = 1) AS "version" ${KEY_FROM}?`;

async function findKeyByHash(db: Db, hash: string): Promise<(KeyRow & { version?: number }) | undefined> {
  const driver = driverOf(db);
  if (driver.kind === "postgresql")
    return (await queryOnPool<KeyRow>(db, "api-key-by-hash", { text: `SELECT ${KEY_COLUMNS} ${KEY_FROM}$1`, values: [hash] }))[0];
  const row = statementOf(driver.reader(), SQLITE_KEY_SQL).get(hash) as (KeyRow & { version: number | null }) | undefined;
  return row && { ...row, version: row.version ?? undefined };
}

/**
 * Resolves an X-API-Key to its reseller; a present but unknown or revoked key is a 401, never a
 * downgrade. A key the cache holds resolves without a promise (it is most keyed requests);
 * a refusal is always a rejected promise.
 */
export function authenticateApiKey(db: Db, key: string): Caller | Promise<Caller> {
  try {
    if (!KEY_RE.test(key)) throw new AppError("INVALID_API_KEY", "The API key is not valid.");
    const hash = hashApiKey(key);
    const cache = keyCacheOf(db);
    const row = cache ? cache.lookup(hash, () => findKeyByHash(db, hash)) : findKeyByHash(db, hash);
    return row instanceof Promise ? row.then((r) => callerOf(db, r)) : callerOf(db, row);
  } catch (e) {
    return Promise.reject(e);
  }
}

function callerOf(db: Db, row: KeyRow | undefined): Caller {
  if (!row || Number(row.revoked)) throw new AppError("INVALID_API_KEY", "The API key is not valid or has been revoked.");
  if (Number(row.suspended))
    throw new AppError(
      "RESELLER_SUSPENDED",
      "This reseller is suspended by the platform's operator; its API keys are refused until it is restored.",
    );
  // lastUsedAt is for humans: write it at most once a minute per key, off the request path.
  const now = Date.now();
  let written = lastUsedWrites.get(db);
  if (!written) {
    written = new Map();
    lastUsedWrites.set(db, written);
  }
  if ((written.get(row.id) ?? 0) < now - 60_000) {
    written.set(row.id, now);
    db.apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date(now) } }).catch(() => {});
  }
  const markupBps = effectiveMarkup(row.keyMarkupBps === null ? null : Number(row.keyMarkupBps), Number(row.markupBps));
  return { apiKeyId: row.id, resellerId: row.resellerId, markupBps };
}
