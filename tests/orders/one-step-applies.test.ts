import { describe, expect, it } from "vitest";
import type { BalanceDelta, JournalPlan } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { type OpeningPlan, oneStepApplies } from "@/lib/orders/opening";

// The one-step renderers (open-order-sqlite.ts, open-order-postgres.ts) add balance changes with
// an upsert that cannot refuse an overdraft: a plan that takes from any bucket, or has a credit
// whose channel must be read, goes the general way, where postJournal checks it.

const delta = (pending: string, available = "0", reserved = "0"): BalanceDelta =>
  ({ resellerId: "r1", currency: "eth", pending: new D(pending), available: new D(available), reserved: new D(reserved) }) as BalanceDelta;

const plan = (balances: BalanceDelta[], creditsToRead: JournalPlan["creditsToRead"] = []): OpeningPlan =>
  ({ journal: { balances, creditsToRead } }) as unknown as OpeningPlan;

describe("oneStepApplies", () => {
  it("takes a plan that only adds (or changes nothing), and one with no balance at all", () => {
    expect(oneStepApplies(plan([delta("0.02"), delta("0", "0", "0")]))).toBe(true);
    expect(oneStepApplies(plan([]))).toBe(true);
  });

  it.each([
    ["pending", delta("-0.01")],
    ["available", delta("0", "-0.01")],
    ["reserved", delta("0", "0", "-0.01")],
  ])("refuses a plan that takes from the %s bucket, even beside an addition", (_, taking) => {
    expect(oneStepApplies(plan([delta("0.02"), taking]))).toBe(false);
    expect(oneStepApplies(plan([taking, delta("0.02")]))).toBe(false);
  });

  it("refuses a plan with a credit whose channel is to be read", () => {
    expect(oneStepApplies(plan([delta("0.02")], [{} as JournalPlan["creditsToRead"][number]]))).toBe(false);
  });
});
