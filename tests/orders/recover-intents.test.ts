import { Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db, Order } from "@/lib/db/client";
import type { OpenedSwap } from "@/lib/engine";
import { createLogger, provideLogger } from "@/lib/log";
import { D } from "@/lib/money/decimal";
import { serializeOpened } from "@/lib/orders/intents";
import { recoverIntents } from "@/lib/orders/recover-intents";
import { currentScope } from "@/lib/scope";
import { orderRow } from "../support/orders";
import { type ReusableDb, reusableDatabase } from "../support/reusable-db";
import { settingsForTests } from "../support/settings";

// The worker's settling of intents left open by a dead opening request (lib/orders/recover-intents.ts),
// case by case, on rows written straight into a fresh SQLite database at a fixed "now": which
// intents it looks at, the outcome of each (committed, adopted, abandoned, unknown, or left
// open), what it does to the order, and what it tells the operator in the log.

settingsForTests({ WORKER_LEASE_SECONDS: "30" });
const LEASE = 30_000;
const NOW = new Date("2031-03-01T12:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);

/** Every line logged, as parsed JSON. */
let logged: { level: number; msg: string; [k: string]: unknown }[] = [];
beforeAll(() => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) if (line) logged.push(JSON.parse(line));
      done();
    },
  });
  provideLogger(currentScope(), createLogger("info", sink));
});
const WARN = 40;
const ERROR = 50;
const logs = () => logged.map((l) => [l.level, l.msg]);
const MSG = {
  adopted: "an exchange created before a crash was adopted into its order",
  abandoned: "an upstream exchange has no order (its deposit address was never shown; the provider expires it)",
  unknown: "the provider may hold an exchange for this order whose answer never arrived; look it up by the external id",
  adoptFailed: "adopting an upstream exchange failed",
};

// One database and client for the file (issue 49: a client per test compiled the same queries
// again), emptied back to the freshly migrated state before each test.
let t: ReusableDb;
let db: Db;
beforeAll(async () => {
  t = await reusableDatabase("sqlite");
  db = t.db;
});
beforeEach(async () => {
  logged = [];
  await t.reset();
});
afterAll(() => t?.cleanup());

const swapFor = (orderId: string, over: Partial<OpenedSwap> = {}): OpenedSwap => ({
  payinAddress: `deposit-of-${orderId}`,
  payinExtraId: null,
  firstCheckAfterMs: 1000,
  upstream: { provider: "sideshift", id: `shift-of-${orderId}`, data: null },
  expiresAt: new Date(NOW.getTime() + 900_000),
  ...over,
});

/** An order opened with provider `provider` and exchange `upstreamId`. */
const opened = (id: string, provider: string | null, upstreamId: string | null) =>
  db.order.create({ data: orderRow(id, { provider, upstreamId, createdAt: ago(60_000) }) });

/** An order still reserved (no deposit address), its claim running until `leaseUntil`. */
const reserved = (id: string, leaseUntil: Date | null, over: Partial<Order> = {}) =>
  db.order.create({
    data: orderRow(id, { payinAddress: null, leaseToken: `token-of-${id}`, leaseUntil, createdAt: ago(60_000), ...over }),
  });

let seq = 0;
const intent = (
  orderId: string,
  over: { provider?: string; upstreamId?: string | null; opened?: string | null; createdAt?: Date; outcome?: string | null } = {},
) =>
  db.upstreamIntent.create({
    data: {
      id: `intent-${++seq}`,
      orderId,
      provider: "sideshift",
      externalId: orderId,
      upstreamId: null,
      opened: null,
      createdAt: ago(LEASE + 1),
      ...over,
    },
  });

const outcomeOf = async (id: string) => {
  const i = await db.upstreamIntent.findUniqueOrThrow({ where: { id } });
  return { outcome: i.outcome, resolvedAt: i.resolvedAt };
};
const settled = (outcome: string) => ({ outcome, resolvedAt: NOW });
const open = { outcome: null, resolvedAt: null };

describe("recoverIntents: which intents it looks at", () => {
  it("only those open a claim's length after they were written, the oldest first, 50 at a time", async () => {
    const fresh = await intent("gone-fresh", { upstreamId: "s1", createdAt: ago(LEASE - 1) });
    const justSettling = await intent("gone-edge", { upstreamId: "s2", createdAt: ago(LEASE) });
    const done = await intent("gone-done", { upstreamId: "s3", outcome: "committed", createdAt: ago(LEASE + 5) });
    // 51 intents past the claim, written newest first: the batch takes the 50 oldest.
    const old: string[] = [];
    for (let n = 0; n < 51; n++) old.push((await intent(`gone-${n}`, { upstreamId: `u${n}`, createdAt: ago(LEASE + 1000 - n) })).id);
    expect(await recoverIntents(db, NOW)).toBe(50);
    expect(await outcomeOf(old[50])).toEqual(open);
    for (const id of old.slice(0, 50)) expect(await outcomeOf(id)).toEqual(settled("abandoned"));
    expect(await outcomeOf(fresh.id)).toEqual(open);
    expect(await outcomeOf(justSettling.id)).toEqual(open);
    expect(await db.upstreamIntent.findUniqueOrThrow({ where: { id: done.id } })).toMatchObject({ outcome: "committed", resolvedAt: null });
    // The next round takes the rest.
    expect(await recoverIntents(db, NOW)).toBe(1);
    expect(await outcomeOf(old[50])).toEqual(settled("abandoned"));
  });
});

describe("recoverIntents: an order that has its deposit address", () => {
  it("committed with the intent's exchange: committed, nothing logged", async () => {
    await opened("o-c", "sideshift", "x-1");
    const i = await intent("o-c", { upstreamId: "x-1" });
    expect(await recoverIntents(db, NOW)).toBe(1);
    expect(await outcomeOf(i.id)).toEqual(settled("committed"));
    expect(logs()).toEqual([]);
  });

  it("committed with another exchange (another id, or the same id at another provider): abandoned, logged as a warning", async () => {
    await opened("o-a", "sideshift", "x-other");
    await opened("o-b", "changenow", "x-2");
    const a = await intent("o-a", { upstreamId: "x-1" });
    const b = await intent("o-b", { upstreamId: "x-2", createdAt: ago(LEASE + 2) });
    expect(await recoverIntents(db, NOW)).toBe(2);
    expect(await outcomeOf(a.id)).toEqual(settled("abandoned"));
    expect(await outcomeOf(b.id)).toEqual(settled("abandoned"));
    expect(logs()).toEqual([
      [WARN, MSG.abandoned],
      [WARN, MSG.abandoned],
    ]);
    expect(logged[0]).toMatchObject({ orderId: "o-b", provider: "sideshift", upstreamId: "x-2", externalId: "o-b", outcome: "abandoned" });
  });

  it("whose answer never arrived (no exchange id), even if the order has none either: unknown, logged as an error", async () => {
    await opened("o-u", "sideshift", null);
    const i = await intent("o-u", { upstreamId: null });
    expect(await recoverIntents(db, NOW)).toBe(1);
    expect(await outcomeOf(i.id)).toEqual(settled("unknown"));
    expect(logs()).toEqual([[ERROR, MSG.unknown]]);
    expect(logged[0]).toMatchObject({ orderId: "o-u", provider: "sideshift", upstreamId: null, externalId: "o-u", outcome: "unknown" });
  });
});

describe("recoverIntents: an order still reserved", () => {
  it("whose claim is live (a request is opening it): left alone, intent open", async () => {
    await reserved("r-live", new Date(NOW.getTime() + 1));
    const i = await intent("r-live", { upstreamId: "x", opened: serializeOpened(swapFor("r-live")) });
    expect(await recoverIntents(db, NOW)).toBe(0);
    expect(await outcomeOf(i.id)).toEqual(open);
    expect(await db.order.findUniqueOrThrow({ where: { id: "r-live" } })).toMatchObject({
      payinAddress: null,
      leaseToken: "token-of-r-live",
    });
    expect(logs()).toEqual([]);
  });

  it("whose claim ran out (or has none) with the answer recorded: opened with that exchange (adopted), logged as a warning", async () => {
    // Another order in the database: the claim takes only this one.
    await opened("bystander", "sideshift", "x-b");
    await reserved("r-adopt", NOW); // a claim ending exactly now is over
    const swap = swapFor("r-adopt");
    const i = await intent("r-adopt", { upstreamId: swap.upstream!.id, opened: serializeOpened(swap) });
    expect(await recoverIntents(db, NOW)).toBe(1);
    expect(await outcomeOf(i.id)).toEqual(settled("adopted"));
    expect(await db.order.findUniqueOrThrow({ where: { id: "r-adopt" } })).toMatchObject({
      payinAddress: "deposit-of-r-adopt",
      provider: "sideshift",
      upstreamId: "shift-of-r-adopt",
      expiresAt: swap.expiresAt,
      leaseToken: null,
      leaseUntil: null,
    });
    expect(await db.orderEvent.count({ where: { orderId: "r-adopt" } })).toBe(1);
    expect(await db.order.findUniqueOrThrow({ where: { id: "bystander" } })).toMatchObject({ leaseToken: null, leaseUntil: null });
    expect(logs()).toEqual([[WARN, MSG.adopted]]);
    expect(logged[0]).toMatchObject({ orderId: "r-adopt", provider: "sideshift", upstreamId: "shift-of-r-adopt", outcome: "adopted" });
  });

  it("whose claim another worker takes between the read and the claim: left to that worker, intent open", async () => {
    await reserved("r-race", null);
    const i = await intent("r-race", { upstreamId: "x", opened: serializeOpened(swapFor("r-race")) });
    // The order as read, then taken by another worker before this one's conditional claim.
    const racing = new Proxy(db, {
      get(target, p, receiver) {
        if (p !== "order") return Reflect.get(target, p, receiver);
        return new Proxy(target.order, {
          get(order, q) {
            if (q !== "findUnique") return Reflect.get(order, q);
            return async (args: Parameters<typeof order.findUnique>[0]) => {
              const row = await order.findUnique(args);
              await order.update({ where: { id: "r-race" }, data: { leaseToken: "other", leaseUntil: new Date(NOW.getTime() + LEASE) } });
              return row;
            };
          },
        });
      },
    });
    expect(await recoverIntents(racing, NOW)).toBe(0);
    expect(await outcomeOf(i.id)).toEqual(open);
    expect(await db.order.findUniqueOrThrow({ where: { id: "r-race" } })).toMatchObject({ payinAddress: null, leaseToken: "other" });
    expect(logs()).toEqual([]);
  });

  it("whose recorded exchange cannot open it (a fixed rate the firm quote no longer pays): abandoned, the failure logged", async () => {
    await reserved("r-fixed", ago(1), { rateType: "fixed", toAmount: "1" });
    const swap = swapFor("r-fixed", {
      terms: { rate: new D("0.5"), rawToAmount: new D("0.5"), toAmount: new D("0.5"), profit: new D("0") },
    });
    const i = await intent("r-fixed", { upstreamId: swap.upstream!.id, opened: serializeOpened(swap) });
    expect(await recoverIntents(db, NOW)).toBe(1);
    expect(await outcomeOf(i.id)).toEqual(settled("abandoned"));
    // The fixed rate's reservation is dropped, as its own request would have done.
    expect(await db.order.findUnique({ where: { id: "r-fixed" } })).toBeNull();
    expect(logs()).toEqual([
      [ERROR, MSG.adoptFailed],
      [WARN, MSG.abandoned],
    ]);
    expect(logged[0]).toMatchObject({
      orderId: "r-fixed",
      provider: "sideshift",
      upstreamId: "shift-of-r-fixed",
      err: { message: expect.any(String) },
    });
  });

  it("whose answer never arrived: unknown, the order left unopened", async () => {
    await reserved("r-none", ago(1));
    const i = await intent("r-none");
    expect(await recoverIntents(db, NOW)).toBe(1);
    expect(await outcomeOf(i.id)).toEqual(settled("unknown"));
    expect((await db.order.findUniqueOrThrow({ where: { id: "r-none" } })).payinAddress).toBeNull();
    expect(logs()).toEqual([[ERROR, MSG.unknown]]);
  });
});

describe("recoverIntents: an order that is gone", () => {
  it("with the provider's exchange id: abandoned; without: unknown", async () => {
    const a = await intent("gone-a", { upstreamId: "x-a", opened: serializeOpened(swapFor("gone-a")) });
    const u = await intent("gone-u", { createdAt: ago(LEASE + 2) });
    expect(await recoverIntents(db, NOW)).toBe(2);
    expect(await outcomeOf(a.id)).toEqual(settled("abandoned"));
    expect(await outcomeOf(u.id)).toEqual(settled("unknown"));
    expect(logs()).toEqual([
      [ERROR, MSG.unknown],
      [WARN, MSG.abandoned],
    ]);
  });

  it("an intent another resolver closed meanwhile is not counted nor logged", async () => {
    const i = await intent("gone-r", { upstreamId: "x-r" });
    const racing = new Proxy(db, {
      get(target, p, receiver) {
        if (p !== "order") return Reflect.get(target, p, receiver);
        return new Proxy(target.order, {
          get(order, q) {
            if (q !== "findUnique") return Reflect.get(order, q);
            return async (args: Parameters<typeof order.findUnique>[0]) => {
              await target.upstreamIntent.update({ where: { id: i.id }, data: { outcome: "committed" } });
              return order.findUnique(args);
            };
          },
        });
      },
    });
    expect(await recoverIntents(racing, NOW)).toBe(0);
    expect((await db.upstreamIntent.findUniqueOrThrow({ where: { id: i.id } })).outcome).toBe("committed");
    expect(logs()).toEqual([]);
  });
});
