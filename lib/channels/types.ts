// Channels' plain shapes and the channel string's format: pure, imported by the dashboard's
// client code too (no server-only imports here).

export type ChannelType = "key" | "widget" | "page";
export interface ChannelRef {
  type: ChannelType;
  id: string | null;
}

export const PAGE_CHANNEL = "page";
export const keyChannel = (apiKeyId: string) => `key:${apiKeyId}`;
export const widgetChannel = (widgetId: string) => `widget:${widgetId}`;

/** The stored channel string as { type, id }; null for none (keyless v1 orders) or anything unknown. */
export function parseChannel(channel: string | null | undefined): ChannelRef | null {
  if (!channel) return null;
  if (channel === PAGE_CHANNEL) return { type: "page", id: null };
  const m = /^(key|widget):([1-9A-HJ-NP-Za-km-z]{1,64})$/.exec(channel);
  return m ? { type: m[1] as ChannelType, id: m[2] } : null;
}

export interface WidgetView {
  id: string;
  name: string;
  /** Its own markup; null: the reseller's. */
  markupBps: number | null;
  allowedOrigins: string[];
  accent: string;
  theme: "light" | "dark";
  defaultFrom: string | null;
  defaultTo: string | null;
  defaultAmount: string | null;
  disabled: boolean;
  createdAt: string;
}

/** One channel's figures over a period (the Overview's per-channel card). */
export interface ChannelStat {
  channel: string;
  type: ChannelType;
  /** The key's or widget's name; "Hosted page" for the page. */
  label: string;
  /** Its markup now (its own, else the reseller's). */
  markupBps: number;
  orders: number;
  finished: number;
  /** Sum of finished orders' amounts sent, in USD at live prices (lib/prices). */
  volumeUsd: string;
  /** Profit credited (settled in the ledger) in the period, per currency, and in USD. */
  profit: { currency: string; amount: string }[];
  profitUsd: string;
}

/** The channels past the Overview's first TOP_CHANNELS, summed into one row. */
export interface ChannelOthers {
  /** How many channels it sums (listed keys and widgets without figures included). */
  channels: number;
  orders: number;
  finished: number;
  volumeUsd: string;
  profit: { currency: string; amount: string }[];
  profitUsd: string;
}

/** The Overview's Channels card: the busiest channels, each with its figures, and the rest in one row (null when there is no rest). */
export interface ChannelStats {
  channels: ChannelStat[];
  others: ChannelOthers | null;
}
