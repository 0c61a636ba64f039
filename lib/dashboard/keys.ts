import "server-only";
import { keyChannel, MAX_WIDGETS, PAGE_CHANNEL, parseChannel, widgetChannel } from "@/lib/channels/channels";
import type { Db } from "@/lib/db/client";
import { listApiKeys, MAX_ACTIVE_KEYS, type PublicApiKey } from "@/lib/keys/api-keys";
import type { ApiKeyRow, ChannelOption, KeyPage } from "./types";

export const toKeyRow = (k: PublicApiKey): ApiKeyRow => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
  revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
  markupBps: k.markupBps,
});

/**
 * The Keys page's lists, a page at a time (lib/keys: listApiKeys): the active keys (at most
 * MAX_ACTIVE_KEYS, ACTIVE_KEYS_PAGE a page, with their count) or the revoked ones,
 * REVOKED_KEYS_PAGE a page; older pages by the cursor the previous one answered.
 */
export async function listKeyRows(db: Db, opts: { resellerId: string; revoked?: boolean; older?: string | null }): Promise<KeyPage> {
  const page = await listApiKeys(db, opts);
  return { items: page.items.map(toKeyRow), older: page.older, active: page.active ?? null };
}

/**
 * The Orders page's channel filter: the hosted page, the widgets (at most MAX_WIDGETS), the active
 * keys (at most MAX_ACTIVE_KEYS), and the channel selected now when it is none of those (a
 * revoked key's or a disabled widget's: its orders stay, and the Keys and Overview pages link to
 * them). Never every key a reseller ever had.
 */
export async function channelOptions(db: Db, opts: { resellerId: string; selected?: string | null }): Promise<ChannelOption[]> {
  const [keys, widgets] = await Promise.all([
    listApiKeys(db, { resellerId: opts.resellerId, pageSize: MAX_ACTIVE_KEYS }),
    db.widget.findMany({
      where: { resellerId: opts.resellerId },
      select: { id: true, name: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: MAX_WIDGETS,
    }),
  ]);
  const options: ChannelOption[] = [
    { value: PAGE_CHANNEL, label: "Hosted page" },
    ...widgets.map((w) => ({ value: widgetChannel(w.id), label: `Widget: ${w.name}` })),
    ...keys.items.map((k) => ({ value: keyChannel(k.id), label: `Key: ${k.name} (${k.prefix}…)` })),
  ];
  const selected = parseChannel(opts.selected);
  if (opts.selected && selected?.id && !options.some((o) => o.value === opts.selected)) {
    if (selected.type === "key") {
      const k = await db.apiKey.findFirst({
        where: { id: selected.id, resellerId: opts.resellerId },
        select: { name: true, prefix: true, revokedAt: true },
      });
      if (k) options.push({ value: opts.selected, label: `Key: ${k.name} (${k.prefix}…)${k.revokedAt ? ", revoked" : ""}` });
    } else if (selected.type === "widget") {
      const w = await db.widget.findFirst({ where: { id: selected.id, resellerId: opts.resellerId }, select: { name: true } });
      if (w) options.push({ value: opts.selected, label: `Widget: ${w.name}` });
    }
  }
  return options;
}
