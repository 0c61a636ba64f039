import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import type { OpenedSwap } from "@/lib/engine";
import { D } from "@/lib/money/decimal";
import {
  adoptableSwap,
  intentHooks,
  listOrphanIntents,
  markCommitted,
  parseOpened,
  resolveIntent,
  serializeOpened,
} from "@/lib/orders/intents";
import { type TempDb, tempSqlite } from "../support/sqlite-db";

// The intent rows themselves (lib/orders/intents.ts), on SQLite: what an opened swap is stored
// as and read back as, the hooks an upstream engine calls, closing an intent once, which intent
// an order adopts, which one a commit closes, and the operator's list of orphans.

let t: TempDb;
let db: Db;
beforeAll(async () => {
  t = await tempSqlite();
  db = t.db;
});
afterAll(() => t.cleanup());
beforeEach(async () => {
  await db.upstreamIntent.deleteMany();
});

const T0 = new Date("2031-01-01T00:00:00.000Z");
const at = (s: number) => new Date(T0.getTime() + s * 1000);

const firm: OpenedSwap = {
  payinAddress: "bc1q-deposit",
  payinExtraId: "memo-7",
  firstCheckAfterMs: 1500,
  upstream: { provider: "changenow", id: "cn-1", data: '{"token":"x"}' },
  terms: { rate: new D("15.25"), rawToAmount: new D("1.525"), toAmount: new D("1.5"), profit: new D("0.0001") },
  expiresAt: new Date("2031-01-01T00:15:00.000Z"),
};
const bare: OpenedSwap = { payinAddress: "sim-deposit", payinExtraId: null, firstCheckAfterMs: null };

const row = (id: string, over: Record<string, unknown> = {}) =>
  db.upstreamIntent.create({ data: { id, orderId: "o1", provider: "sideshift", externalId: "o1", createdAt: T0, ...over } });

describe("an opened swap as stored in its intent", () => {
  it("reads back as it was, firm terms, expiry and upstream included", () => {
    const json = serializeOpened(firm);
    expect(JSON.parse(json)).toEqual({
      payinAddress: "bc1q-deposit",
      payinExtraId: "memo-7",
      firstCheckAfterMs: 1500,
      upstream: { provider: "changenow", id: "cn-1", data: '{"token":"x"}' },
      terms: { rate: "15.25", rawToAmount: "1.525", toAmount: "1.5", profit: "0.0001" },
      expiresAt: "2031-01-01T00:15:00.000Z",
    });
    const back = parseOpened(json);
    expect(back).toEqual(firm);
    expect(back.terms!.toAmount).toBeInstanceOf(D);
    expect(back.expiresAt).toBeInstanceOf(Date);
  });

  it("one without terms, expiry or upstream reads back without them", () => {
    expect(JSON.parse(serializeOpened(bare))).toEqual({ ...bare, upstream: null, terms: null, expiresAt: null });
    expect(parseOpened(serializeOpened(bare))).toStrictEqual(bare);
  });
});

describe("the engine's hooks", () => {
  it("creating writes an open intent; created records the answer; notCreated closes it as not_created", async () => {
    const hooks = intentHooks(db);
    const a = await hooks.creating({ orderId: "o1", provider: "sideshift", externalId: "o1" });
    expect(await db.upstreamIntent.findUniqueOrThrow({ where: { id: a } })).toMatchObject({
      orderId: "o1",
      provider: "sideshift",
      externalId: "o1",
      upstreamId: null,
      opened: null,
      outcome: null,
    });
    await hooks.created(a, firm);
    expect(await db.upstreamIntent.findUniqueOrThrow({ where: { id: a } })).toMatchObject({
      upstreamId: "cn-1",
      opened: serializeOpened(firm),
      outcome: null,
    });
    // An engine whose answer names no upstream exchange: recorded without an id.
    const b = await hooks.creating({ orderId: "o2", provider: "sim", externalId: null });
    await hooks.created(b, bare);
    expect(await db.upstreamIntent.findUniqueOrThrow({ where: { id: b } })).toMatchObject({
      upstreamId: null,
      opened: serializeOpened(bare),
    });
    await hooks.notCreated(b);
    expect((await db.upstreamIntent.findUniqueOrThrow({ where: { id: b } })).outcome).toBe("not_created");
  });
});

describe("resolveIntent", () => {
  it("closes an open intent once: a second resolver's outcome does not replace the first", async () => {
    await row("i1");
    expect(await resolveIntent(db, "i1", "adopted", at(5))).toBe(true);
    expect(await resolveIntent(db, "i1", "abandoned", at(9))).toBe(false);
    expect(await db.upstreamIntent.findUniqueOrThrow({ where: { id: "i1" } })).toMatchObject({ outcome: "adopted", resolvedAt: at(5) });
    expect(await resolveIntent(db, "nope", "abandoned")).toBe(false);
  });
});

describe("adoptableSwap", () => {
  it("gives the newest open intent of the order that has an answer, and nothing when there is none", async () => {
    expect(await adoptableSwap(db, "o1")).toBeNull();
    await row("no-answer", { createdAt: at(30) });
    await row("closed", { opened: serializeOpened({ ...bare, payinAddress: "closed" }), outcome: "abandoned", createdAt: at(20) });
    await row("other-order", { orderId: "o2", opened: serializeOpened({ ...bare, payinAddress: "o2" }), createdAt: at(20) });
    expect(await adoptableSwap(db, "o1")).toBeNull();
    await row("older", { opened: serializeOpened({ ...bare, payinAddress: "older" }), createdAt: at(1) });
    await row("newer", { opened: serializeOpened(firm), createdAt: at(2) });
    await row("oldest", { opened: serializeOpened({ ...bare, payinAddress: "oldest" }), createdAt: at(0) });
    expect(await adoptableSwap(db, "o1")).toEqual({ intentId: "newer", swap: firm });
  });
});

describe("markCommitted", () => {
  it("closes the order's open intent of that exchange, as committed unless told adopted; others stay open", async () => {
    await row("mine", { upstreamId: "cn-1", provider: "changenow" });
    await row("other-exchange", { upstreamId: "cn-2", provider: "changenow" });
    await row("other-provider", { upstreamId: "cn-1", provider: "sideshift" });
    await row("other-order", { orderId: "o2", upstreamId: "cn-1", provider: "changenow" });
    await row("closed", { upstreamId: "cn-1", provider: "changenow", outcome: "abandoned" });
    await markCommitted(db, "o1", firm);
    const outcomes = Object.fromEntries((await db.upstreamIntent.findMany()).map((i) => [i.id, i.outcome]));
    expect(outcomes).toEqual({
      mine: "committed",
      "other-exchange": null,
      "other-provider": null,
      "other-order": null,
      closed: "abandoned",
    });
    expect((await db.upstreamIntent.findUniqueOrThrow({ where: { id: "mine" } })).resolvedAt).toBeInstanceOf(Date);
    await markCommitted(db, "o1", { ...firm, upstream: { ...firm.upstream!, id: "cn-2" } }, "adopted");
    expect((await db.upstreamIntent.findUniqueOrThrow({ where: { id: "other-exchange" } })).outcome).toBe("adopted");
    // A swap with no upstream exchange has no intent to close.
    await markCommitted(db, "o1", bare);
    expect(await db.upstreamIntent.count({ where: { outcome: null } })).toBe(2);
  });
});

describe("listOrphanIntents", () => {
  it("lists the abandoned and unknown intents, newest first, 100 unless told", async () => {
    const outcomes = [null, "committed", "adopted", "not_created", "abandoned", "unknown"];
    for (const [n, outcome] of outcomes.entries()) await row(`k${n}`, { outcome, createdAt: at(n) });
    expect((await listOrphanIntents(db)).map((i) => [i.id, i.outcome])).toEqual([
      ["k5", "unknown"],
      ["k4", "abandoned"],
    ]);
    expect((await listOrphanIntents(db, { limit: 1 })).map((i) => i.id)).toEqual(["k5"]);
    await db.upstreamIntent.createMany({
      data: Array.from({ length: 100 }, (_, n) => ({
        id: `m${n}`,
        orderId: `m${n}`,
        provider: "sideshift",
        outcome: "abandoned",
        createdAt: at(100 + n),
      })),
    });
    const listed = await listOrphanIntents(db);
    expect(listed).toHaveLength(100);
    expect(listed[0].id).toBe("m99");
    expect(listed.map((i) => i.id)).not.toContain("k5");
  });
});
