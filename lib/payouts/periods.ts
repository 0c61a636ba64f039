import type { PayoutTrigger } from "./typed-data";

// The periods of scheduled payouts, all in UTC: a calendar month ("2026-11") or an ISO week
// ("2026-W48", weeks start on Monday; the week of 4 January is week 1). A scheduled
// instruction pays once per period; the monthly cap counts per calendar month.

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** The calendar month of `at` (UTC), as "YYYY-MM". */
export const monthOf = (at: Date): string => `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}`;

/** The first instant of `at`'s calendar month (UTC), and of the next. */
export function monthBounds(at: Date): { start: Date; end: Date } {
  return {
    start: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)),
    end: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)),
  };
}

/** The ISO week of `at` (UTC), as "YYYY-Www" (the ISO year, which differs from the calendar's around New Year). */
export function isoWeekOf(at: Date): string {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const weekday = day.getUTCDay() || 7;
  // The Thursday of this week decides its year.
  day.setUTCDate(day.getUTCDate() + 4 - weekday);
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((day.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${day.getUTCFullYear()}-W${pad(week)}`;
}

/** The period a scheduled instruction pays in at `at`; a threshold has none (its crossings are counted). */
export function scheduledPeriod(trigger: PayoutTrigger, at: Date): string | null {
  if (trigger === "monthly") return monthOf(at);
  if (trigger === "weekly") return isoWeekOf(at);
  return null;
}
