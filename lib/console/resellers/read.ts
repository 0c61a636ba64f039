import "server-only";
import { toWidgetView } from "@/lib/channels/channels";
import type { WidgetView } from "@/lib/channels/types";
import { type Db, joinSql, providerOf, type Reseller, sql } from "@/lib/db/client";
import { exactSum, type Parts, sqliteParts } from "@/lib/db/exact-sum";
import { AppError } from "@/lib/errors";
import type { Balance } from "@/lib/ledger/ledger";
import { D, formatAmount } from "@/lib/money/decimal";
import { type AuditEventView, listAudit } from "@/lib/operators/audit";

// The console's view of resellers (issue 52, docs/operator.md "Resellers"): a keyset list with
// each reseller's figures, and one reseller's detail. The figures come from the rollups, never
// from the orders: ChannelDaily (lib/ledger/channel-daily.ts) holds per reseller, day and
// currency the orders opened and finished, the finished orders' volume (in their from-currency)
// and the profit credited (in the to-currency); Balance holds the ledger's balances.

export interface ResellerFigures {
  /** Orders opened (with a deposit address), all time. */
  orders: number;
  finished: number;
  /** Per currency: the finished orders' volume sent in it, the profit credited in it (exact decimal strings). */
  byCurrency: { currency: string; volume: string; profit: string }[];
}

export interface ConsoleResellerRow {
  id: string;
  wallet: string;
  createdAt: string;
  markupBps: number;
  markupCapBps: number | null;
  suspendedAt: string | null;
  revokedAt: string | null;
  figures: ResellerFigures;
  balances: Balance[];
}

export interface ConsoleResellerPage {
  resellers: ConsoleResellerRow[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
}

/** What a reseller id can be (base58 from newId; printable ASCII without spaces at most): anything else is no reseller. */
const ID_RE = /^[\x21-\x7e]{1,100}$/;
export const MAX_PAGE = 100;

const EMPTY: ResellerFigures = { orders: 0, finished: 0, byCurrency: [] };

/** The all-time figures of `ids`, summed in SQL per reseller and currency from ChannelDaily (by its key's first column). */
async function figuresOf(db: Db, ids: string[]): Promise<Map<string, ResellerFigures>> {
  const out = new Map<string, ResellerFigures>();
  if (!ids.length) return out;
  const sqlite = providerOf(db) === "sqlite";
  const rows = await db.$queryRaw<
    (Parts & { resellerId: string; currency: string; n: unknown; fin: unknown; volume?: string; profit?: string })[]
  >(sql`
    SELECT "resellerId", "currency", SUM("orders") AS "n", SUM("finished") AS "fin",
      ${sqlite ? sql`${sqliteParts(sql`"volume"`, "v")}, ${sqliteParts(sql`"profit"`, "q")}` : sql`SUM("volume")::text AS "volume", SUM("profit")::text AS "profit"`}
    FROM "ChannelDaily" WHERE "resellerId" IN (${joinSql(ids)})
    GROUP BY "resellerId", "currency" ORDER BY "resellerId", "currency"`);
  for (const r of rows) {
    const f = out.get(r.resellerId) ?? { orders: 0, finished: 0, byCurrency: [] };
    f.orders += Number(r.n);
    f.finished += Number(r.fin);
    const volume = sqlite ? exactSum(r, "v") : new D(r.volume ?? 0);
    const profit = sqlite ? exactSum(r, "q") : new D(r.profit ?? 0);
    if (!volume.isZero() || !profit.isZero())
      f.byCurrency.push({ currency: r.currency, volume: formatAmount(volume.plus(0)), profit: formatAmount(profit.plus(0)) });
    out.set(r.resellerId, f);
  }
  return out;
}

async function rowsOf(db: Db, resellers: Reseller[]): Promise<ConsoleResellerRow[]> {
  const ids = resellers.map((r) => r.id);
  const [figures, balances] = await Promise.all([
    figuresOf(db, ids),
    db.balance.findMany({ where: { resellerId: { in: ids } }, orderBy: [{ resellerId: "asc" }, { currency: "asc" }] }),
  ]);
  return resellers.map((r) => ({
    id: r.id,
    wallet: r.walletAddress,
    createdAt: r.createdAt.toISOString(),
    markupBps: r.markupBps,
    markupCapBps: r.markupCapBps,
    suspendedAt: r.suspendedAt?.toISOString() ?? null,
    revokedAt: r.revokedAt?.toISOString() ?? null,
    figures: figures.get(r.id) ?? EMPTY,
    balances: balances
      .filter((b) => b.resellerId === r.id)
      .map((b) => ({ currency: b.currency, pending: b.pending, available: b.available, reserved: b.reserved })),
  }));
}

/**
 * A page of resellers in the order of their ids (the primary key: a keyset page reads `limit`
 * rows of the index from its cursor, however many resellers there are). `q`: a reseller's id,
 * or a wallet (the whole address, or its beginning, "0x" included).
 */
export async function listConsoleResellers(db: Db, opts: { q?: string; cursor?: string; limit?: number }): Promise<ConsoleResellerPage> {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), MAX_PAGE);
  if (opts.cursor !== undefined && !ID_RE.test(opts.cursor)) throw new AppError("INVALID_REQUEST", "Not a page of this list.");
  const q = opts.q?.trim();
  const wallet = !!q && /^0x[0-9a-fA-F]{0,40}$/.test(q);
  // Neither a wallet nor an id could match: nothing to ask the database.
  if (q && !wallet && !ID_RE.test(q)) return { resellers: [], next: null };
  const where = {
    ...(q ? (wallet ? { walletAddress: { startsWith: q.toLowerCase() } } : { id: q }) : {}),
    ...(opts.cursor ? { AND: [{ id: { gt: opts.cursor } }] } : {}),
  };
  const found = await db.reseller.findMany({ where, orderBy: { id: "asc" }, take: limit + 1 });
  const page = found.slice(0, limit);
  return { resellers: await rowsOf(db, page), next: found.length > limit ? page[page.length - 1].id : null };
}

export interface ConsoleResellerDetail extends ConsoleResellerRow {
  keys: {
    id: string;
    name: string;
    prefix: string;
    createdAt: string;
    lastUsedAt: string | null;
    revokedAt: string | null;
    markupBps: number | null;
  }[];
  widgets: WidgetView[];
  recentOrders: {
    id: string;
    status: string;
    stateReason: string | null;
    failureReason: string | null;
    fromCurrency: string;
    toCurrency: string;
    fromAmount: string;
    toAmount: string;
    profit: string;
    channel: string | null;
    provider: string | null;
    createdAt: string;
  }[];
  /** The audit log's rows about this reseller (targetType reseller), newest first; `auditNext` pages on (GET /audit). */
  audit: AuditEventView[];
  auditNext: number | null;
}

/** Keys shown on the detail: the newest, active and revoked (never a key, nor its hash). */
const DETAIL_KEYS = 100;
const RECENT_ORDERS = 10;
const DETAIL_AUDIT = 50;

/** One reseller, NOT_FOUND for an unknown id: its row, keys, widgets, last orders and audit rows. */
export async function getConsoleReseller(db: Db, opts: { resellerId: string }): Promise<ConsoleResellerDetail> {
  const r = ID_RE.test(opts.resellerId) ? await db.reseller.findUnique({ where: { id: opts.resellerId } }) : null;
  if (!r) throw new AppError("NOT_FOUND", "No such reseller.");
  const [[row], keys, widgets, orders, audit] = await Promise.all([
    rowsOf(db, [r]),
    db.apiKey.findMany({
      where: { resellerId: r.id },
      orderBy: [{ revokedAt: { sort: "desc", nulls: "first" } }, { createdAt: "desc" }, { id: "desc" }],
      take: DETAIL_KEYS,
      select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true, markupBps: true },
    }),
    db.widget.findMany({ where: { resellerId: r.id }, orderBy: { createdAt: "asc" } }),
    db.order.findMany({
      where: { resellerId: r.id, payinAddress: { not: null } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: RECENT_ORDERS,
      select: {
        id: true,
        status: true,
        stateReason: true,
        failureReason: true,
        fromCurrency: true,
        toCurrency: true,
        fromAmount: true,
        toAmount: true,
        profit: true,
        channel: true,
        provider: true,
        createdAt: true,
      },
    }),
    listAudit(db, { filter: { targetType: "reseller", targetId: r.id }, limit: DETAIL_AUDIT }),
  ]);
  return {
    ...row,
    keys: keys.map((k) => ({
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      createdAt: k.createdAt.toISOString(),
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
      revokedAt: k.revokedAt?.toISOString() ?? null,
      markupBps: k.markupBps,
    })),
    widgets: widgets.map(toWidgetView),
    recentOrders: orders.map((o) => ({ ...o, createdAt: o.createdAt.toISOString() })),
    audit: audit.events,
    auditNext: audit.next,
  };
}
