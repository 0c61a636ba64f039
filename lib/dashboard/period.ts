export const DAY_MS = 86_400_000;

export const utcDay = (d: Date) => d.toISOString().slice(0, 10);

export interface Period {
  days: number;
  /** First instant of the first day (UTC midnight). */
  start: Date;
  /** UTC midnight of today, the last day of the period. */
  todayStart: Date;
}

/** The last `days` UTC days, today included (1..366; anything else falls back to 30). */
export function periodOf(days: number, now: Date): Period {
  const d = Math.min(Math.max(Math.trunc(days) || 30, 1), 366);
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { days: d, start: new Date(todayStart - (d - 1) * DAY_MS), todayStart: new Date(todayStart) };
}

/** Every UTC day of the period, oldest first, so a chart's axis has no gaps. */
export function daysOf(p: Period): string[] {
  const out: string[] = [];
  for (let t = p.start.getTime(); t <= p.todayStart.getTime(); t += DAY_MS) out.push(utcDay(new Date(t)));
  return out;
}

export const describePeriod = (p: Period) => ({ days: p.days, from: utcDay(p.start), to: utcDay(p.todayStart) });
