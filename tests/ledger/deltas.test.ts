import { describe, expect, it } from "vitest";
import { type ChannelDelta, channelDeltas } from "@/lib/ledger/channel-daily";
import { dailyDeltas } from "@/lib/ledger/daily";
import { D } from "@/lib/money/decimal";

// The rollup deltas a transaction applies (lib/ledger/daily.ts, channel-daily.ts): merged per row,
// in key order (the order rows are locked in, so two transactions never lock the same rows in
// opposite orders), rows left unchanged dropped.

describe("channelDeltas", () => {
  const delta = (resellerId: string, day: string, by: Partial<ChannelDelta> = {}): ChannelDelta => ({
    resellerId,
    day,
    channel: "",
    currency: "btc",
    orders: 0,
    finished: 0,
    volume: new D(0),
    profit: new D(0),
    ...by,
  });
  const plain = (ds: ChannelDelta[]) => ds.map((d) => ({ ...d, volume: d.volume.toFixed(), profit: d.profit.toFixed() }));

  it("adds the deltas of one row field by field", () => {
    const got = channelDeltas([
      delta("r", "2026-01-01", { orders: 2, finished: 1, volume: new D("1.5"), profit: new D("0.1") }),
      delta("r", "2026-01-01", { orders: 3, finished: 4, volume: new D("0.5"), profit: new D("0.2") }),
    ]);
    expect(plain(got)).toEqual(plain([delta("r", "2026-01-01", { orders: 5, finished: 5, volume: new D("2"), profit: new D("0.3") })]));
  });

  it("returns the rows in key order", () => {
    const got = channelDeltas([
      delta("r2", "2026-01-01", { orders: 1 }),
      delta("r1", "2026-01-02", { orders: 1 }),
      delta("r1", "2026-01-01", { orders: 1 }),
    ]);
    expect(got.map((d) => [d.resellerId, d.day])).toEqual([
      ["r1", "2026-01-01"],
      ["r1", "2026-01-02"],
      ["r2", "2026-01-01"],
    ]);
  });

  it("drops a row whose deltas cancel out, keeps one that any field changes", () => {
    const got = channelDeltas([
      delta("a", "2026-01-01", { orders: 1 }),
      delta("a", "2026-01-01", { orders: -1 }),
      delta("b", "2026-01-01", { orders: 1 }),
      delta("c", "2026-01-01", { finished: 1 }),
      delta("d", "2026-01-01", { volume: new D("0.1") }),
      delta("e", "2026-01-01", { profit: new D("-0.1") }),
      delta("f", "2026-01-01"),
    ]);
    expect(got.map((d) => d.resellerId)).toEqual(["b", "c", "d", "e"]);
  });
});

describe("dailyDeltas", () => {
  const at = (day: string) => new Date(`${day}T12:00:00Z`);
  const entry = (resellerId: string, day: string, amount: string) => ({
    resellerId,
    kind: "order_profit_settle",
    bucket: "available",
    currency: "xmr",
    createdAt: at(day),
    amount,
  });

  it("sums the entries per row, in key order, zero sums left out", () => {
    const got = dailyDeltas([
      entry("r2", "2026-01-01", "1"),
      entry("r1", "2026-01-02", "2"),
      entry("r1", "2026-01-01", "0.5"),
      entry("r1", "2026-01-01", "0.25"),
      entry("r3", "2026-01-01", "1"),
      entry("r3", "2026-01-01", "-1"),
    ]);
    expect(got.map((d) => [d.resellerId, d.day, d.amount.toFixed()])).toEqual([
      ["r1", "2026-01-01", "0.75"],
      ["r1", "2026-01-02", "2"],
      ["r2", "2026-01-01", "1"],
    ]);
  });
});
