import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { payoutsInFlight } from "@/lib/ledger/accounts";
import { checkLedger, LEDGER_INVARIANTS, type LedgerInvariant } from "@/lib/ledger/check";
import {
  InsufficientBalanceError,
  type PaidWithdrawal,
  post,
  postJournal,
  recordPayoutMined,
  recordPayoutUnmined,
  recordPendingProfit,
  reserveWithdrawal,
  restoreWithdrawal,
  reverseProfit,
  settleProfit,
  settleWithdrawal,
} from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { rawJournal } from "../support/ledger";
import { orderRow } from "../support/orders";
import { type TempDb, tempDatabase } from "../support/sqlite-db";

// The integrity check itself: each invariant named with the first violations it finds, on a
// ledger broken on purpose (entries inserted around post(), balance rows edited by hand), and
// its paging over more entries and orders than one page holds.

// Under mutation testing (vitest.mutation.config.ts sets MUTATION_RUN) SQLite only: PostgreSQL
// doubles every mutant's time, and its own code path is listed as not covered in the note.
const DATABASES = process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);
const byName = (name: string): LedgerInvariant[] => LEDGER_INVARIANTS.filter((i) => i.name.startsWith(name));

describe.each(DATABASES)("ledger check on %s", (kind) => {
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
  const rawEntry = async (data: {
    resellerId: string;
    currency?: string;
    bucket?: string;
    kind?: string;
    amount: string;
    orderId?: string | null;
  }) => {
    const { ids } = await rawJournal(db, [{ currency: "xmr", bucket: "available", kind: "order_profit_settle", orderId: null, ...data }]);
    return { id: ids[0] };
  };
  const messages = async (invariants: LedgerInvariant[], maxViolations?: number) =>
    (await checkLedger(db, { invariants, maxViolations })).violations.map((v) => v.message);

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(async () => t.cleanup());

  it("an empty ledger passes every invariant", async () => {
    expect(await checkLedger(db)).toMatchObject({ ok: true, violations: [] });
  });

  it("sums balances over several pages of entries, exactly", async () => {
    const r = await reseller();
    const count = 4_100;
    await rawJournal(
      db,
      Array.from({ length: count }, () => ({
        resellerId: r,
        currency: "eth",
        bucket: "available",
        kind: "order_profit_settle",
        amount: "0.001",
      })),
    );
    await db.balance.create({ data: { resellerId: r, currency: "eth", available: "4.1" } });
    expect(await checkLedger(db)).toMatchObject({ ok: true, violations: [] });
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
    // An id that sorts before any letter: the check pages by id and must start below every id.
    const early = await mk("0early", { status: "sending" });
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
    // Right reseller, another currency; another reseller, the right currency.
    const strayCurrency = await order(`stray-cur-${r}`, r);
    const strayReseller = await order(`stray-res-${r}`, r);
    await db.$transaction((tx) =>
      post(tx, [
        {
          resellerId: r,
          currency: "btc",
          bucket: "pending",
          kind: "order_profit_pending",
          amount: new D("0.5"),
          orderId: strayCurrency.id,
        },
        {
          resellerId: other,
          currency: "xmr",
          bucket: "pending",
          kind: "order_profit_pending",
          amount: new D("0.5"),
          orderId: strayReseller.id,
        },
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
        `entry ${(await db.ledgerEntry.findFirstOrThrow({ where: { orderId: strayCurrency.id } })).id} of order ${strayCurrency.id} is booked to ${r}/btc, not ${r}/xmr`,
        `entry ${(await db.ledgerEntry.findFirstOrThrow({ where: { orderId: strayReseller.id } })).id} of order ${strayReseller.id} is booked to ${other}/xmr, not ${r}/xmr`,
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
        // (and, still unpriced, its profit is no longer what is pending)
        `order ${reversed.id} is confirming with a profit of 0.5 but 0 pending`,
      ].sort(),
    );
  });

  it("an unpriced open order whose pending profit is not its profit is named, by any amount; once priced, it may differ", async () => {
    const inv = byName("every order's profit");
    const before = await messages(inv, 1000);
    const r = await reseller();
    // Opened with its profit pending 1e-8 short (an opening's rounding slip), and one opened right.
    const short = await order(`short-${r}`, r, { profit: "0.50000001" });
    const right = await order(`right-${r}`, r, { status: "confirming", profit: "0.50000001" });
    await db.$transaction((tx) => recordPendingProfit(tx, short, new D("0.5")));
    await db.$transaction((tx) => recordPendingProfit(tx, right, new D("0.50000001")));
    expect((await messages(inv, 1000)).filter((m) => !before.includes(m))).toEqual([
      `order ${short.id} is waiting with a profit of 0.50000001 but 0.5 pending`,
    ]);
    // Its deposit priced (on to exchanging, lib/orders/advance-order.ts), its profit may change while its pending stays.
    await db.order.update({ where: { id: short.id }, data: { status: "exchanging", profit: "0.4" } });
    await db.order.update({ where: { id: right.id }, data: { status: "exchanging", profit: "0.6" } });
    expect((await messages(inv, 1000)).filter((m) => !before.includes(m))).toEqual([]);
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

  it("withdrawals: reserved, paid and restored per leg as their state says, one mined payout, booked to their reseller", async () => {
    const inv = byName("every withdrawal's");
    const before = await messages(inv, 1000);
    const r = await reseller();
    const other = await reseller();
    await db.$transaction((tx) =>
      post(tx, [
        { resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("100") },
        { resellerId: r, currency: "btc", bucket: "available", kind: "order_profit_settle", amount: new D("100") },
        { resellerId: other, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("100") },
      ]),
    );
    let w = 0;
    const mk = async (status: string, over: Record<string, unknown> = {}, legs: [string, string][] = [["xmr", "1"]]) => {
      const id = `0w${++w}-${r}`; // sorts before any letter, as above
      await db.withdrawal.create({
        data: {
          id,
          resellerId: r,
          status,
          asset: "eth",
          decimals: 18,
          chainId: 1,
          destination: "0xabc",
          amount: "1",
          usdValue: "1",
          feePolicy: "operator",
          fee: "0",
          confirmationNonce: `n-${id}`,
          ...over,
        },
      });
      for (const [currency, amount] of legs)
        await db.withdrawalLeg.create({ data: { withdrawalId: id, currency, amount, rate: "1", priceUsd: "1", assetPriceUsd: "1" } });
      return id;
    };
    const move = (
      id: string,
      kind: "withdrawal_reserve" | "withdrawal_settle" | "withdrawal_restore",
      amount: string,
      currency = "xmr",
      who = r,
    ) => {
      const a = new D(amount);
      const legs =
        kind === "withdrawal_reserve"
          ? ([
              ["available", a.neg()],
              ["reserved", a],
            ] as const)
          : kind === "withdrawal_settle"
            ? ([["reserved", a.neg()]] as const)
            : ([
                ["reserved", a.neg()],
                ["available", a],
              ] as const);
      return db.$transaction((tx) =>
        post(
          tx,
          legs.map(([bucket, x]) => ({ resellerId: who, currency, bucket, kind, amount: x, withdrawalId: id })),
        ),
      );
    };
    let nonce = 0;
    const tx = (withdrawalId: string, hash: string, status: string) =>
      db.payoutTx.create({
        data: { withdrawalId, chainId: 1, fromAddress: `0xhot-${r}`, accountNonce: nonce++, rawTx: "0x", hash: `${hash}-${r}`, status },
      });

    // Consistent ones: queued (reserved), confirmed (paid once), failed (restored).
    const queued = await mk("queued");
    await move(queued, "withdrawal_reserve", "1");
    const confirmed = await mk("confirmed", { txHash: `0xc1-${r}` });
    await move(confirmed, "withdrawal_reserve", "1");
    await move(confirmed, "withdrawal_settle", "1");
    await tx(confirmed, "0xc1", "mined");
    const failed = await mk("failed");
    await move(failed, "withdrawal_reserve", "1");
    await move(failed, "withdrawal_restore", "1");
    expect((await messages(inv, 1000)).filter((m) => !before.includes(m))).toEqual([]);

    // Broken ones, each named.
    const under = await mk("queued");
    await move(under, "withdrawal_reserve", "0.5");
    const paidTwice = await mk("confirmed", { txHash: `0xp2-${r}` });
    await move(paidTwice, "withdrawal_reserve", "1");
    await move(paidTwice, "withdrawal_settle", "1");
    await tx(paidTwice, "0xp1", "mined");
    await tx(paidTwice, "0xp2", "mined");
    const wrongHash = await mk("confirmed", { txHash: "0xother" });
    await move(wrongHash, "withdrawal_reserve", "1");
    await move(wrongHash, "withdrawal_settle", "1");
    await tx(wrongHash, "0xmined", "mined");
    const sentNoHash = await mk("sent");
    await move(sentNoHash, "withdrawal_reserve", "1");
    const minedButQueued = await mk("processing");
    await move(minedButQueued, "withdrawal_reserve", "1");
    await tx(minedButQueued, "0xq1", "mined");
    const halfRestored = await mk("failed");
    await move(halfRestored, "withdrawal_reserve", "1");
    await move(halfRestored, "withdrawal_restore", "0.4");
    const paidAndFailed = await mk("failed");
    await move(paidAndFailed, "withdrawal_reserve", "1");
    await move(paidAndFailed, "withdrawal_settle", "1");
    // Paid by its second transaction: the first was dropped, which is no payout.
    const replaced = await mk("confirmed", { txHash: `0xr2-${r}` });
    await move(replaced, "withdrawal_reserve", "1");
    await move(replaced, "withdrawal_settle", "1");
    await tx(replaced, "0xr1", "dropped");
    await tx(replaced, "0xr2", "mined");
    const confirmedNoHash = await mk("confirmed");
    await move(confirmedNoHash, "withdrawal_reserve", "1");
    await move(confirmedNoHash, "withdrawal_settle", "1");
    // Reserved more than was debited from available; put back less than was taken off reserved.
    const uneven = await mk("queued");
    await db.$transaction((t) =>
      post(t, [
        { resellerId: r, currency: "xmr", bucket: "available", kind: "withdrawal_reserve", amount: new D("-1"), withdrawalId: uneven },
        { resellerId: r, currency: "xmr", bucket: "reserved", kind: "withdrawal_reserve", amount: new D("1.1"), withdrawalId: uneven },
      ]),
    );
    const leaky = await mk("failed");
    await move(leaky, "withdrawal_reserve", "1");
    await db.$transaction((t) =>
      post(t, [
        { resellerId: r, currency: "xmr", bucket: "reserved", kind: "withdrawal_restore", amount: new D("-1"), withdrawalId: leaky },
        { resellerId: r, currency: "xmr", bucket: "available", kind: "withdrawal_restore", amount: new D("0.9"), withdrawalId: leaky },
      ]),
    );
    const zero = await mk("queued", { amount: "0" }, []);
    const foreign = await mk("queued", {}, [["btc", "1"]]);
    await move(foreign, "withdrawal_reserve", "1", "btc");
    await move(foreign, "withdrawal_reserve", "1", "xmr", other);
    const stray = {
      id: (
        await rawJournal(db, [
          { resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: "1", withdrawalId: queued },
        ])
      ).ids[0],
    };

    const got = (await messages(inv, 1000)).filter((m) => !before.includes(m));
    expect(got[0]).toBe("1 entries mix withdrawal kinds and withdrawal ids");
    const foreignEntries = await db.ledgerEntry.findMany({ where: { withdrawalId: foreign, resellerId: other }, orderBy: { id: "asc" } });
    expect(got.slice(1).sort()).toEqual(
      [
        `withdrawal ${under} (queued) xmr reserved 0.5 and debited 0.5, its leg is 1`,
        `withdrawal ${under} (queued) xmr reserves 0.5, not 1`,
        `withdrawal ${paidTwice} was paid by 2 transactions`,
        `confirmed withdrawal ${paidTwice} has no mined payout transaction 0xp2-${r}`,
        `confirmed withdrawal ${wrongHash} has no mined payout transaction 0xother`,
        `withdrawal ${sentNoHash} is sent without a transaction hash`,
        `withdrawal ${minedButQueued} is processing but its payout was recorded as mined`,
        `withdrawal ${halfRestored} (failed) xmr restored 0.4 and paid 0 of 1`,
        `withdrawal ${halfRestored} (failed) xmr still reserves 0.6`,
        `withdrawal ${paidAndFailed} (failed) xmr restored 0 and paid 1 of 1`,
        `withdrawal ${zero} pays 0`,
        `withdrawal ${confirmedNoHash} is confirmed without a transaction hash`,
        `confirmed withdrawal ${confirmedNoHash} has no mined payout transaction null`,
        `withdrawal ${uneven} (queued) xmr reserved 1.1 and debited 1, its leg is 1`,
        `withdrawal ${uneven} (queued) xmr reserves 1.1, not 1`,
        `withdrawal ${leaky} (failed) xmr took 1 off reserved but put back 0.9`,
        ...foreignEntries.map((e) => `entry ${e.id} of withdrawal ${foreign} is booked to reseller ${other}, not ${r}`),
        ...foreignEntries.map((e) => `entry ${e.id} of withdrawal ${foreign} is in xmr, which it does not convert`),
      ].sort(),
    );
    expect(stray.id).toBeGreaterThan(0);
  });

  it("payouts in flight: nothing while queued, all or nothing while sent, none once final; its fee booked back with it; its own chain and asset", async () => {
    const inv = byName("every withdrawal's");
    const before = await messages(inv, 1000);
    const r = await reseller();
    await db.$transaction((tx) =>
      post(tx, [{ resellerId: r, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D("100") }]),
    );
    let w = 0;
    let nonce = 0;
    /** A withdrawal of 1 xmr paid as 1 eth on chain 1, reserved; with its payout transaction mined when confirmed. */
    const mk = async (status: string, over: Record<string, unknown> = {}): Promise<PaidWithdrawal> => {
      const id = `0f${++w}-${r}`;
      const txHash = `0xf${w}-${r}`;
      await db.withdrawal.create({
        data: {
          id,
          resellerId: r,
          status,
          txHash: status === "queued" || status === "processing" ? null : txHash,
          asset: "eth",
          decimals: 18,
          chainId: 1,
          destination: "0xabc",
          amount: "1",
          usdValue: "1",
          feePolicy: "operator",
          fee: "0",
          confirmationNonce: `n-${id}`,
          legs: { create: [{ currency: "xmr", amount: "1", rate: "1", priceUsd: "1", assetPriceUsd: "1" }] },
          ...over,
        },
      });
      if (status === "confirmed")
        await db.payoutTx.create({
          data: {
            withdrawalId: id,
            chainId: 1,
            fromAddress: `0xhot-${r}`,
            accountNonce: nonce++,
            rawTx: "0x",
            hash: txHash,
            status: "mined",
          },
        });
      const paid = { id, resellerId: r, legs: [{ currency: "xmr", amount: "1" }], asset: "eth", chainId: 1, amount: "1" };
      await db.$transaction((tx) => reserveWithdrawal(tx, paid));
      return paid;
    };
    const fee = { asset: "eth", amount: new D("0.001") };
    const mined = (p: PaidWithdrawal, f: typeof fee | null = fee) => db.$transaction((tx) => recordPayoutMined(tx, p, f));
    const unmined = (p: PaidWithdrawal, f: typeof fee | null = fee) => db.$transaction((tx) => recordPayoutUnmined(tx, p, f));
    const settle = (p: PaidWithdrawal, fromInFlight: boolean) =>
      db.$transaction((tx) => settleWithdrawal(tx, p, undefined, fee, { fromInFlight }));

    // Consistent: sent and mined; confirmed out of in flight; confirmed without being seen mined;
    // mined then reorganised out (sent again, nothing on chain); confirmed, then reorganised out
    // (in flight the other way until mined again), and mined again.
    const sentMined = await mk("sent");
    await mined(sentMined);
    const viaInFlight = await mk("confirmed");
    await mined(viaInFlight);
    await settle(viaInFlight, true);
    const direct = await mk("confirmed");
    await settle(direct, false);
    const reorgedBefore = await mk("sent");
    await mined(reorgedBefore);
    await unmined(reorgedBefore);
    const reorgedAfter = await mk("sent", { reorgs: 1 });
    await mined(reorgedAfter);
    await settle(reorgedAfter, true);
    await unmined(reorgedAfter);
    const minedAgain = await mk("sent", { reorgs: 1 });
    await settle(minedAgain, false);
    await unmined(minedAgain);
    await mined(minedAgain, { asset: "eth", amount: new D("0.002") });
    const processingAfterReorg = await mk("processing", { reorgs: 1 });
    await settle(processingAfterReorg, false);
    await unmined(processingAfterReorg);
    expect((await messages(inv, 1000)).filter((m) => !before.includes(m))).toEqual([]);

    // Broken ones, each named.
    const confirmedInFlight = await mk("confirmed"); // paid out of the hot wallet again instead of out of in flight
    await mined(confirmedInFlight);
    await settle(confirmedInFlight, false);
    const minedTwice = await mk("sent");
    await mined(minedTwice);
    await mined(minedTwice);
    const processingMined = await mk("processing");
    await mined(processingMined);
    const failedInFlight = await mk("failed");
    await mined(failedInFlight);
    await db.$transaction((tx) => restoreWithdrawal(tx, failedInFlight));
    const feeKept = await mk("sent"); // booked back without its fee
    await mined(feeKept);
    await unmined(feeKept, null);
    const reorgedKept = await mk("sent", { reorgs: 1 }); // reorganised out twice, booked back twice
    await settle(reorgedKept, false);
    await unmined(reorgedKept);
    await unmined(reorgedKept);
    const otherChain = await mk("sent");
    const [line] = await db.$transaction(async (tx) => {
      const id = await postJournal(tx, {
        kind: "withdrawal_mined",
        withdrawalId: otherChain.id,
        postings: [],
        lines: [
          { account: "treasury:2:eth", currency: "eth", amount: new D(1) },
          { account: payoutsInFlight(2, "eth"), currency: "eth", amount: new D(-1) },
        ],
      });
      return tx.journalLine.findMany({ where: { journalId: id!, account: { startsWith: "payouts:" } } });
    });

    const got = (await messages(inv, 1000)).filter((m) => !before.includes(m));
    expect(got.sort()).toEqual(
      [
        `withdrawal ${confirmedInFlight.id} (confirmed) still has 1 eth in flight`,
        `withdrawal ${minedTwice.id} (sent) books 2 of its payout of 1 eth as on chain`,
        `withdrawal ${processingMined.id} (processing) books 1 of its payout of 1 eth as on chain`,
        `withdrawal ${failedInFlight.id} (failed) still has 1 eth in flight`,
        `withdrawal ${feeKept.id} (sent) books a network fee of 0.001 with no payout on chain`,
        `withdrawal ${reorgedKept.id} (sent) books -1 of its payout of 1 eth as on chain`,
        `line ${line.id} of withdrawal ${otherChain.id} is booked to payouts:in_flight:2:eth in eth, not payouts:in_flight:1:eth in eth`,
      ].sort(),
    );
  });

  it("payouts in flight are moved by a withdrawal's mined, unmined and confirmed journals only, each naming its withdrawal", async () => {
    const inv = byName("every journal");
    const before = await messages(inv, 1000);
    const pair = [
      { account: "treasury:1:eth", currency: "eth", amount: new D(1) },
      { account: payoutsInFlight(1, "eth"), currency: "eth", amount: new D(-1) },
    ];
    const adjustment = await db.$transaction((tx) => postJournal(tx, { kind: "adjustment", postings: [], lines: pair }));
    const orphan = await db.$transaction((tx) => postJournal(tx, { kind: "withdrawal_unmined", postings: [], lines: pair }));
    const got = (await messages(inv, 1000)).filter((m) => !before.includes(m));
    expect(got.sort()).toEqual(
      [
        `journal ${adjustment} (adjustment) books payouts in flight, which only a withdrawal's mined, unmined and confirmed journals do`,
        `journal ${orphan} (withdrawal_unmined) names no withdrawal`,
      ].sort(),
    );
  });

  it("reads orders page by page: a violation on the last of several pages is found", async () => {
    const inv = byName("every order's profit");
    const before = (await messages(inv)).length;
    const r = await reseller();
    await db.order.createMany({
      data: Array.from({ length: 1_050 }, (_, i) =>
        orderRow(`zz${String(i).padStart(6, "0")}-${r}`, {
          resellerId: r,
          toCurrency: "xmr",
          fromAmount: "1",
          payinAddress: "x",
          payoutAddress: "y",
          status: "finished",
          expiresAt: new Date(),
        }),
      ),
    });
    expect(await messages(inv, 1000)).toHaveLength(before);
    const last = await order(`zzzz-last-${r}`, r, { status: "finished", profit: "0.5" });
    const after = await messages(inv, 1000);
    expect(after).toContain(`finished order ${last.id} has 0 profit credits, expected 1`);
  });
});
