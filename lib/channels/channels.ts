import "server-only";
import { z } from "zod";
import { getConfig, markupRange, markupRangeMessage } from "@/lib/config";
import { getCurrency } from "@/lib/currencies";
import type { Db, Widget } from "@/lib/db/client";
import { announceKeyChange } from "@/lib/db/key-changes";
import { lockReseller } from "@/lib/db/reseller-lock";
import { nameProblem } from "@/lib/domain/names";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { frameAncestorsOf, parseFrameOrigin } from "./frame-origins";
import { PAGE_CHANNEL, type WidgetView, widgetChannel } from "./types";

export { keyChannel, PAGE_CHANNEL, parseChannel, widgetChannel } from "./types";

// Channels (docs/widgets.md): every API key and every widget is a channel, and so is the
// reseller's hosted page without one. An order records its channel as a string,
// `key:<apiKeyId>`, `widget:<widgetId>` or `page`; a channel may set its own markup, which
// overrides the reseller's within the same cap (MARKUP_CAP_BPS).

/**
 * A markup in basis points, or null (the reseller's), checked as the reseller's markup is:
 * within MARKUP_CAP_BPS and the range the enabled providers can route (a key or widget markup
 * above it would get a 503 on every estimate).
 */
export function checkMarkup(markupBps: number | null): number | null {
  if (markupBps === null) return null;
  const range = markupRange(getConfig());
  if (!Number.isInteger(markupBps) || markupBps < 0 || markupBps > range.maxBps)
    throw new AppError("INVALID_MARKUP", markupRangeMessage(range), { maxBps: range.maxBps });
  return markupBps;
}

/**
 * A markup of the reseller (its own: lib/resellers' setMarkup; a key's or a widget's: here) checked against the
 * cap an operator set for it in the console (Reseller.markupCapBps, issue 52; null: the
 * platform's cap only): INVALID_MARKUP above it, with `maxBps` the reseller's cap. A null
 * markup (a channel's "the reseller's") always passes.
 */
export async function checkMarkupCap(db: Pick<Db, "reseller">, opts: { resellerId: string; markupBps: number | null }): Promise<void> {
  if (opts.markupBps === null) return;
  const r = await db.reseller.findUnique({ where: { id: opts.resellerId }, select: { markupCapBps: true } });
  const cap = r?.markupCapBps ?? null;
  if (cap !== null && opts.markupBps > cap)
    throw new AppError("INVALID_MARKUP", `The platform's operator capped this account's markup at ${cap} basis points.`, {
      maxBps: cap,
      cappedBy: "operator",
    });
}

/** A channel's markup that applies: its own (never above today's cap), else the reseller's. */
export const effectiveMarkup = (own: number | null, resellerBps: number) =>
  own === null ? resellerBps : Math.min(own, getConfig().MARKUP_CAP_BPS);

// ---------------------------------------------------------------------------------------------
// Widgets

export const MAX_WIDGETS = 50;
const MAX_ORIGINS = 20;
const TICKER = z
  .string()
  .trim()
  .toLowerCase()
  .refine((t) => getCurrency(t) !== undefined, "is not a listed currency");

const origin = z.string().transform((v, ctx) => {
  const r = parseFrameOrigin(v);
  if (!r.ok) {
    ctx.addIssue({ code: "custom", message: `${v.slice(0, 100)}: ${r.reason}` });
    return z.NEVER;
  }
  return r.origin;
});

export const widgetInput = z.object({
  name: z
    .string()
    .trim()
    .superRefine((v, ctx) => {
      const problem = nameProblem(v, { max: 64 });
      if (problem) ctx.addIssue({ code: "custom", message: `A widget name ${problem}` });
    }),
  markupBps: z.number().int().nullable().default(null),
  allowedOrigins: z.array(origin).max(MAX_ORIGINS).default([]),
  accent: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, "is a colour such as #4f46e5")
    .transform((v) => v.toLowerCase())
    .default("#4f46e5"),
  theme: z.enum(["light", "dark"]).default("light"),
  defaultFrom: TICKER.nullable().default(null),
  defaultTo: TICKER.nullable().default(null),
  defaultAmount: z
    .string()
    .trim()
    .regex(/^(?:0|[1-9]\d{0,14})(?:\.\d{1,18})?$/, "is a decimal amount such as 0.1")
    .nullable()
    .default(null),
});

const origins = (json: string): string[] => {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((o): o is string => typeof o === "string") : [];
  } catch {
    return [];
  }
};

export const toWidgetView = (w: Widget): WidgetView => ({
  id: w.id,
  name: w.name,
  markupBps: w.markupBps,
  allowedOrigins: origins(w.allowedOrigins),
  accent: w.accent,
  theme: w.theme === "dark" ? "dark" : "light",
  defaultFrom: w.defaultFrom,
  defaultTo: w.defaultTo,
  defaultAmount: w.defaultAmount,
  disabled: w.disabledAt !== null,
  createdAt: w.createdAt.toISOString(),
});

function parseWidget(input: unknown) {
  const r = widgetInput.safeParse(input);
  if (!r.success) {
    const issues = r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
    throw new AppError("INVALID_REQUEST", `${issues[0].path}: ${issues[0].message}`, { issues });
  }
  const w = r.data;
  checkMarkup(w.markupBps);
  if (w.defaultFrom && w.defaultFrom === w.defaultTo)
    throw new AppError("SAME_CURRENCY", "The default pair needs two different currencies.");
  return {
    name: w.name,
    markupBps: w.markupBps,
    allowedOrigins: JSON.stringify([...new Set(w.allowedOrigins)]),
    accent: w.accent,
    theme: w.theme,
    defaultFrom: w.defaultFrom,
    defaultTo: w.defaultTo,
    defaultAmount: w.defaultAmount,
  };
}

export async function listWidgets(db: Db, opts: { resellerId: string }): Promise<WidgetView[]> {
  const rows = await db.widget.findMany({ where: { resellerId: opts.resellerId }, orderBy: { createdAt: "asc" } });
  return rows.map(toWidgetView);
}

/** A new widget; the count and the insert run behind the reseller's row lock, so creations at once never pass MAX_WIDGETS. */
export async function createWidget(db: Db, opts: { resellerId: string; input: unknown }): Promise<WidgetView> {
  const data = parseWidget(opts.input);
  await checkMarkupCap(db, { resellerId: opts.resellerId, markupBps: data.markupBps });
  const row = await db.$transaction(async (tx) => {
    if (!(await lockReseller(tx, opts.resellerId))) throw new AppError("NOT_FOUND", "No such reseller.");
    if ((await tx.widget.count({ where: { resellerId: opts.resellerId } })) >= MAX_WIDGETS)
      throw new AppError("INVALID_REQUEST", `A reseller can have at most ${MAX_WIDGETS} widgets.`);
    return tx.widget.create({ data: { id: `wg${newId(12)}`, resellerId: opts.resellerId, ...data } });
  });
  return toWidgetView(row);
}

export async function updateWidget(db: Db, opts: { resellerId: string; widgetId: string; input: unknown }): Promise<WidgetView> {
  const data = parseWidget(opts.input);
  await checkMarkupCap(db, { resellerId: opts.resellerId, markupBps: data.markupBps });
  const r = await db.widget.updateMany({ where: { id: String(opts.widgetId), resellerId: opts.resellerId }, data });
  if (r.count !== 1) throw new AppError("NOT_FOUND", "No such widget.");
  return toWidgetView(await db.widget.findUniqueOrThrow({ where: { id: String(opts.widgetId) } }));
}

/** A disabled widget's page, API and frames stop at once; its orders and figures stay. */
export async function setWidgetEnabled(db: Db, opts: { resellerId: string; widgetId: string; enabled: boolean }): Promise<void> {
  const r = await db.widget.updateMany({
    where: { id: String(opts.widgetId), resellerId: opts.resellerId },
    data: { disabledAt: opts.enabled ? null : new Date() },
  });
  if (r.count !== 1) throw new AppError("NOT_FOUND", "No such widget.");
}

/** Sets (or, with null, clears) an API key's own markup; it applies to the key's next estimate and order. */
export async function setKeyMarkup(db: Db, opts: { resellerId: string; keyId: string; markupBps: number | null }): Promise<void> {
  const markupBps = checkMarkup(opts.markupBps);
  await checkMarkupCap(db, { resellerId: opts.resellerId, markupBps });
  const r = await db.apiKey.updateMany({
    where: { id: String(opts.keyId), resellerId: opts.resellerId, revokedAt: null },
    data: { markupBps },
  });
  if (r.count !== 1) throw new AppError("NOT_FOUND", "No such active key.");
  await announceKeyChange(`k:${String(opts.keyId)}`);
}

// ---------------------------------------------------------------------------------------------
// The hosted page and the widget: which reseller, channel and markup a public request is for.

export interface HostedChannel {
  resellerId: string;
  channel: string;
  markupBps: number;
  widget: WidgetView | null;
}

const ID_RE = /^[1-9A-HJ-NP-Za-km-z]{1,64}$/;
const notFound = () => new AppError("NOT_FOUND", "No such exchange page.");

/**
 * A public request names a reseller's page (`reseller`, optionally with a widget as its
 * channel) or a widget alone. Unknown, disabled and revoked ones are all the same 404.
 */
export async function resolveHostedChannel(db: Db, sel: { reseller?: string | null; widget?: string | null }): Promise<HostedChannel> {
  const widgetId = sel.widget || null;
  const resellerId = sel.reseller || null;
  if (widgetId) {
    if (!ID_RE.test(widgetId)) throw notFound();
    const w = await db.widget.findUnique({
      where: { id: widgetId },
      include: { reseller: { select: { markupBps: true, revokedAt: true } } },
    });
    if (!w || w.disabledAt || w.reseller.revokedAt || (resellerId && w.resellerId !== resellerId)) throw notFound();
    return {
      resellerId: w.resellerId,
      channel: widgetChannel(w.id),
      markupBps: effectiveMarkup(w.markupBps, w.reseller.markupBps),
      widget: toWidgetView(w),
    };
  }
  if (!resellerId || !ID_RE.test(resellerId)) throw notFound();
  const r = await db.reseller.findUnique({ where: { id: resellerId }, select: { markupBps: true, revokedAt: true } });
  if (!r || r.revokedAt) throw notFound();
  return { resellerId, channel: PAGE_CHANNEL, markupBps: r.markupBps, widget: null };
}

/**
 * The CSP frame-ancestors of a widget's page: the app itself (the dashboard's live preview)
 * and the origins its reseller listed, nothing else ('none' for an unknown or disabled widget).
 */
export async function widgetFrameAncestors(db: Db, widgetId: string): Promise<string> {
  if (!ID_RE.test(widgetId)) return "'none'";
  const w = await db.widget.findUnique({ where: { id: widgetId }, select: { allowedOrigins: true, disabledAt: true } });
  // Each listed origin the header can express (one saved before the rule was tightened and no
  // longer expressible is left out alone, not the whole list).
  return w && !w.disabledAt ? frameAncestorsOf(origins(w.allowedOrigins)) : "'none'";
}
