import "server-only";
import type { Db } from "@/lib/db/client";
import { D, type Dec } from "@/lib/money/decimal";

/**
 * Each account's balance (the sum of its journal lines), per currency, for the accounts whose
 * names start with `prefix`, keyed "<account> <currency>". Read in pages by id and summed
 * exactly with decimal.js (amounts are decimal strings on SQLite, where SUM would be a float).
 */
export async function accountSums(db: Db, prefix: string): Promise<Map<string, Dec>> {
  const out = new Map<string, Dec>();
  let after = 0;
  for (;;) {
    const page = await db.journalLine.findMany({
      where: { account: { startsWith: prefix }, id: { gt: after } },
      orderBy: { id: "asc" },
      take: 5000,
      select: { id: true, account: true, currency: true, amount: true },
    });
    for (const l of page) {
      const key = `${l.account} ${l.currency}`;
      out.set(key, (out.get(key) ?? new D(0)).plus(l.amount));
    }
    if (page.length < 5000) return out;
    after = page[page.length - 1].id;
  }
}
