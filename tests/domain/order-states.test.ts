import { describe, expect, it } from "vitest";
import { assertTransition, canTransition, isFinal, nextOnHappyPath, ORDER_STATES } from "@/lib/domain/order-states";

describe("order state machine", () => {
  it("has exactly the six states of the spec, in its order", () => {
    expect(ORDER_STATES).toEqual(["waiting", "confirming", "exchanging", "sending", "finished", "failed"]);
  });

  it("moves forward one step at a time along the happy path", () => {
    expect(nextOnHappyPath("waiting")).toBe("confirming");
    expect(nextOnHappyPath("confirming")).toBe("exchanging");
    expect(nextOnHappyPath("exchanging")).toBe("sending");
    expect(nextOnHappyPath("sending")).toBe("finished");
    expect(nextOnHappyPath("finished")).toBeNull();
    expect(nextOnHappyPath("failed")).toBeNull();
  });

  it("allows exactly: the next happy step, or failed from a non-final state", () => {
    const allowed: string[] = [];
    for (const from of ORDER_STATES) for (const to of ORDER_STATES) if (canTransition(from, to)) allowed.push(`${from}>${to}`);
    expect(allowed.sort()).toEqual(
      [
        "waiting>confirming",
        "confirming>exchanging",
        "exchanging>sending",
        "sending>finished",
        "waiting>failed",
        "confirming>failed",
        "exchanging>failed",
        "sending>failed",
      ].sort(),
    );
  });

  it("final states are final", () => {
    expect(ORDER_STATES.filter(isFinal)).toEqual(["finished", "failed"]);
    expect(() => assertTransition("finished", "failed")).toThrow(/illegal/);
    expect(() => assertTransition("waiting", "exchanging")).toThrow(/illegal/);
    expect(() => assertTransition("sending", "finished")).not.toThrow();
  });
});
