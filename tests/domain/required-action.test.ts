import { describe, expect, it } from "vitest";
import { ORDER_STATES, type OrderState, STATE_REASONS, type StateReason } from "@/lib/domain/order-states";
import { REFUND_STATES, REQUIRED_ACTIONS, type RequiredAction, requiredActionOf } from "@/lib/domain/required-action";

// The one rule of requiredAction (docs/api.md, "What the user must do"): the table of the
// cases that ask something, row by row as the docs write them, then every combination of the
// inputs checked against what the rule promises.

const P = "provide_refund_address";
const C = "contact_support";
const W = "wait_for_review";
const ADDR = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";

type Row = [OrderState, StateReason | null, string | null, string | null, boolean, RequiredAction | null];

// status, stateReason, refund.state, refundAddress, a refund address would be used, requiredAction
const TABLE: Row[] = [
  // Held for review.
  ["exchanging", "hold", null, null, true, P],
  ["exchanging", "hold", null, ADDR, true, W],
  ["exchanging", "hold", null, null, false, W],
  ["exchanging", "hold", null, ADDR, false, W],
  ["confirming", "hold", null, null, true, P],
  ["sending", "hold", null, ADDR, true, W],
  // The provider needs something.
  ["exchanging", "needs_action", null, null, true, P],
  ["exchanging", "needs_action", null, ADDR, true, C],
  ["exchanging", "needs_action", null, null, false, C],
  ["waiting", "needs_action", null, ADDR, false, C],
  // A refund in progress, an unknown provider status, nothing: nothing to do.
  ["exchanging", "refunding", null, null, true, null],
  ["exchanging", "refunding", null, ADDR, true, null],
  ["exchanging", "unknown", null, null, true, null],
  ["exchanging", "unknown", null, ADDR, false, null],
  ["waiting", null, null, null, true, null],
  ["sending", null, null, ADDR, true, null],
  // Failed.
  ["failed", null, "awaiting_address", null, true, P],
  ["failed", null, "awaiting_address", null, false, C],
  ["failed", null, "awaiting_address", ADDR, true, C],
  ["failed", null, "pending", ADDR, true, null],
  ["failed", null, "sent", ADDR, false, null],
  ["failed", null, null, null, true, null],
  ["failed", null, null, ADDR, false, null],
  // Finished: never.
  ["finished", null, null, null, true, null],
  ["finished", "hold", null, null, true, null],
  ["finished", "needs_action", "awaiting_address", null, true, null],
];

const run = ([status, stateReason, refundState, refundAddress, refundAddressUsable]: Row) =>
  requiredActionOf({ status, stateReason, refundState, refundAddress, refundAddressUsable });

describe("requiredActionOf", () => {
  for (const row of TABLE)
    it(`${row.slice(0, 4).map(String).join(" / ")} / usable ${row[4]} -> ${row[5]}`, () => {
      expect(run(row)).toBe(row[5]);
    });

  it("over every combination of its inputs, keeps the promises the docs make", () => {
    let n = 0;
    for (const status of ORDER_STATES)
      for (const stateReason of [null, ...STATE_REASONS])
        for (const refundState of [null, ...REFUND_STATES])
          for (const refundAddress of [null, ADDR])
            for (const usable of [true, false]) {
              n++;
              const a = run([status, stateReason, refundState, refundAddress, usable, null]);
              const at = `${status}/${stateReason}/${refundState}/${refundAddress}/${usable}`;
              expect([null, ...REQUIRED_ACTIONS], at).toContain(a);
              // Asking for an address only where there is none and one would be used.
              if (a === P) expect(refundAddress === null && usable, at).toBe(true);
              // A finished order asks nothing; an open one asks only for a hold or a needed action.
              if (status === "finished") expect(a, at).toBeNull();
              if (status !== "failed" && status !== "finished" && stateReason !== "hold" && stateReason !== "needs_action")
                expect(a, at).toBeNull();
              // A failed order asks something exactly when its refund awaits an address.
              if (status === "failed") expect(a !== null, at).toBe(refundState === "awaiting_address");
              // Waiting for a review is the answer of a hold only.
              if (a === W) expect(stateReason, at).toBe("hold");
              // An open order's answer does not depend on the refund's state (it has none yet).
              if (status !== "failed" && status !== "finished")
                expect(run([status, stateReason, null, refundAddress, usable, null]), at).toBe(a);
            }
    expect(n).toBe(6 * 5 * 4 * 2 * 2);
  });
});
