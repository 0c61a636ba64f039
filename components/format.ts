import { D } from "@/lib/money/decimal";
import { usdCents } from "@/lib/money/usd";

// Display formatting. Money arrives as exact decimal strings and is only re-grouped here,
// never re-computed with floats (percentages: bpsToPercent in lib/money/decimal.ts; USD:
// lib/money/usd.ts). Dates are shown in UTC, the same day boundary the earnings chart uses
// (and identical on the server and in the browser).

const DATE_TIME: Intl.DateTimeFormatOptions = {
  timeZone: "UTC",
  year: "numeric",
  month: "short",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false,
};
const dateTime = new Intl.DateTimeFormat("en-GB", DATE_TIME);
const dateTimeSeconds = new Intl.DateTimeFormat("en-GB", { ...DATE_TIME, second: "2-digit" });
const dayFmt = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", month: "short", day: "numeric" });

export const formatDateTime = (iso: string) => `${dateTime.format(new Date(iso))} UTC`;
export const formatDateTimeSeconds = (iso: string) => `${dateTimeSeconds.format(new Date(iso))} UTC`;
/** "21 Nov" for a YYYY-MM-DD day. */
export const formatDay = (day: string) => dayFmt.format(new Date(`${day}T00:00:00Z`));

/** Groups the integer part of an exact decimal string: "12345.678" -> "12,345.678". */
export function groupDecimal(s: string): string {
  const neg = s.startsWith("-");
  const [int, frac] = (neg ? s.slice(1) : s).split(".");
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return (neg ? "-" : "") + grouped + (frac ? `.${frac}` : "");
}

/** An exact amount for display: its integer part grouped, with the ticker if given ("12,345.678 BTC"). */
export const displayAmount = (amount: string, ticker?: string) =>
  ticker ? `${groupDecimal(amount)} ${ticker.toUpperCase()}` : groupDecimal(amount);

/** A USD value for display in whole cents (lib/money/usd.ts: half up); tiny positive values as "< $0.01". */
export function formatUsd(s: string | null | undefined): string {
  if (s === null || s === undefined) return "—";
  const x = new D(s);
  if (x.isZero()) return "$0.00";
  if (x.gt(0) && x.lt("0.01")) return "< $0.01";
  const cents = usdCents(x);
  return cents.startsWith("-") ? `-$${groupDecimal(cents.slice(1))}` : `$${groupDecimal(cents)}`;
}

export const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id);
export const shortAddress = (a: string) => (a.length > 14 ? `${a.slice(0, 6)}…${a.slice(-4)}` : a);

/**
 * Where and when a USD figure's price came from, for the line under it: every USD value the
 * dashboard shows is at a live price (lib/prices) and says so. Empty without a price.
 */
export function priceNote(p: { priceSource: string | null; priceDate: string | null } | undefined): string {
  if (!p?.priceSource || !p.priceDate) return "";
  return `price: ${p.priceSource}, ${formatDateTimeSeconds(p.priceDate)}`;
}
