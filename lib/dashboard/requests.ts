import "server-only";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { loggedRouteTemplates } from "@/lib/http/app";
import { cursorText, listRequestLog, parseCursor } from "@/lib/request-log/list";
import type { RequestLogPage, StatusClassName } from "@/lib/request-log/types";

// The Requests page (app/dashboard/requests): the reseller's request log, newest first, a page
// at a time (lib/request-log/list.ts), with what its filters offer.

/** The filter's keys: the newest this many of the reseller's keys, revoked ones included (their requests stay in the log). */
const KEY_OPTIONS = 100;

export interface RequestLogFilters {
  status?: StatusClassName;
  route?: string;
  key?: string;
  /** ISO times: from (inclusive), to (exclusive). */
  from?: string;
  to?: string;
  /** The cursor the previous page answered. */
  older?: string;
}

export async function getRequestLogPage(db: Db, resellerId: string, f: RequestLogFilters): Promise<RequestLogPage> {
  const older = f.older === undefined ? null : parseCursor(f.older);
  if (f.older !== undefined && !older) throw new AppError("INVALID_REQUEST", "older: not a cursor this list answered.");
  const [page, keys] = await Promise.all([
    listRequestLog(db, {
      resellerId,
      statusClass: f.status === undefined ? undefined : Number(f.status[0]),
      route: f.route,
      keyId: f.key,
      from: f.from === undefined ? undefined : new Date(f.from),
      to: f.to === undefined ? undefined : new Date(f.to),
      older,
    }),
    db.apiKey.findMany({
      where: { resellerId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: KEY_OPTIONS,
      select: { id: true, name: true, prefix: true, revokedAt: true },
    }),
  ]);
  return {
    items: page.items,
    older: page.older ? cursorText(page.older) : null,
    filters: {
      routes: loggedRouteTemplates(),
      keys: keys.map((k) => ({ id: k.id, name: k.name, prefix: k.prefix, revoked: k.revokedAt !== null })),
    },
  };
}
