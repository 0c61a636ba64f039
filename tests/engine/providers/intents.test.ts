import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IntentHooks, OpenedSwap } from "@/lib/engine/types";
import { D } from "@/lib/money/decimal";
import { SideShiftAdapter } from "@/lib/providers/sideshift";
import { FakeSideShift } from "../../support/fake-providers/sideshift";
import { cur, engineWith } from "./helpers";

// The providers engine brackets each upstream create with the order service's intent hooks
// (issue 31): the intent is written before the provider is asked (the fake has no shift yet),
// carries our order id as SideShift's externalId, and gets the provider's answer before the
// engine returns; a refusal closes it as not created; a 5xx leaves it open (the shift may exist).

let fake: FakeSideShift;
let ss: SideShiftAdapter;

beforeAll(async () => {
  fake = await new FakeSideShift().start();
  fake.setPair("btc-bitcoin", "eth-ethereum", { rate: "20", min: "0.001", max: "2" });
  fake.quotesPerMinute = 10_000;
  fake.shiftsPerMinute = 10_000;
  ss = new SideShiftAdapter({
    baseUrl: fake.baseUrl,
    secret: fake.secret,
    affiliateId: fake.affiliateId,
    quotesPerMinute: 1000,
    // Only has to outlast a loaded machine: no test here waits for a timeout.
    timeoutMs: 120_000,
  });
});
afterAll(() => fake.kill());

function recorder() {
  const log: string[] = [];
  const created: OpenedSwap[] = [];
  const hooks: IntentHooks = {
    async creating(i) {
      log.push(
        `creating ${i.provider} ${i.externalId === null ? "no-external-id" : i.externalId} shifts=${fake.requestsTo("/api/v2/shifts/fixed").length}`,
      );
      return "intent-1";
    },
    async created(id, swap) {
      log.push(`created ${id} ${swap.upstream?.id}`);
      created.push(swap);
    },
    async notCreated(id) {
      log.push(`not-created ${id}`);
    },
  };
  return { hooks, log, created };
}

const engine = () =>
  engineWith([ss], {
    CHANGENOW_ENABLED: "false",
    FIXEDFLOAT_ENABLED: "false",
    PROVIDERS_COOLDOWN_SECONDS: "0",
    PROVIDERS_QUOTE_CACHE_SECONDS: "0",
  });
const open = (orderId: string, hooks: IntentHooks, address = "0x52908400098527886E0F7030069857D2E4169EE7") =>
  engine().openSwap(
    {
      orderId,
      from: cur("btc"),
      to: cur("eth"),
      fromAmount: new D("0.1"),
      toAmount: new D("1.9"),
      payoutAddress: address,
      payoutExtraId: null,
      refundAddress: null,
      refundExtraId: null,
      markupBps: 0,
    },
    { scope: "t", clientIp: "203.0.113.9", intents: hooks },
  );

describe("intents around the upstream create", () => {
  it("written before the provider is asked, with our order id as externalId; the answer before the engine returns", async () => {
    const before = fake.requestsTo("/api/v2/shifts/fixed").length;
    const r = recorder();
    const opened = await open("order-i1", r.hooks);
    const shift = [...fake.shifts.values()].find((s) => s.body.externalId === "order-i1")!;
    expect(r.log).toEqual([`creating sideshift order-i1 shifts=${before}`, `created intent-1 ${shift.id}`]);
    expect(r.created[0]).toEqual(opened);
    expect(opened.upstream).toEqual({ provider: "sideshift", id: shift.id, data: null });
    expect(opened.payinAddress).toBe(shift.depositAddress);
  });

  it("a refusal (an answer) closes it as not created", async () => {
    const r = recorder();
    await expect(open("order-i2", r.hooks, "invalid-address")).rejects.toMatchObject({ code: "INVALID_ADDRESS" });
    expect(r.log).toEqual([expect.stringMatching(/^creating sideshift order-i2 /), "not-created intent-1"]);
  });

  it("a 5xx leaves it open: the provider may have made the exchange", async () => {
    const r = recorder();
    fake.failNext({ status: 500 }, 1, (q) => q.path === "/api/v2/shifts/fixed");
    await expect(open("order-i3", r.hooks)).rejects.toMatchObject({ code: "ENGINE_UNAVAILABLE" });
    expect(r.log).toEqual([expect.stringMatching(/^creating sideshift order-i3 /)]);
  });
});
