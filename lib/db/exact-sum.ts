import "server-only";
import { sql } from "@/lib/db/client";
import { D, type Dec } from "@/lib/money/decimal";

// Exact sums of decimal text columns in a SQLite statement, whose own SUM goes through floats
// (PostgreSQL sums its NUMERIC columns exactly). Hand-written: the sum has to happen inside the
// statement (so that it returns a row per group, not every row), and better-sqlite3 ships no
// decimal extension.

/**
 * The SELECT terms of an exact sum of `col`: the whole parts and four groups of nine decimal
 * places summed as integers, under the aliases of `p`, put together by `exactSum` (as the
 * Journal_balanced trigger sums a journal's lines, migration journals).
 */
const ALIASES = {
  a: [sql`"aw"`, sql`"ap0"`, sql`"ap1"`, sql`"ap2"`, sql`"ap3"`],
  v: [sql`"vw"`, sql`"vp0"`, sql`"vp1"`, sql`"vp2"`, sql`"vp3"`],
  q: [sql`"qw"`, sql`"qp0"`, sql`"qp1"`, sql`"qp2"`, sql`"qp3"`],
};
export const sqliteParts = (col: ReturnType<typeof sql>, p: keyof typeof ALIASES) => {
  const dot = sql`instr(${col}, '.')`;
  const frac = sql`(CASE WHEN ${dot} > 0 THEN substr(${col}, ${dot} + 1) ELSE '' END || '000000000000000000000000000000000000')`;
  const sign = sql`(CASE WHEN substr(${col}, 1, 1) = '-' THEN -1 ELSE 1 END)`;
  const part = (n: number) => sql`SUM(${sign} * CAST(substr(${frac}, ${n * 9 + 1}, 9) AS INTEGER))`;
  const [w, p0, p1, p2, p3] = ALIASES[p];
  return sql`SUM(CAST(CASE WHEN ${dot} > 0 THEN substr(${col}, 1, ${dot} - 1) ELSE ${col} END AS INTEGER)) AS ${w},
    ${part(0)} AS ${p0}, ${part(1)} AS ${p1}, ${part(2)} AS ${p2}, ${part(3)} AS ${p3}`;
};

export type Parts = Record<string, unknown>;
export const exactSum = (r: Parts, p: keyof typeof ALIASES): Dec =>
  [r[`${p}p0`], r[`${p}p1`], r[`${p}p2`], r[`${p}p3`]].reduce<Dec>(
    (acc, x, i) => acc.plus(new D(String(x ?? 0)).times(new D(10).pow(-9 * (i + 1)))),
    new D(String(r[`${p}w`] ?? 0)),
  );
