import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getCurrency } from "@/lib/currencies";
import type { Db, Order } from "@/lib/db/client";
import { getEngine } from "@/lib/engine";
import { AppError } from "@/lib/errors";
import { leaseMs } from "@/lib/jobs/lease";
import type { Caller } from "@/lib/keys/api-keys";
import { getBalances } from "@/lib/ledger/ledger";
import { getLogger } from "@/lib/log";
import { D, floorAmount } from "@/lib/money/decimal";
import { stringifyJson } from "@/lib/money/json-number";
import { applyStep } from "@/lib/orders/advance-order";
import { createOrder } from "@/lib/orders/create-order";
import { getOrderForCaller, getOrderForReseller, listOrders } from "@/lib/orders/get-order";
import { reportSandboxDeposit } from "@/lib/orders/report-deposit";
import { serializeCreatedOrder, serializeOrderStatus } from "@/lib/orders/serialize-order";
import { flagStuckOrders, listStuckOrders } from "@/lib/orders/stuck";
import { engineDeadlineMs, openSwapRequest, swapSnapshot } from "@/lib/orders/swap";
import { refusalOf } from "../support/app-error";
import { newCaller as makeCaller } from "../support/callers";
import { settingsForTests, withSettings } from "../support/settings";
import { type TempDb, tempSqlite } from "../support/sqlite-db";

// The order service in-process on a real SQLite database with the simulated engine: what
// createOrder stores and answers, how a step moves an order and its ledger, who may read it.
// (The HTTP suite drives the same code through the built app; these tests pin the details.)

const BTC_ADDR = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
const ETH_ADDR = "0x52908400098527886E0F7030069857D2E4169EE7";
const XMR_ADDR = "888tNkZrPN6JsEgekjMnABU4TBzc2Dt29EPAvkRxbANsAnjyPbb3iQ1YBRk1UXcdRsiKc9dhwMVgN5S9cQUiyoogDavup3H";
const ctx = { scope: "test" };
const ETH_PRECISION = getCurrency("eth")!.precision;
const input = (over: Record<string, unknown> = {}) => ({ from: "btc", to: "eth", amount: "0.1", address: ETH_ADDR, ...over });

const code = refusalOf;

let t: TempDb;
let db: Db;
settingsForTests({
  ORDER_TTL_SECONDS: "3600",
  QUOTE_TTL_SECONDS: "60",
  SIM_STEP_SECONDS: "3",
  WORKER_LEASE_SECONDS: "30",
  SIM_AUTO_DEPOSIT_SECONDS: undefined,
  PLATFORM_FEE_BPS: undefined,
});

const newCaller = (markupBps = 150) => makeCaller(db, markupBps);

beforeAll(async () => {
  t = await tempSqlite();
  db = t.db;
});
afterAll(async () => {
  await t.cleanup();
});

describe("createOrder", () => {
  it("stores a keyless order: exact amounts, no markup, a deposit address, a first event, no ledger entry", async () => {
    const now = new Date("2026-11-22T10:00:00.000Z");
    const { order, replayed } = await createOrder(db, { input: input(), caller: null, ctx, now });
    expect(replayed).toBe(false);
    expect(order.id).toMatch(/^[0-9a-f]{24}$/);
    expect(order).toMatchObject({ fromCurrency: "btc", toCurrency: "eth", fromAmount: "0.1", status: "waiting", resellerId: null });
    expect(order.payinAddress).toMatch(/^(bc1|[13])[a-zA-Z0-9]{25,}$/);
    expect(order.payinExtraId).toBeNull();
    expect(order.toAmount).toBe(order.rawToAmount);
    expect(order.profit).toBe("0");
    expect(order.markupBps).toBe(0);
    expect(order.platformFeeBps).toBe(25);
    expect(order.rawToAmount).toBe(floorAmount(new D(order.fromAmount).mul(order.rate), ETH_PRECISION).toFixed());
    expect(order.expiresAt.toISOString()).toBe("2026-11-22T11:00:00.000Z");
    expect(order.createdAt.toISOString()).toBe(now.toISOString());
    expect(order.leaseToken).toBeNull();
    expect(order.leaseUntil).toBeNull();
    expect(order.nextActionAt).toBeNull();
    expect(order.idempotencyKey).toBeNull();
    expect(order.requestHash).toBeNull();
    const events = await db.orderEvent.findMany({ where: { orderId: order.id } });
    expect(events.map((e) => [e.status, e.at.toISOString()])).toEqual([["waiting", now.toISOString()]]);
    expect(await db.ledgerEntry.count()).toBe(0);
  });

  it("a keyed order takes the reseller's markup and records it as pending profit", async () => {
    const caller = await newCaller(150);
    const keyless = await createOrder(db, { input: input(), caller: null, ctx });
    const { order } = await createOrder(db, { input: input(), caller, ctx });
    expect(order).toMatchObject({ resellerId: caller.resellerId, apiKeyId: caller.apiKeyId, markupBps: 150 });
    expect(order.rawToAmount).toBe(keyless.order.toAmount);
    const expected = new D(order.rawToAmount).mul(0.985).toDecimalPlaces(new D(order.rawToAmount).decimalPlaces(), D.ROUND_DOWN);
    expect(order.toAmount).toBe(expected.toFixed());
    expect(new D(order.profit).eq(new D(order.rawToAmount).minus(order.toAmount))).toBe(true);
    expect(new D(order.profit).gt(0)).toBe(true);
    const balances = await getBalances(db, caller.resellerId);
    expect(balances).toEqual([expect.objectContaining({ currency: "eth", pending: order.profit, available: "0", reserved: "0" })]);
  });

  it("trims the addresses and treats blank extra ids as none", async () => {
    const { order } = await createOrder(db, {
      input: input({ address: `  ${ETH_ADDR} `, extraId: "  ", refundAddress: ` ${BTC_ADDR} `, refundExtraId: "" }),
      caller: null,
      ctx,
    });
    expect(order).toMatchObject({ payoutAddress: ETH_ADDR, payoutExtraId: null, refundAddress: BTC_ADDR, refundExtraId: null });
  });

  it("stores a destination tag for a currency that has one, and gives an extra id for a deposit that needs one", async () => {
    const { order } = await createOrder(db, {
      input: {
        from: "xrp",
        to: "btc",
        amount: "100",
        address: BTC_ADDR,
        refundAddress: "rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY",
        refundExtraId: "123",
      },
      caller: null,
      ctx,
    });
    expect(order.payinExtraId).toMatch(/^\d+$/);
    expect(order.refundExtraId).toBe("123");
  });

  it("refuses bad addresses and extra ids with the field's own code and the currency in the message", async () => {
    expect(await code(createOrder(db, { input: input({ address: BTC_ADDR }), caller: null, ctx }))).toMatchObject({
      code: "INVALID_ADDRESS",
      message: expect.stringContaining("Ethereum"),
    });
    expect(await code(createOrder(db, { input: input({ extraId: "123" }), caller: null, ctx }))).toMatchObject({
      code: "INVALID_EXTRA_ID",
      message: "eth does not use an extra ID.",
    });
    expect(
      await code(
        createOrder(db, {
          input: { from: "btc", to: "xrp", amount: "0.1", address: "rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY", extraId: "x1" },
          caller: null,
          ctx,
        }),
      ),
    ).toEqual({ code: "INVALID_EXTRA_ID", message: "The Destination tag is not valid for xrp.", details: undefined });
    expect(await code(createOrder(db, { input: input({ refundAddress: ETH_ADDR }), caller: null, ctx }))).toMatchObject({
      code: "INVALID_REFUND_ADDRESS",
      message: expect.stringContaining("Bitcoin"),
    });
    expect(await code(createOrder(db, { input: input({ refundAddress: BTC_ADDR, refundExtraId: "7" }), caller: null, ctx }))).toMatchObject(
      {
        code: "INVALID_REFUND_EXTRA_ID",
        message: "btc does not use an extra ID.",
      },
    );
    expect(
      await code(
        createOrder(db, {
          input: {
            from: "xrp",
            to: "btc",
            amount: "100",
            address: BTC_ADDR,
            refundAddress: "rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY",
            refundExtraId: "tag",
          },
          caller: null,
          ctx,
        }),
      ),
    ).toEqual({ code: "INVALID_REFUND_EXTRA_ID", message: "The refund Destination tag is not valid for xrp.", details: undefined });
    // The registry's reason, where it has one, follows the refusal.
    expect(await code(createOrder(db, { input: input({ to: "strk", address: ETH_ADDR }), caller: null, ctx }))).toEqual({
      code: "INVALID_ADDRESS",
      message:
        "The address is not a valid Starknet (starknet) address. This looks like an Ethereum (EVM) address, not a Starknet one; funds sent to it on Starknet would be lost.",
      details: undefined,
    });
    expect(await code(createOrder(db, { input: input({ to: "xmr", address: ETH_ADDR }), caller: null, ctx }))).toMatchObject({
      code: "INVALID_ADDRESS",
    });
    const ok = await createOrder(db, { input: input({ to: "xmr", address: XMR_ADDR }), caller: null, ctx });
    expect(ok.order.toCurrency).toBe("xmr");
  });

  it("an Idempotency-Key replays the same request (case and spaces aside) and refuses a different body", async () => {
    const first = await createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "k-1" });
    expect(first.replayed).toBe(false);
    expect(first.order.idempotencyKey).toBe("k-1");
    expect(first.order.requestHash).toMatch(/^[0-9a-f]{64}$/);
    const again = await createOrder(db, {
      input: input({ from: "BTC", to: "Eth", address: ` ${ETH_ADDR}` }),
      caller: null,
      ctx,
      idempotencyKey: "k-1",
    });
    expect(again).toMatchObject({ replayed: true, order: { id: first.order.id } });
    expect(await code(createOrder(db, { input: input({ amount: "0.2" }), caller: null, ctx, idempotencyKey: "k-1" }))).toMatchObject({
      code: "IDEMPOTENCY_CONFLICT",
    });
    expect(
      await code(createOrder(db, { input: input({ refundAddress: BTC_ADDR }), caller: null, ctx, idempotencyKey: "k-1" })),
    ).toMatchObject({
      code: "IDEMPOTENCY_CONFLICT",
    });
    // The same key in another scope (another caller) is another order.
    const other = await createOrder(db, { input: input(), caller: null, ctx: { scope: "other" }, idempotencyKey: "k-1" });
    expect(other.replayed).toBe(false);
    expect(other.order.id).not.toBe(first.order.id);
  });

  it("20 concurrent creations with one key make one order and open one swap", async () => {
    const engine = getEngine();
    const real = engine.openSwap.bind(engine);
    let opened = 0;
    engine.openSwap = async (req, c) => {
      opened++;
      await new Promise((r) => setTimeout(r, 50));
      return real(req, c);
    };
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, () => createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "race" })),
      );
      expect(new Set(results.map((r) => r.order.id)).size).toBe(1);
      expect(results.filter((r) => !r.replayed)).toHaveLength(1);
      expect(results.every((r) => r.order.payinAddress)).toBe(true);
      expect(opened).toBe(1);
    } finally {
      engine.openSwap = real;
    }
  });

  it("keeps what an upstream engine says: where the swap lives, its expiry, when to look next", async () => {
    const engine = getEngine();
    const real = engine.openSwap.bind(engine);
    const expiresAt = new Date(Date.now() + 7_200_000);
    engine.openSwap = async (req, c) => ({
      ...(await real(req, c)),
      upstream: { provider: "p", id: "u-1", data: "d" },
      expiresAt,
      firstCheckAfterMs: 5_000,
    });
    try {
      const t0 = Date.now();
      const { order } = await createOrder(db, { input: input(), caller: null, ctx });
      const t1 = Date.now();
      expect(order).toMatchObject({ provider: "p", upstreamId: "u-1", upstreamData: "d" });
      expect(order.expiresAt.getTime()).toBe(expiresAt.getTime());
      // firstCheckAfterMs from the moment the swap was opened, somewhere between t0 and t1.
      expect(order.nextActionAt!.getTime()).toBeGreaterThanOrEqual(t0 + 5_000);
      expect(order.nextActionAt!.getTime()).toBeLessThanOrEqual(t1 + 5_000);
    } finally {
      engine.openSwap = real;
    }
  });

  it("an idempotent replay of a reverse (toAmount) request is the same order; amount and toAmount differ", async () => {
    const fixed = { from: "btc", to: "eth", address: ETH_ADDR, rateType: "fixed" as const };
    const a = await createOrder(db, { input: { ...fixed, toAmount: "1" }, caller: null, ctx, idempotencyKey: "rev-1" });
    const again = await createOrder(db, { input: { ...fixed, toAmount: " 1 " }, caller: null, ctx, idempotencyKey: "rev-1" });
    expect(again).toMatchObject({ replayed: true, order: { id: a.order.id } });
    expect(await code(createOrder(db, { input: { ...fixed, amount: "1" }, caller: null, ctx, idempotencyKey: "rev-1" }))).toEqual({
      code: "IDEMPOTENCY_CONFLICT",
      message: "This Idempotency-Key was already used with a different request body.",
      details: undefined,
    });
    const b = await createOrder(db, { input: { ...fixed, amount: "0.1" }, caller: null, ctx, idempotencyKey: "rev-2" });
    expect(
      await code(createOrder(db, { input: { ...fixed, amount: "0.1", rateType: undefined }, caller: null, ctx, idempotencyKey: "rev-2" })),
    ).toMatchObject({
      code: "IDEMPOTENCY_CONFLICT",
    });
    expect(b.order.rateType).toBe("fixed");
  });

  it("an engine failure drops the reservation so that a retry starts afresh", async () => {
    // Another request's reservation, not yet opened, must survive this one's failure.
    const bystander = await createOrder(db, { input: input(), caller: null, ctx });
    await db.order.update({
      where: { id: bystander.order.id },
      data: { payinAddress: null, leaseToken: "other", leaseUntil: new Date(Date.now() + 60_000) },
    });
    const engine = getEngine();
    const real = engine.openSwap.bind(engine);
    engine.openSwap = async () => {
      throw new AppError("ENGINE_UNAVAILABLE", "down");
    };
    const before = await db.order.count();
    try {
      expect(await code(createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "fail-1" }))).toMatchObject({
        code: "ENGINE_UNAVAILABLE",
      });
    } finally {
      engine.openSwap = real;
    }
    expect(await db.order.count()).toBe(before);
    expect(await db.order.findUnique({ where: { id: bystander.order.id } })).toMatchObject({ leaseToken: "other", payinAddress: null });
    const retry = await createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "fail-1" });
    expect(retry.replayed).toBe(false);
    expect(retry.order.payinAddress).toBeTruthy();
  });

  it("a request that finds a dead winner's expired claim opens the order itself", async () => {
    // The winner reserved the order and died before opening it: its claim expired.
    const first = await createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "dead" });
    await db.orderEvent.deleteMany({ where: { orderId: first.order.id } }).catch(() => {});
    await db.order.update({
      where: { id: first.order.id },
      data: { payinAddress: null, leaseToken: "deadbeef", leaseUntil: new Date(Date.now() - 1000) },
    });
    // Another dead reservation: taking over one claim must not touch it.
    const other = await createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "dead-other" });
    await db.order.update({
      where: { id: other.order.id },
      data: { payinAddress: null, leaseToken: "deadcafe", leaseUntil: new Date(Date.now() - 1000) },
    });
    const engine = getEngine();
    const real = engine.openSwap.bind(engine);
    let claimUntil: Date | null = null;
    engine.openSwap = async (req, c) => {
      claimUntil = (await db.order.findUniqueOrThrow({ where: { id: req.orderId } })).leaseUntil;
      return real(req, c);
    };
    const t0 = Date.now();
    let again: Awaited<ReturnType<typeof createOrder>>;
    try {
      again = await createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "dead" });
    } finally {
      engine.openSwap = real;
    }
    expect(again.replayed).toBe(true);
    expect(again.order.id).toBe(first.order.id);
    expect(again.order.payinAddress).toBe(first.order.payinAddress);
    expect(again.order.leaseToken).toBeNull();
    // While it opened the order, its claim ran a full lease (WORKER_LEASE_SECONDS=30) ahead.
    expect(claimUntil!.getTime()).toBeGreaterThanOrEqual(t0 + 29_000);
    expect(await db.order.findUniqueOrThrow({ where: { id: other.order.id } })).toMatchObject({
      leaseToken: "deadcafe",
      payinAddress: null,
    });
  });

  it("a reserved order the engine never opened is invisible, and a replay waits for it", async () => {
    const first = await createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "slow" });
    await db.order.update({
      where: { id: first.order.id },
      data: { payinAddress: null, leaseToken: "live", leaseUntil: new Date(Date.now() + 60_000) },
    });
    expect(await code(getOrderForCaller(db, { orderId: first.order.id, caller: null }))).toMatchObject({ code: "ORDER_NOT_FOUND" });
    const waiting = createOrder(db, { input: input(), caller: null, ctx, idempotencyKey: "slow" });
    await new Promise((r) => setTimeout(r, 100));
    await db.order.update({
      where: { id: first.order.id },
      data: { payinAddress: first.order.payinAddress, leaseToken: null, leaseUntil: null },
    });
    const r = await waiting;
    expect(r).toMatchObject({ replayed: true, order: { id: first.order.id, payinAddress: first.order.payinAddress } });
  });
});

describe("applyStep", () => {
  const fresh = async (caller: Caller | null = null, over: Record<string, unknown> = {}) =>
    (await createOrder(db, { input: input(over), caller, ctx })).order;

  it("moves one step with its event, its hashes, and the next check after SIM_STEP_SECONDS", async () => {
    const o = await fresh();
    await db.order.update({ where: { id: o.id }, data: { attempts: 3, lastError: "boom", stuckAt: new Date() } });
    const before = await db.order.findUniqueOrThrow({ where: { id: o.id } });
    const now = new Date("2026-11-22T12:00:00.000Z");
    const u = await applyStep(db, before, { to: "confirming", amountReceived: "0.1", payinHash: "ab" }, now);
    expect(u).toMatchObject({ status: "confirming", amountReceived: "0.1", payinHash: "ab", attempts: 0, lastError: null, stuckAt: null });
    expect(u?.nextActionAt?.toISOString()).toBe("2026-11-22T12:00:03.000Z");
    const stored = await db.order.findUniqueOrThrow({ where: { id: o.id } });
    expect(stored).toMatchObject({
      status: "confirming",
      amountReceived: "0.1",
      payinHash: "ab",
      attempts: 0,
      lastError: null,
      stuckAt: null,
    });
    expect(stored.updatedAt.toISOString()).toBe(now.toISOString());
    expect(stored.nextActionAt?.toISOString()).toBe("2026-11-22T12:00:03.000Z");
    const events = await db.orderEvent.findMany({ where: { orderId: o.id }, orderBy: { id: "asc" } });
    expect(events.map((e) => [e.status, e.note])).toEqual([
      ["waiting", null],
      ["confirming", null],
    ]);
  });

  it("records the failed attempts and the engine's upstream status when given", async () => {
    const o = await fresh();
    const u = await applyStep(db, o, { to: "confirming", upstream: { status: "confirming", reason: "hold" } }, new Date(), {
      attempts: 2,
      lastError: "timeout",
    });
    expect(u).toMatchObject({ attempts: 2, lastError: "timeout", upstreamStatus: "confirming", stateReason: "hold" });
  });

  it("refuses a jump the state machine forbids, and a step without a move", async () => {
    const o = await fresh();
    await expect(applyStep(db, o, { to: "finished" })).rejects.toThrow();
    await expect(applyStep(db, o, { to: null } as never)).rejects.toThrow(/needs a move/);
    expect((await db.order.findUniqueOrThrow({ where: { id: o.id } })).status).toBe("waiting");
  });

  it("loses to a caller that moved the order first, or whose claim it no longer holds", async () => {
    const o = await fresh();
    expect(await applyStep(db, o, { to: "confirming", amountReceived: "0.1" })).not.toBeNull();
    expect(await applyStep(db, o, { to: "confirming", amountReceived: "0.1" })).toBeNull();
    const o2 = await fresh();
    await db.order.update({ where: { id: o2.id }, data: { leaseToken: "mine", leaseUntil: new Date(Date.now() + 1000) } });
    expect(await applyStep(db, o2, { to: "confirming" }, new Date(), { leaseToken: "theirs" })).toBeNull();
    const won = await applyStep(db, o2, { to: "confirming" }, new Date(), { leaseToken: "mine" });
    expect(won).toMatchObject({ leaseToken: null, leaseUntil: null });
    expect(await db.order.findUniqueOrThrow({ where: { id: o2.id } })).toMatchObject({ leaseToken: null, leaseUntil: null });
    expect(await db.orderEvent.count({ where: { orderId: o2.id } })).toBe(2);
  });

  it("a step without a claim leaves a worker's claim alone", async () => {
    const o = await fresh();
    const until = new Date(Date.now() + 5000);
    await db.order.update({ where: { id: o.id }, data: { leaseToken: "worker", leaseUntil: until } });
    const u = await applyStep(db, { ...o, leaseToken: "worker", leaseUntil: until }, { to: "confirming" });
    expect(u).not.toBeNull();
    const stored = await db.order.findUniqueOrThrow({ where: { id: o.id } });
    expect(stored.leaseToken).toBe("worker");
  });

  it("prices a different deposit at the order's own rate and markup when the exchange starts", async () => {
    const caller = await newCaller(200);
    const o = await fresh(caller);
    const c = await applyStep(db, o, { to: "confirming", amountReceived: "0.05" });
    const x = await applyStep(db, c!, { to: "exchanging" });
    const raw = floorAmount(new D("0.05").mul(o.rate), ETH_PRECISION);
    expect(x?.rawToAmount).toBe(raw.toFixed());
    const to = raw.mul(0.98).toDecimalPlaces(raw.decimalPlaces(), D.ROUND_DOWN);
    expect(x?.toAmount).toBe(to.toFixed());
    expect(x?.profit).toBe(raw.minus(to).toFixed());
    const stored = await db.order.findUniqueOrThrow({ where: { id: o.id } });
    expect(stored.toAmount).toBe(to.toFixed());
    // The quoted amount arriving changes nothing.
    const o2 = await fresh(caller);
    const c2 = await applyStep(db, o2, { to: "confirming", amountReceived: o2.fromAmount });
    const x2 = await applyStep(db, c2!, { to: "exchanging" });
    expect(x2).toMatchObject({ toAmount: o2.toAmount, rawToAmount: o2.rawToAmount, profit: o2.profit });
  });

  it("finishing settles the profit (pending -> available); the final state needs no more checks", async () => {
    const caller = await newCaller(100);
    let o: Order | null = await fresh(caller);
    for (const step of [
      { to: "confirming" as const, amountReceived: o.fromAmount },
      { to: "exchanging" as const },
      { to: "sending" as const, payoutHash: "cd" },
    ])
      o = await applyStep(db, o!, step);
    o = await applyStep(db, o!, { to: "finished", upstream: { status: "done", reason: "hold" } });
    expect(o).toMatchObject({ status: "finished", nextActionAt: null, stateReason: null, payoutHash: "cd" });
    const [b] = await getBalances(db, caller.resellerId);
    expect(b).toMatchObject({ currency: "eth", pending: "0", available: o!.profit });
    const stored = await db.order.findUniqueOrThrow({ where: { id: o!.id } });
    expect(stored.nextActionAt).toBeNull();
    expect(stored.stateReason).toBeNull();
  });

  it("failing reverses the pending profit and records the reason and the refund", async () => {
    const caller = await newCaller(100);
    const withRefund = await fresh(caller, { refundAddress: BTC_ADDR });
    const f1 = await applyStep(db, withRefund, { to: "failed", reason: "deposit_below_minimum", refund: { amount: "0.0001", hash: "ee" } });
    expect(f1).toMatchObject({
      status: "failed",
      failureReason: "deposit_below_minimum",
      refundAmount: "0.0001",
      refundHash: "ee",
      refundState: "sent",
    });
    const events = await db.orderEvent.findMany({ where: { orderId: withRefund.id }, orderBy: { id: "asc" } });
    expect(events.at(-1)).toMatchObject({ status: "failed", note: "deposit_below_minimum" });
    const f2 = await applyStep(db, await fresh(caller, { refundAddress: BTC_ADDR }), {
      to: "failed",
      reason: "expired",
      refund: { amount: "0.1", hash: null },
    });
    expect(f2?.refundState).toBe("pending");
    const f3 = await applyStep(db, await fresh(caller), { to: "failed", reason: "expired", refund: { amount: "0.1", hash: null } });
    expect(f3?.refundState).toBe("awaiting_address");
    const f4 = await applyStep(db, await fresh(caller), { to: "failed", reason: "expired", refund: null });
    expect(f4).toMatchObject({ refundState: null, refundAmount: null });
    const [b] = await getBalances(db, caller.resellerId);
    expect(b).toMatchObject({ pending: "0", available: "0" });
  });
});

describe("reading orders", () => {
  it("an order made with a key is only its reseller's; a keyless one is anyone's; ids are case-insensitive", async () => {
    const a = await newCaller();
    const b = await newCaller();
    const mine = (await createOrder(db, { input: input(), caller: a, ctx })).order;
    const open = (await createOrder(db, { input: input(), caller: null, ctx })).order;
    expect((await getOrderForCaller(db, { orderId: mine.id.toUpperCase(), caller: a })).id).toBe(mine.id);
    expect(await code(getOrderForCaller(db, { orderId: mine.id, caller: b }))).toMatchObject({
      code: "ORDER_NOT_FOUND",
      message: "No order with this id.",
    });
    expect(await code(getOrderForCaller(db, { orderId: mine.id, caller: null }))).toMatchObject({ code: "ORDER_NOT_FOUND" });
    expect((await getOrderForCaller(db, { orderId: open.id, caller: b })).events.map((e) => e.status)).toEqual(["waiting"]);
    expect(await code(getOrderForCaller(db, { orderId: "zz", caller: null }))).toMatchObject({ code: "ORDER_NOT_FOUND" });
    expect(await code(getOrderForCaller(db, { orderId: `${open.id}0`, caller: null }))).toMatchObject({ code: "ORDER_NOT_FOUND" });
    expect((await getOrderForReseller(db, { resellerId: a.resellerId, orderId: mine.id })).id).toBe(mine.id);
    expect(await code(getOrderForReseller(db, { resellerId: b.resellerId, orderId: mine.id }))).toMatchObject({
      code: "ORDER_NOT_FOUND",
      message: "No order with this id.",
    });
    expect((await getOrderForReseller(db, { resellerId: a.resellerId, orderId: mine.id })).events.map((e) => e.status)).toEqual([
      "waiting",
    ]);
    // An order still being opened is neither found nor listed.
    await db.order.update({ where: { id: mine.id }, data: { payinAddress: null } });
    expect(await code(getOrderForReseller(db, { resellerId: a.resellerId, orderId: mine.id }))).toMatchObject({ code: "ORDER_NOT_FOUND" });
    expect((await listOrders(db, { resellerId: a.resellerId })).total).toBe(0);
    await db.order.update({ where: { id: mine.id }, data: { payinAddress: "x" } });
  });

  it("lists a reseller's orders newest first, by page, state and id prefix, with clamped page sizes", async () => {
    const c = await newCaller();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await createOrder(db, { input: input(), caller: c, ctx, now: new Date(Date.UTC(2026, 0, 1, 0, i)) })).order.id);
    const first = await getOrderForCaller(db, { orderId: ids[0], caller: c });
    await applyStep(db, first, { to: "confirming" });
    const page1 = await listOrders(db, { resellerId: c.resellerId, pageSize: 2 });
    expect(page1).toMatchObject({ total: 5, pageSize: 2, newer: null });
    expect(page1.orders.map((o) => o.id)).toEqual([ids[4], ids[3]]);
    const page2 = await listOrders(db, { resellerId: c.resellerId, pageSize: 2, after: page1.older });
    const page3 = await listOrders(db, { resellerId: c.resellerId, pageSize: 2, after: page2.older });
    expect(page3.orders.map((o) => o.id)).toEqual([ids[0]]);
    expect(page3.older).toBeNull();
    expect((await listOrders(db, { resellerId: c.resellerId, pageSize: 0 })).pageSize).toBe(1);
    expect((await listOrders(db, { resellerId: c.resellerId, pageSize: 1000 })).pageSize).toBe(100);
    expect((await listOrders(db, { resellerId: c.resellerId })).pageSize).toBe(20);
    const confirming = await listOrders(db, { resellerId: c.resellerId, status: "confirming" });
    expect(confirming.orders.map((o) => o.id)).toEqual([ids[0]]);
    const found = await listOrders(db, { resellerId: c.resellerId, search: ` ${ids[2].slice(0, 12).toUpperCase()} ` });
    expect(found.orders.map((o) => o.id)).toEqual([ids[2]]);
    const none = await listOrders(db, { resellerId: "nobody" });
    expect(none).toMatchObject({ total: 0, newer: null, older: null, orders: [] });
  });

  it("serializes the status body with the spec's fields, numbers for amounts and the history", async () => {
    const o = (await createOrder(db, { input: input({ refundAddress: BTC_ADDR }), caller: null, ctx })).order;
    const failed = await applyStep(db, o, { to: "failed", reason: "expired", refund: { amount: "0.1", hash: null } });
    const full = await getOrderForCaller(db, { orderId: o.id, caller: null });
    const body = serializeOrderStatus(full, full.events);
    expect(body).toMatchObject({
      id: o.id,
      status: "failed",
      failureReason: "expired",
      refund: { state: "pending", hash: null },
      refundAddress: BTC_ADDR,
      amountReceived: null,
      createdAt: o.createdAt.toISOString(),
      expiresAt: o.expiresAt.toISOString(),
      updatedAt: failed!.updatedAt.toISOString(),
    });
    expect(String(body.fromAmount)).toBe("0.1");
    expect(String(body.refund?.amount)).toBe("0.1");
    expect(body.history?.map((h) => h.status)).toEqual(["waiting", "failed"]);
    // Without events, the body's JSON has no history.
    expect(JSON.parse(stringifyJson(serializeOrderStatus(full)))).not.toHaveProperty("history");
    expect(JSON.parse(stringifyJson(body)).history).toHaveLength(2);
    const created = serializeCreatedOrder(o);
    expect(Object.keys(created).sort()).toEqual(
      [
        "id",
        "payinAddress",
        "payinExtraId",
        "payoutAddress",
        "payoutExtraId",
        "fromCurrency",
        "toCurrency",
        "fromAmount",
        "toAmount",
        "status",
      ].sort(),
    );
    expect(serializeOrderStatus(o).refund).toBeNull();
    // The status body is the creation response's fields, in their order, then the rest.
    expect(Object.keys(serializeOrderStatus(o)).slice(0, 10)).toEqual(Object.keys(created));
  });
});

describe("sandbox deposits", () => {
  it("report the quoted amount by default, or the one given, only on a waiting order that has not expired", async () => {
    const o = (await createOrder(db, { input: input(), caller: null, ctx })).order;
    const r = await reportSandboxDeposit(db, { orderId: o.id, caller: null });
    expect(r).toMatchObject({ status: "confirming", amountReceived: "0.1" });
    expect(r.payinHash).toBeTruthy();
    expect(r.events.map((e) => e.status)).toEqual(["waiting", "confirming"]);
    expect(await code(reportSandboxDeposit(db, { orderId: o.id, caller: null }))).toMatchObject({
      code: "INVALID_ORDER_STATE",
      message: expect.stringContaining("this one is confirming"),
    });
    const o2 = (await createOrder(db, { input: input(), caller: null, ctx })).order;
    expect((await reportSandboxDeposit(db, { orderId: o2.id, caller: null, amount: "0.05" })).amountReceived).toBe("0.05");
    const o3 = (await createOrder(db, { input: input(), caller: null, ctx })).order;
    expect(await code(reportSandboxDeposit(db, { orderId: o3.id, caller: null, amount: "-1" }))).toMatchObject({ code: "INVALID_AMOUNT" });
    expect(await code(reportSandboxDeposit(db, { orderId: o3.id, caller: null, now: new Date(o3.expiresAt.getTime() + 1) }))).toMatchObject(
      { code: "INVALID_ORDER_STATE", message: expect.stringContaining("this one is expired") },
    );
    // Exactly at expiry it is too late as well.
    expect(await code(reportSandboxDeposit(db, { orderId: o3.id, caller: null, now: o3.expiresAt }))).toMatchObject({
      code: "INVALID_ORDER_STATE",
    });
  });
});

describe("sandbox switched off", () => {
  it("a deposit report is a 404 NOT_FOUND that says the sandbox is off", async () => {
    const o = (await createOrder(db, { input: input(), caller: null, ctx })).order;
    await withSettings({ SANDBOX: "false" }, async () => {
      expect(await code(reportSandboxDeposit(db, { orderId: o.id, caller: null }))).toMatchObject({
        code: "NOT_FOUND",
        message: "The sandbox is disabled on this server.",
      });
    });
  });
});

describe("stuck upstream orders", () => {
  afterEach(async () => {
    await db.order.updateMany({ where: { provider: "test" }, data: { status: "finished" } });
  });

  it("flags open upstream orders older than the threshold once, and lists them oldest first", async () => {
    const now = new Date("2026-11-22T12:00:00.000Z");
    const mk = async (minutesAgo: number, over: Partial<Order> = {}) => {
      const o = (await createOrder(db, { input: input(), caller: null, ctx, now: new Date(now.getTime() - minutesAgo * 60_000) })).order;
      await db.order.update({ where: { id: o.id }, data: { provider: "test", upstreamId: `u-${o.id}`, ...over } });
      return o.id;
    };
    const old = await mk(120);
    const older = await mk(180, { status: "exchanging" });
    await mk(30);
    await mk(120, { status: "finished" });
    const noProvider = (await createOrder(db, { input: input(), caller: null, ctx, now: new Date(now.getTime() - 200 * 60_000) })).order;
    const flagged = await flagStuckOrders(db, { now, afterMinutes: 60 });
    expect(flagged.map((o) => o.id).sort()).toEqual([old, older].sort());
    expect(flagged.every((o) => o.stuckAt?.getTime() === now.getTime())).toBe(true);
    expect(await flagStuckOrders(db, { now, afterMinutes: 60 })).toEqual([]);
    const listed = (await listStuckOrders(db)).filter((o) => o.provider === "test");
    expect(listed.map((o) => o.id)).toEqual([older, old]);
    expect(listed.some((o) => o.id === noProvider.id)).toBe(false);
    // Exactly at the threshold is not yet stuck.
    const edge = await mk(60);
    expect((await flagStuckOrders(db, { now, afterMinutes: 60 })).map((o) => o.id)).not.toContain(edge);
  });

  it("tells the operator what the provider last said of each newly flagged order; never flags an unopened one; 500 a pass", async () => {
    const now = new Date("2026-11-22T15:00:00.000Z");
    const long = new Date(now.getTime() - 300 * 60_000);
    const template = (await createOrder(db, { input: input(), caller: null, ctx, now: long })).order;
    const row = (id: string, over: Partial<Order> = {}) => ({
      ...template,
      id,
      provider: "test",
      upstreamId: `u-${id}`,
      upstreamStatus: "hold",
      stateReason: "the provider holds the deposit",
      status: "confirming",
      ...over,
    });
    await db.order.createMany({ data: [row("stuck-log-1"), row("stuck-unopened", { payinAddress: null })] });
    const warn = vi.spyOn(getLogger(), "warn");
    try {
      const flagged = await flagStuckOrders(db, { now, afterMinutes: 60 });
      expect(flagged.map((o) => o.id)).toEqual(["stuck-log-1"]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledWith(
        {
          orderId: "stuck-log-1",
          provider: "test",
          upstreamId: "u-stuck-log-1",
          state: "confirming",
          upstreamStatus: "hold",
          reason: "the provider holds the deposit",
        },
        "upstream order stuck: still open past PROVIDERS_STUCK_AFTER_MINUTES",
      );
    } finally {
      warn.mockRestore();
    }
    // A pass flags at most 500; the next pass takes the rest.
    await db.order.createMany({ data: Array.from({ length: 501 }, (_, i) => row(`stuck-many-${String(i).padStart(3, "0")}`)) });
    expect((await flagStuckOrders(db, { now, afterMinutes: 60 })).length).toBe(500);
    expect((await flagStuckOrders(db, { now, afterMinutes: 60 })).length).toBe(1);
    expect(await db.order.count({ where: { id: { startsWith: "stuck-many-" }, stuckAt: now } })).toBe(501);
    expect((await db.order.findUniqueOrThrow({ where: { id: "stuck-unopened" } })).stuckAt).toBeNull();
  });
});

describe("orders as the engine sees them", () => {
  it("snapshots and open requests carry the order's plain values; claims last WORKER_LEASE_SECONDS, calls half of it", async () => {
    const o = (await createOrder(db, { input: input({ refundAddress: BTC_ADDR }), caller: null, ctx })).order;
    expect(swapSnapshot(o)).toEqual({
      orderId: o.id,
      state: "waiting",
      fromCurrency: "btc",
      toCurrency: "eth",
      fromAmount: "0.1",
      amountReceived: null,
      refundAddress: BTC_ADDR,
      createdAt: o.createdAt,
      expiresAt: o.expiresAt,
      rateType: "floating",
      fixedUntil: null,
      depositedAt: null,
      upstream: null,
    });
    expect(swapSnapshot({ ...o, provider: "p", upstreamId: null }).upstream).toBeNull();
    expect(swapSnapshot({ ...o, provider: null, upstreamId: "u" }).upstream).toBeNull();
    expect(
      swapSnapshot({ ...o, provider: "p", upstreamId: "u", upstreamData: "d", upstreamStatus: "s", stateReason: "r" }).upstream,
    ).toEqual({
      provider: "p",
      id: "u",
      data: "d",
      status: "s",
      reason: "r",
    });
    const req = openSwapRequest(o);
    expect(req).toMatchObject({
      orderId: o.id,
      payoutAddress: ETH_ADDR,
      refundAddress: BTC_ADDR,
      markupBps: 0,
      payoutExtraId: null,
      refundExtraId: null,
    });
    expect(req.from.ticker).toBe("btc");
    expect(req.to.ticker).toBe("eth");
    expect(req.fromAmount.toFixed()).toBe("0.1");
    expect(req.toAmount.toFixed()).toBe(o.toAmount);
    expect(() => openSwapRequest({ ...o, toCurrency: "nope" })).toThrow(/no longer has/);
    expect(() => openSwapRequest({ ...o, fromCurrency: "nope" })).toThrow(/no longer has/);
    withSettings({ WORKER_LEASE_SECONDS: "7" }, () => {
      expect(leaseMs()).toBe(7000);
      expect(engineDeadlineMs()).toBe(3500);
    });
  });
});
