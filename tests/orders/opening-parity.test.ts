import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import type { Db, Order } from "@/lib/db/client";
import type { OpenedSwap } from "@/lib/engine";
import { checkLedger } from "@/lib/ledger/check";
import { D } from "@/lib/money/decimal";
import { commitOpened } from "@/lib/orders/create-order";
import { openOrderPostgres } from "@/lib/orders/open-order-postgres";
import { openOrderPrisma } from "@/lib/orders/open-order-prisma";
import { openOrderSqlite } from "@/lib/orders/open-order-sqlite";
import { openedRow, openingPlan } from "@/lib/orders/opening";
import { FIXTURE_T0, fixtureReservation } from "../support/order-fixture";
import { type ReusableDb, reusableDatabase } from "../support/reusable-db";
import type { TempDb } from "../support/sqlite-db";

// An order's opening is written by three paths from one plan (lib/orders/opening.ts): the
// general path through Prisma, one statement on PostgreSQL, one synchronous transaction on
// SQLite; which runs depends on the claim, the provider intent and the reseller's webhook
// endpoints. Each kind of opening is run by each path, each from the same starting state (a
// database emptied back to its template, then seeded), and what each changed is compared: every
// row of every table the database has (read from its catalogue, not from a list here), so a row
// one path writes and another does not, in any table, fails.

const RESELLER = "r-parity";
const T0 = FIXTURE_T0;
const NOW = new Date("2026-11-20T10:00:05.123Z");

/** A reservation of the parity reseller, every value fixed. */
const reservation = (over: Partial<Order>): Order => fixtureReservation({ resellerId: RESELLER, ...over });

const SWAP: OpenedSwap = { payinAddress: "bc1qparity0000000000000000000000000000000", payinExtraId: null, firstCheckAfterMs: 15_000 };

interface Case {
  name: string;
  /** The order as the request reserved it (or, new, as it is before the engine answers). */
  reserved: Order;
  /** The claim: a reserved order's token; null, a new order inserted opened. */
  token: string | null;
  swap: OpenedSwap;
  /** What is in the database before: the order's reservation, a claimed quote, an open intent. */
  seed?: (db: Db, o: Order) => Promise<unknown>;
}

const reserveRow = (db: Db, o: Order) => db.order.create({ data: o });
const claimed = (token: string) => ({ leaseToken: token, leaseUntil: new Date(T0.getTime() + 60_000) });

const CASES: Case[] = [
  {
    name: "keyless, new",
    reserved: reservation({ resellerId: null, channel: null, markupBps: 0, profit: "0", toAmount: "1.55" }),
    token: null,
    swap: SWAP,
  },
  {
    name: "keyless, reserved (Idempotency-Key)",
    reserved: reservation({
      resellerId: null,
      channel: null,
      markupBps: 0,
      profit: "0",
      toAmount: "1.55",
      idempotencyScope: "s",
      idempotencyKey: "k",
      requestHash: "h",
      ...claimed("tok"),
    }),
    token: "tok",
    swap: SWAP,
    seed: reserveRow,
  },
  { name: "keyed, new", reserved: reservation({}), token: null, swap: SWAP },
  {
    name: "keyed, reserved (Idempotency-Key)",
    reserved: reservation({ idempotencyScope: "s", idempotencyKey: "k", requestHash: "h", ...claimed("tok") }),
    token: "tok",
    swap: SWAP,
    seed: reserveRow,
  },
  { name: "keyed, zero profit", reserved: reservation({ markupBps: 0, profit: "0", toAmount: "1.55" }), token: null, swap: SWAP },
  {
    name: "keyed, a claimed fixed-rate quote",
    reserved: reservation({ rateType: "fixed", rateId: "rq-parity", fixedUntil: new Date(T0.getTime() + 600_000), ...claimed("tok") }),
    token: "tok",
    swap: SWAP,
    seed: async (db, o) => {
      await db.rateQuote.create({
        data: {
          id: "rq-parity",
          resellerId: RESELLER,
          fromCurrency: o.fromCurrency,
          toCurrency: o.toCurrency,
          fromAmount: o.fromAmount,
          rate: o.rate,
          rawToAmount: o.rawToAmount,
          toAmount: o.toAmount,
          profit: o.profit,
          platformFeeBps: o.platformFeeBps,
          markupBps: o.markupBps,
          validUntil: o.fixedUntil!,
          createdAt: T0,
          orderId: o.id,
        },
      });
      await reserveRow(db, o);
    },
  },
  {
    // A provider's exchange: its intent written before it was made, committed with the order; firm terms priced again.
    name: "keyed, new, a provider's exchange with its open intent",
    reserved: reservation({ channel: "page" }),
    token: null,
    swap: {
      ...SWAP,
      expiresAt: new Date(T0.getTime() + 1_800_000),
      upstream: { provider: "sideshift", id: "up-parity", data: '{"x":1}' },
      terms: { rate: new D("15.4"), rawToAmount: new D("1.54"), toAmount: new D("1.5246"), profit: new D("0.0154") },
    },
    seed: (db, o) =>
      db.upstreamIntent.create({ data: { id: "i-parity", orderId: o.id, provider: "sideshift", upstreamId: "up-parity", createdAt: T0 } }),
  },
  {
    name: "keyed, reserved, a provider's exchange",
    reserved: reservation({ ...claimed("tok") }),
    token: "tok",
    swap: { ...SWAP, upstream: { provider: "sideshift", id: "up-parity", data: null } },
    seed: reserveRow,
  },
];

/** The reseller, and an earlier order of it opened the same day: its Balance, LedgerDaily and ChannelDaily rows exist. */
async function seedReseller(db: Db, webhook: boolean) {
  await db.reseller.create({
    data: { id: RESELLER, walletAddress: `0x${"ab".repeat(20)}`, markupBps: 100, createdAt: T0, updatedAt: T0 },
  });
  const earlier = openedRow(reservation({ id: "0123456789abcdef0000000e" }), { ...SWAP, payinAddress: "bc1qearlier" }, T0);
  expect(await openOrderPrisma(db, openingPlan(earlier, null, T0))).not.toBeNull();
  if (webhook)
    await db.webhookEndpoint.create({
      data: {
        id: "we-parity",
        resellerId: RESELLER,
        url: "https://example.com/hook",
        events: '["order.created"]',
        secret: "whsec_cGFyaXR5",
        createdAt: T0,
        updatedAt: T0,
      },
    });
}

/** The database's tables (PostgreSQL), read once: the template's. */
let pgTables: string[] | null = null;

/**
 * Every row of every table but the migrations' (the tables read from the database's catalogue),
 * as stored: each row as JSON of its columns' stored text (SQLite read on a connection of its
 * own, not through Prisma, which would turn "+00:00" and "Z" dates into one Date; PostgreSQL's
 * row_to_json keeps a NUMERIC's scale), per table.
 */
async function dump(t: TempDb, kind: "sqlite" | "postgres"): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (kind === "sqlite") {
    const conn = new Database(t.url.replace(/^file:/, ""), { readonly: true });
    try {
      const tables = conn
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations'`)
        .all() as { name: string }[];
      for (const { name } of tables)
        out.set(
          name,
          (conn.prepare(`SELECT * FROM "${name}"`).all() as object[]).map((r) => JSON.stringify(r)),
        );
    } finally {
      conn.close();
    }
    return out;
  }
  pgTables ??= (
    await t.db.$queryRawUnsafe<{ name: string }[]>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'`,
    )
  ).map((r) => r.name);
  // One statement for all tables: a round trip each was most of this test's time on a loaded machine.
  const rows = await t.db.$queryRawUnsafe<{ name: string; j: string }[]>(
    pgTables.map((name) => `SELECT '${name}' AS name, row_to_json(t)::text AS j FROM "${name}" t`).join(" UNION ALL "),
  );
  for (const name of pgTables) out.set(name, []);
  for (const r of rows) out.get(r.name)!.push(r.j);
  return out;
}

/** A random id (lib/ids' newId: base58 of 16 bytes). */
const RANDOM_ID = /"[1-9A-HJ-NP-Za-km-z]{20,23}"/g;

/**
 * What changed from `before` to `after`, per table: the rows gone (-) and the rows come (+), each
 * a multiset. Random ids the change made (a journal's) are named by their order of appearance,
 * so that two changes with the same rows compare equal.
 */
function changes(before: Map<string, string[]>, after: Map<string, string[]>): Record<string, string[]> {
  const known = new Set([...before.values()].flat().flatMap((r) => r.match(RANDOM_ID) ?? []));
  const out: Record<string, string[]> = {};
  for (const t of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const left = [...(before.get(t) ?? [])];
    const came: string[] = [];
    for (const r of after.get(t) ?? []) {
      const i = left.indexOf(r);
      if (i >= 0) left.splice(i, 1);
      else came.push(r);
    }
    if (left.length || came.length) out[t] = [...left.map((r) => `- ${r}`).sort(), ...came.map((r) => `+ ${r}`).sort()];
  }
  const names = new Map<string, string>();
  const masked = (r: string) => r.replace(RANDOM_ID, (id) => (known.has(id) ? id : '"<new id>"'));
  for (const t of Object.keys(out))
    out[t] = out[t]
      .map((r) => [masked(r), r] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, r]) => r);
  for (const t of Object.keys(out))
    out[t] = out[t].map((r) =>
      r.replace(RANDOM_ID, (id) => {
        if (known.has(id)) return id;
        if (!names.has(id)) names.set(id, `"<new id ${names.size + 1}>"`);
        return names.get(id)!;
      }),
    );
  return out;
}

type Path = "one step" | "general" | "createOrder's choice";
const ONE_STEP = { sqlite: openOrderSqlite, postgres: openOrderPostgres };

describe.each(["sqlite", "postgres"] as const)("an order's opening, by each path (%s)", (kind) => {
  // One database, emptied back to the migrated template before each run (a clone per run cost
  // 5 to 10 s on PostgreSQL under load); tests/support/reusable-db.test.ts holds the reset to a fresh clone's state.
  let shared: ReusableDb | null = null;
  afterAll(async () => {
    await shared?.cleanup();
  });

  /** The database in the case's starting state, as a fresh clone would be. */
  async function start(c: Case, webhook: boolean): Promise<TempDb> {
    if (shared) await shared.reset();
    else shared = await reusableDatabase(kind);
    const t = shared;
    await seedReseller(t.db, webhook);
    await c.seed?.(t.db, c.reserved);
    return t;
  }

  /** What opening the case's order by `path` changes, in every table. */
  async function openBy(c: Case, path: Path, webhook = false): Promise<Record<string, string[]>> {
    const t = await start(c, webhook);
    const { db } = t;
    const before = await dump(t, kind);
    const plan = openingPlan(openedRow(c.reserved, c.swap, NOW), c.token, NOW);
    if (path === "one step") expect(await ONE_STEP[kind](db, plan)).toBe(true);
    else if (path === "general") expect(await openOrderPrisma(db, plan)).toEqual(plan.order);
    else expect(await commitOpened(db, c.reserved, c.token, c.swap, NOW)).toEqual(plan.order);
    // The other paths are held to the same changes from the same state, so to the same ledger: one check will do.
    if (path === "general") expect((await checkLedger(db)).violations).toEqual([]);
    return changes(before, await dump(t, kind));
  }

  it.each(CASES.map((c) => [c.name, c] as const))("%s: every path changes the same rows of every table", async (_, c) => {
    const general = await openBy(c, "general");
    // The opening did write: the order, its event, and for a reseller its journal and rollups.
    expect(Object.keys(general)).toEqual(expect.arrayContaining(["Order", "OrderEvent"]));
    expect(await openBy(c, "one step")).toEqual(general);
    expect(await openBy(c, "createOrder's choice")).toEqual(general);
  });

  // A new order's provider exchange that a recovery settled first (lib/orders/recover-intents.ts):
  // neither path may write the order; with no intent row at all (none was written for it), both write it alike.
  it("a new order whose provider exchange a recovery already settled: no path writes anything", async () => {
    const c = CASES.find((x) => x.name.startsWith("keyed, new, a provider's exchange"))!;
    const settled: Case = {
      ...c,
      seed: (db, o) =>
        db.upstreamIntent.create({
          data: {
            id: "i-parity",
            orderId: o.id,
            provider: "sideshift",
            upstreamId: "up-parity",
            createdAt: T0,
            outcome: "abandoned",
            resolvedAt: T0,
          },
        }),
    };
    for (const path of ["one step", "general"] as const) {
      const t = await start(settled, false);
      const before = await dump(t, kind);
      const plan = openingPlan(openedRow(settled.reserved, settled.swap, NOW), settled.token, NOW);
      if (path === "one step") expect(await ONE_STEP[kind](t.db, plan)).toBe(false);
      else expect(await openOrderPrisma(t.db, plan)).toBeNull();
      expect(changes(before, await dump(t, kind)), path).toEqual({});
    }
    const none: Case = { ...c, seed: undefined };
    const general = await openBy(none, "general");
    expect(Object.keys(general)).toEqual(expect.arrayContaining(["Order", "OrderEvent"]));
    expect(await openBy(none, "one step")).toEqual(general);
  });

  // A reseller with an enabled webhook endpoint: the one-step path refuses, changing nothing;
  // the general path writes what it writes without one, and the order.created message.
  it.each(CASES.filter((c) => c.reserved.resellerId !== null).map((c) => [c.name, c] as const))(
    "%s, with a webhook endpoint: the one-step path leaves it to the general path, which adds only the announcement",
    async (_, c) => {
      const t = await start(c, true);
      const { db } = t;
      const before = await dump(t, kind);
      const plan = openingPlan(openedRow(c.reserved, c.swap, NOW), c.token, NOW);
      expect(await ONE_STEP[kind](db, plan)).toBe(false);
      expect(changes(before, await dump(t, kind))).toEqual({});
      expect(await commitOpened(db, c.reserved, c.token, c.swap, NOW)).toEqual(plan.order);
      const announced = changes(before, await dump(t, kind));
      const { WebhookMessage, WebhookDelivery, ...rest } = announced;
      expect(rest).toEqual(await openBy(c, "general"));
      expect(WebhookMessage).toHaveLength(1);
      expect(WebhookMessage[0]).toContain('"order.created"');
      expect(WebhookDelivery).toHaveLength(1);
    },
  );
});
