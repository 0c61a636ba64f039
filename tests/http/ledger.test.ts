import { describe, expect, it } from "vitest";
import { getBalances } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { addressFor, api, makeReseller, pollUntil, testDb } from "../support/api";
import { assertLedgerConsistent } from "../support/ledger";

describe("the ledger after a run of orders", () => {
  it("balance rows equal the sums of their entries and of the orders' profits: finished, failed and open", async () => {
    const { key, reseller } = await makeReseller({ markupBps: 175 });
    const create = async (amount: string) => {
      const r = await api("/exchange", { key, body: { from: "ltc", to: "xmr", amount, address: addressFor("xmr") } });
      expect(r.status).toBe(201);
      return r.body.id as string;
    };
    const finished = [await create("2"), await create("3.5"), await create("1.25")];
    const failed = [await create("4"), await create("5")];
    const open = [await create("2.5"), await create("6")];
    // One finishes on a different deposit than quoted (re-priced); the failures get a tiny deposit.
    await api(`/sandbox/exchange/${finished[0]}/deposit`, { key, method: "POST" });
    await api(`/sandbox/exchange/${finished[1]}/deposit`, { key, body: { amount: "3" } });
    await api(`/sandbox/exchange/${finished[2]}/deposit`, { key, method: "POST" });
    for (const id of failed) await api(`/sandbox/exchange/${id}/deposit`, { key, body: { amount: "0.00001" } });
    for (const id of [...finished, ...failed]) await pollUntil(id, ["finished", "failed"], { key });

    const rows = await testDb().order.findMany({ where: { resellerId: reseller.id } });
    const profitOf = (ids: string[]) => rows.filter((o) => ids.includes(o.id)).reduce((s, o) => s.plus(o.profit), new D(0));
    expect(rows.filter((o) => finished.includes(o.id)).every((o) => o.status === "finished")).toBe(true);
    expect(rows.filter((o) => failed.includes(o.id)).every((o) => o.status === "failed")).toBe(true);
    const [balance] = await getBalances(testDb(), reseller.id);
    expect(balance.currency).toBe("xmr");
    expect(new D(balance.available).eq(profitOf(finished))).toBe(true);
    expect(new D(balance.pending).eq(profitOf(open))).toBe(true);
    expect(balance.reserved).toBe("0");
    const entries = await testDb().ledgerEntry.findMany({ where: { resellerId: reseller.id } });
    for (const bucket of ["pending", "available"] as const)
      expect(
        entries
          .filter((e) => e.bucket === bucket)
          .reduce((s, e) => s.plus(e.amount), new D(0))
          .eq(balance[bucket]),
      ).toBe(true);
    await assertLedgerConsistent(testDb());
  });
});
