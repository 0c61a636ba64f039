import { describe, expect, it } from "vitest";
import { orderRequiredAction, refundAddressUsable } from "@/lib/orders/required-action";

// An order row's requiredAction: who holds the order decides whether a refund address given now
// would be used (lib/orders/required-action.ts); the rule itself is tests/domain/required-action.test.ts.

const row = (over: Partial<Parameters<typeof orderRequiredAction>[0]> = {}) => ({
  status: "exchanging",
  stateReason: null,
  refundState: null,
  refundAddress: null,
  provider: "sideshift",
  resellerId: "r1",
  ...over,
});

describe("an order row's requiredAction", () => {
  it("a hold asks for an address where the provider takes one later (SideShift), else it is a wait", () => {
    expect(orderRequiredAction(row({ stateReason: "hold" }))).toBe("provide_refund_address");
    for (const provider of ["changenow", "fixedfloat", "exolix", "simpleswap"]) {
      expect(orderRequiredAction(row({ stateReason: "hold", provider })), provider).toBe("wait_for_review");
      expect(orderRequiredAction(row({ stateReason: "needs_action", provider })), provider).toBe("contact_support");
    }
    expect(orderRequiredAction(row({ stateReason: "hold", refundAddress: "bc1q" }))).toBe("wait_for_review");
  });

  it("a refund address would be used: an open SideShift order, an open or refund-awaiting order of ours, never a keyless one", () => {
    expect(refundAddressUsable(row())).toBe(true);
    expect(refundAddressUsable(row({ status: "failed", refundState: "awaiting_address" }))).toBe(false); // SideShift closed it
    expect(refundAddressUsable(row({ provider: "changenow" }))).toBe(false);
    expect(refundAddressUsable(row({ provider: null }))).toBe(true);
    expect(refundAddressUsable(row({ provider: null, status: "failed", refundState: "awaiting_address" }))).toBe(true);
    expect(refundAddressUsable(row({ provider: null, status: "failed", refundState: "sent" }))).toBe(false);
    expect(refundAddressUsable(row({ provider: null, status: "finished" }))).toBe(false);
    expect(refundAddressUsable(row({ resellerId: null }))).toBe(false);
    expect(refundAddressUsable(row({ provider: null, resellerId: null, status: "failed", refundState: "awaiting_address" }))).toBe(false);
    expect(orderRequiredAction(row({ provider: null, status: "failed", refundState: "awaiting_address" }))).toBe("provide_refund_address");
    expect(orderRequiredAction(row({ provider: null, resellerId: null, status: "failed", refundState: "awaiting_address" }))).toBe(
      "contact_support",
    );
  });
});
