import { describe, expect, it } from "vitest";
import { WITHDRAWAL_STATUSES, withdrawalStatusOf } from "@/lib/withdrawals/types";

describe("withdrawal statuses read back from the database", () => {
  it("are checked against the one list", () => {
    for (const s of WITHDRAWAL_STATUSES) expect(withdrawalStatusOf(s)).toBe(s);
    expect(WITHDRAWAL_STATUSES).toEqual(["awaiting_approval", "queued", "processing", "sent", "confirmed", "failed"]);
    for (const bad of ["", "Queued", "paid", "queued "]) expect(() => withdrawalStatusOf(bad)).toThrow(/unknown withdrawal status/);
  });
});
