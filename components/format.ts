// Display formatting. Money arrives as exact decimal strings and is only re-grouped here,
// never re-computed with floats. Dates are shown in UTC, the same day boundary the
// earnings chart uses (and identical on the server and in the browser).

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

export const formatAmount = (amount: string, ticker?: string) =>
  ticker ? `${groupDecimal(amount)} ${ticker.toUpperCase()}` : groupDecimal(amount);

/** Rounds a decimal string to cents for display (half-up on the digit string, no floats). */
export function formatUsd(s: string | null | undefined): string {
  if (s === null || s === undefined) return "—";
  const neg = s.startsWith("-");
  const [int, frac = ""] = (neg ? s.slice(1) : s).split(".");
  const isZero = /^0*$/.test(int) && /^0*$/.test(frac);
  if (isZero) return "$0.00";
  if (/^0*$/.test(int) && /^0*$/.test(frac.slice(0, 2)) && !neg) return "< $0.01";
  // Round to two places with integer arithmetic on the digits.
  let cents = BigInt(int || "0") * 100n + BigInt(`${frac}00`.slice(0, 2));
  if (Number(frac[2] ?? "0") >= 5) cents += 1n;
  const whole = (cents / 100n).toString();
  const rest = (cents % 100n).toString().padStart(2, "0");
  return `${neg ? "-" : ""}$${groupDecimal(whole)}.${rest}`;
}

export const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id);
export const shortAddress = (a: string) => (a.length > 14 ? `${a.slice(0, 6)}…${a.slice(-4)}` : a);
export const bpsToPercent = (bps: number) => `${(bps / 100).toFixed(2).replace(/\.?0+$/, "")}%`;
