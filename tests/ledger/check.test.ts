import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { checkLedger, LEDGER_INVARIANTS, type LedgerInvariant } from "@/lib/ledger/check";
import { InsufficientBalanceError, post, recordPendingProfit, reverseProfit, settleProfit } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// The integrity check itself: each invariant named with the first violations it finds, on a
// ledger broken on purpose (entries inserted around post(), balance rows edited by hand), and
// its paging over more entries and orders than one page holds.

const byName = (name: string): LedgerInvariant[] => LEDGER_INVARIANTS.filter((i) => i.name.startsWith(name));

describe.each(["sqlite", "postgres"] as const)("ledger check on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let n = 0;
  const reseller = async () => {
    const id = `c${++n}`;
    await db.reseller.create({ data: { id, walletAddress: `0x${n.toString(16).padStart(40, "c")}` } });
    return id;
  };
  const order = (id: string, resellerId: string | null, over: Record<string, unknown> = {}) =>
    db.order.create({
      data: {
        id,
        resellerId,
        fromCurrency: "btc",
        toCurrency: "xmr",
        fromAmount: "1",
        rate: "1",
        rawToAmount: "50",
        toAmount: "49.5",
        platformFeeBps: 25,
        markupBps: 100,
        profit: "0.5",
        payinAddress: "x",
        payoutAddress: "y",
        status: "waiting",
        expiresAt: new Date(),
        ...over,
      },
    });
  const rawEntry = (data: {
    resellerId: string;
    currency?: string;
    bucket?: string;
    kind?: string;
    amount: string;
    orderId?: string | null;
  }) => db.ledgerEntry.create({ data: { currency: "xmr", bucket: "available", kind: "order_profit_settle", orderId: null, ...data } });
  const messages = async (invariants: LedgerInvariant[], maxViolations?: number) =>
    (await checkLedger(db, { invariants, maxViolations })).violations.map((v) => v.message);

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(async () => t.cleanup());

  it("an empty ledger passes every invariant", async () => {
    expect(await checkLedger(db)).toEqual({ ok: true, violations: [] });
  });

  it("sums balances over several pages of entries, exactly", async () => {
    const r = await reseller();
    const count = 4_100;
    await db.ledgerEntry.createMany({
      data: Array.from({ length: count }, () => ({
        resellerId: r,
        currency: "eth",
        bucket: "available",
        kind: "order_profit_settle",
        amount: "0.001",
      })),
    });
    await db.balance.create({ data: { resellerId: r, currency: "eth", available: "4.1" } });
    expect(await checkLedger(db)).toEqual({ ok: true, violations: [] });
    // One entry more, on the last page only, is seen.
    await rawEntry({ resellerId: r, currency: "eth", amount: "0.001" });
    expect(await messages(byName("each balance"))).toEqual([`balance ${r}/eth available is 4.1 but its entries sum to 4.101`]);
    await db.balance.update({ where: { resellerId_currency: { resellerId: r, currency: "eth" } }, data: { available: "4.101" } });
    expect((await checkLedger(db)).ok).toBe(true);
  });

  it("names malformed entries: unknown bucket, unknown kind, amounts that are not canonical or zero", async () => {
    const r = await reseller();
    const a = await rawEntry({ resellerId: r, bucket: "limbo", amount: "1" });
    const b = await rawEntry({ resellerId: r, kind: "gift", amount: "1" });
    const c = await rawEntry({ resellerId: r, amount: "1.50" });
    const d = await rawEntry({ resellerId: r, amount: "0" });
    const e = await rawEntry({ resellerId: r, amount: "01" });
    const f = await rawEntry({ resellerId: r, amount: "-0" });
    // PostgreSQL stores amounts as NUMERIC, which makes 1.50 into 1.5, 01 into 1 and -0 into 0.
    const pg = kind === "postgres";
    expect(await messages(byName("entries are well formed"))).toEqual([
      `entry ${a.id} has unknown bucket 'limbo'`,
      `entry ${b.id} has unknown kind 'gift'`,
      ...(pg ? [] : [`entry ${c.id} has amount '1.50'`]),
      `entry ${d.id} has amount '0'`,
      ...(pg ? [] : [`entry ${e.id} has amount '01'`]),
      `entry ${f.id} has amount '${pg ? "0" : "-0"}'`,
    ]);
    // The balance check skips what the first invariant reports, and sees the rest have no balance row.
    expect(await messages(byName("each balance"))).toEqual([`entries of ${r}/xmr have no balance row`]);
    // Every invariant runs, in order, up to maxViolations.
    expect(await messages(LEDGER_INVARIANTS, 2)).toEqual([
      `entry ${a.id} has unknown bucket 'limbo'`,
      `entry ${b.id} has unknown kind 'gift'`,
    ]);
    const all = await checkLedger(db);
    expect(all.violations.map((v) => v.invariant)).toEqual([
      ...Array(pg ? 4 : 6).fill("entries are well formed"),
      "each balance equals the sum of its entries and is not negative",
    ]);
    // Clean up by balancing what can be balanced: the malformed rows stay (append-only), so
    // later tests use the invariants that do not look at them.
  });

  it("a negative or hand-edited balance is named with its bucket", async () => {
    const r = await reseller();
    await db.$transaction((tx) =>
      post(tx, [{ resellerId: r, currency: "btc", bucket: "pending", kind: "order_profit_pending", amount: new D("2") }]),
    );
    await db.balance.update({ where: { resellerId_currency: { resellerId: r, currency: "btc" } }, data: { reserved: "1" } });
    const got = (await messages(byName("each balance"))).filter((m) => m.includes(`${r}/`));
    expect(got).toEqual([`balance ${r}/btc reserved is 1 but its entries sum to 0`]);
    await db.balance.update({ where: { resellerId_currency: { resellerId: r, currency: "btc" } }, data: { reserved: "0", pending: "3" } });
    expect((await messages(byName("each balance"))).filter((m) => m.includes(`${r}/`))).toEqual([
      `balance ${r}/btc pending is 3 but its entries sum to 2`,
    ]);
    // A balance with no entries at all must be zero in every bucket.
    const r2 = await reseller();
    await db.balance.create({ data: { resellerId: r2, currency: "ltc", available: "0.1" } });
    expect((await messages(byName("each balance"))).filter((m) => m.includes(`${r2}/`))).toEqual([
      `balance ${r2}/ltc available is 0.1 but its entries sum to 0`,
    ]);
    let negative: string[] = [];
    try {
      await db.balance.update({ where: { resellerId_currency: { resellerId: r2, currency: "ltc" } }, data: { available: "-0.1" } });
      negative = (await messages(byName("each balance"))).filter((m) => m.includes(`${r2}/`));
    } catch {
      // The database refuses a negative balance outright (a CHECK constraint): nothing to report.
      negative = ["refused by the database"];
    }
    expect(negative[0]).toMatch(/refused by the database|is negative: -0.1/);
    await db.balance.update({ where: { resellerId_currency: { resellerId: r, currency: "btc" } }, data: { pending: "2" } });
    await db.balance.update({ where: { resellerId_currency: { resellerId: r2, currency: "ltc" } }, data: { available: "0" } });
  });

  it("order profit: booked to the order's reseller and currency, closed only when final, credited once and exactly", async () => {
    const inv = byName("every order's profit");
    const r = await reseller();
    const other = await reseller();
    const mk = async (suffix: string, over: Record<string, unknown> = {}) => {
      const o = await order(`${suffix}-${r}`, r, over);
      await db.$transaction((tx) => recordPendingProfit(tx, o, new D(o.profit)));
      return o;
    };
    const ok = await mk("ok");
    expect(await messages(inv)).toEqual([]);

    // Credited while still open.
    const early = await mk("early", { status: "sending" });
    await db.$transaction((tx) => settleProfit(tx, early, new D("0.5")));
    // Finished and credited a different amount than its profit.
    const wrong = await mk("wrong", { status: "finished" });
    await db.$transaction((tx) => settleProfit(tx, wrong, new D("0.4")));
    // Failed but credited.
    const failed = await mk("failed", { status: "failed" });
    await db.$transaction((tx) => settleProfit(tx, failed, new D("0.5")));
    // Booked to another reseller and another currency.
    const stray = await order(`stray-${r}`, r);
    await db.$transaction((tx) =>
      post(tx, [
        { resellerId: other, currency: "btc", bucket: "pending", kind: "order_profit_pending", amount: new D("0.5"), orderId: stray.id },
      ]),
    );
    // More released than was pending.
    const over = await order(`over-${r}`, r, { status: "finished" });
    await db.$transaction((tx) =>
      post(tx, [
        { resellerId: r, currency: "xmr", bucket: "pending", kind: "order_profit_pending", amount: new D("0.5"), orderId: over.id },
        { resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("0.5"), orderId: over.id },
      ]),
    );
    await db.$transaction((tx) =>
      post(tx, [
        { resellerId: r, currency: "xmr", bucket: "pending", kind: "order_profit_release", amount: new D("-1"), orderId: over.id },
      ]),
    );
    // A finished order of zero profit needs no credit; a keyless order's entry is an orphan.
    await order(`zero-${r}`, r, { status: "finished", profit: "0" });
    const keyless = await order(`keyless-${r}`, null);
    await rawEntry({ resellerId: r, amount: "0.5", orderId: keyless.id, kind: "order_profit_pending", bucket: "pending" });

    const got = await messages(inv);
    expect(got[0]).toBe("1 entries belong to orders without a reseller");
    expect(got.slice(1).sort()).toEqual(
      [
        `order ${early.id} is sending but its profit was already closed`,
        `finished order ${wrong.id} was credited 0.4, its profit is 0.5`,
        `order ${failed.id} failed but its profit was credited`,
        `entry ${(await db.ledgerEntry.findFirstOrThrow({ where: { orderId: stray.id } })).id} of order ${stray.id} is booked to ${other}/btc, not ${r}/xmr`,
        `order ${over.id} has a negative pending profit -0.5`,
        `order ${over.id} is finished but -0.5 of its profit is still pending`,
      ].sort(),
    );
    expect(got.some((m) => m.includes(ok.id))).toBe(false);
  });

  it("names balances in (reseller, currency) order, whatever order they were written in", async () => {
    const inv = byName("each balance");
    const before = await messages(inv, 1000);
    for (const [r, c] of [
      ["zz-b", "eth"],
      ["zz-a", "eth"],
      ["zz-a", "btc"],
    ]) {
      if (!(await db.reseller.findUnique({ where: { id: r } })))
        await db.reseller.create({ data: { id: r, walletAddress: `0x${r === "zz-a" ? "a" : "b"}${"0".repeat(39)}` } });
      await db.balance.create({ data: { resellerId: r, currency: c, available: "1" } });
    }
    const after = (await messages(inv, 1000)).filter((m) => !before.includes(m));
    expect(after).toEqual([
      "balance zz-a/btc available is 1 but its entries sum to 0",
      "balance zz-a/eth available is 1 but its entries sum to 0",
      "balance zz-b/eth available is 1 but its entries sum to 0",
    ]);
    for (const [r, c] of [
      ["zz-b", "eth"],
      ["zz-a", "eth"],
      ["zz-a", "btc"],
    ])
      await db.balance.update({ where: { resellerId_currency: { resellerId: r, currency: c } }, data: { available: "0" } });
  });

  it("an open order whose pending profit was released or reversed is named as closed too early", async () => {
    const inv = byName("every order's profit");
    const before = await messages(inv, 1000);
    const r = await reseller();
    const released = await order(`rel-${r}`, r, { status: "exchanging" });
    const reversed = await order(`rev-${r}`, r, { status: "confirming" });
    for (const [o, kind] of [
      [released, "order_profit_release"],
      [reversed, "order_profit_reverse"],
    ] as const)
      await db.$transaction((tx) =>
        post(tx, [
          { resellerId: r, currency: "xmr", bucket: "pending", kind: "order_profit_pending", amount: new D("0.5"), orderId: o.id },
          { resellerId: r, currency: "xmr", bucket: "pending", kind, amount: new D("-0.5"), orderId: o.id },
        ]),
      );
    const after = (await messages(inv, 1000)).filter((m) => !before.includes(m));
    expect(after.sort()).toEqual(
      [
        `order ${released.id} is exchanging but its profit was already closed`,
        `order ${reversed.id} is confirming but its profit was already closed`,
      ].sort(),
    );
  });

  it("settling or reversing a keyless order posts nothing; an overdraft names the balance", async () => {
    const keyless = await order(`kl-${++n}`, null, { status: "finished" });
    const count = await db.ledgerEntry.count();
    await db.$transaction((tx) => settleProfit(tx, keyless, new D("0.5")));
    await db.$transaction((tx) => reverseProfit(tx, keyless));
    await db.$transaction((tx) => recordPendingProfit(tx, keyless, new D("0.5")));
    expect(await db.ledgerEntry.count()).toBe(count);
    const r = await reseller();
    const err = await db
      .$transaction((tx) =>
        post(tx, [{ resellerId: r, currency: "dot", bucket: "available", kind: "order_profit_settle", amount: new D("-1") }]),
      )
      .catch((e) => e);
    expect(err).toBeInstanceOf(InsufficientBalanceError);
    expect(err).toMatchObject({
      name: "InsufficientBalanceError",
      resellerId: r,
      currency: "dot",
      message: `balance of ${r} in dot is too low for this change`,
    });
  });

  it("reads orders page by page: a violation on the last of several pages is found", async () => {
    const inv = byName("every order's profit");
    const before = (await messages(inv)).length;
    const r = await reseller();
    await db.order.createMany({
      data: Array.from({ length: 1_050 }, (_, i) => ({
        id: `zz${String(i).padStart(6, "0")}-${r}`,
        resellerId: r,
        fromCurrency: "btc",
        toCurrency: "xmr",
        fromAmount: "1",
        rate: "1",
        rawToAmount: "1",
        toAmount: "1",
        platformFeeBps: 25,
        markupBps: 0,
        profit: "0",
        payinAddress: "x",
        payoutAddress: "y",
        status: "finished",
        expiresAt: new Date(),
      })),
    });
    expect(await messages(inv, 1000)).toHaveLength(before);
    const last = await order(`zzzz-last-${r}`, r, { status: "finished", profit: "0.5" });
    const after = await messages(inv, 1000);
    expect(after).toContain(`finished order ${last.id} has 0 profit credits, expected 1`);
  });
});
