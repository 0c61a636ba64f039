import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import {
  CONVERSION,
  NETWORK_FEES,
  payoutsInFlight,
  providerPending,
  providerReceivable,
  REVENUE,
  treasury,
  WORLD,
} from "@/lib/ledger/accounts";
import { checkLedger } from "@/lib/ledger/check";
import {
  bookedPayout,
  getBalances,
  platformRevenue,
  post,
  postJournal,
  recordPayoutMined,
  recordPayoutUnmined,
  recordPendingProfit,
  recordTreasuryDeposit,
  reserveWithdrawal,
  restoreWithdrawal,
  reverseProfit,
  settleProfit,
  settleWithdrawal,
  UnbalancedJournalError,
} from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { rebuildChannelRollup } from "../support/channel-rollup";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { withdrawalRow } from "../support/withdrawals";

// The double-entry journals on both real databases: each posting is a journal whose lines sum
// to zero per currency, across the resellers' balances and the operator's accounts; the
// database itself refuses an unbalanced journal, a line added to a written journal, a line
// without a journal, and any change to what was written.

const DATABASES = process.env.MUTATION_RUN === "1" ? (["sqlite"] as const) : (["sqlite", "postgres"] as const);

describe.each(DATABASES)("journals on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  let n = 0;
  const reseller = async () => {
    const id = `j${++n}`;
    await db.reseller.create({ data: { id, walletAddress: `0x${n.toString(16).padStart(40, "d")}` } });
    return id;
  };
  /** Every account's balance from the operator's lines, per currency. */
  const accounts = async () => {
    const rows = await db.journalLine.findMany();
    const out: Record<string, string> = {};
    const sums = new Map<string, InstanceType<typeof D>>();
    for (const r of rows) sums.set(`${r.account} ${r.currency}`, (sums.get(`${r.account} ${r.currency}`) ?? new D(0)).plus(r.amount));
    for (const [k, v] of [...sums].sort()) if (!v.isZero()) out[k] = v.toFixed();
    return out;
  };
  const refused = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return String((e as Error).message);
    }
    return "accepted";
  };

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(async () => t.cleanup());

  it("an order created then finished: pending against the provider's pending commission, then commission = profit + revenue", async () => {
    const r = await reseller();
    const order = { id: `o-${r}`, resellerId: r, toCurrency: "eth", provider: "changenow", rawToAmount: "2", platformFeeBps: 25 };
    await db.order.create({
      data: {
        ...order,
        fromCurrency: "btc",
        fromAmount: "0.1",
        rate: "20",
        rawToAmount: "2",
        toAmount: "1.97",
        platformFeeBps: 25,
        markupBps: 150,
        profit: "0.03",
        payinAddress: "x",
        payoutAddress: "y",
        status: "waiting",
        expiresAt: new Date(),
      },
    });
    await db.$transaction((tx) => recordPendingProfit(tx, order, new D("0.03")));
    expect(await accounts()).toEqual({ [`${providerPending("changenow")} eth`]: "-0.03" });
    // Finished on a smaller deposit: 0.025 earned; revenue 2 x 25 / 9975 rounded down to 8 places.
    const revenue = platformRevenue("2", 25, 8);
    expect(revenue.toFixed()).toBe("0.00501253");
    // As the worker does: the order is re-priced on the deposit and finished, its profit settled, in one transaction.
    await db.$transaction(async (tx) => {
      await tx.order.update({ where: { id: order.id }, data: { status: "finished", profit: "0.025" } });
      await settleProfit(tx, order, new D("0.025"));
    });
    expect(await accounts()).toEqual({
      [`${REVENUE} eth`]: "0.00501253",
      [`${providerReceivable("changenow")} eth`]: "-0.03001253",
    });
    expect(await getBalances(db, r)).toEqual([{ currency: "eth", pending: "0", available: "0.025", reserved: "0" }]);
    const journals = await db.journal.findMany({ where: { orderId: order.id }, orderBy: { createdAt: "asc" } });
    expect(journals.map((j) => [j.kind, j.lines])).toEqual([
      ["order_created", 2],
      ["order_finished", 5],
    ]);
    await rebuildChannelRollup(db); // the order was written around lib/orders
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  it("an order created then failed: the pending pair is voided, nothing is owed", async () => {
    const before = await accounts();
    const r = await reseller();
    const order = { id: `f-${r}`, resellerId: r, toCurrency: "xmr", provider: null, rawToAmount: "50", platformFeeBps: 25 };
    await db.order.create({
      data: {
        ...order,
        fromCurrency: "btc",
        fromAmount: "1",
        rate: "50",
        rawToAmount: "50",
        toAmount: "49.25",
        platformFeeBps: 25,
        markupBps: 150,
        profit: "0.75",
        payinAddress: "x",
        payoutAddress: "y",
        status: "waiting",
        expiresAt: new Date(),
      },
    });
    await db.$transaction((tx) => recordPendingProfit(tx, order, new D("0.75")));
    expect((await accounts())[`${providerPending(null)} xmr`]).toBe("-0.75");
    await db.$transaction((tx) => reverseProfit(tx, order));
    expect(await accounts()).toEqual(before);
    expect(await getBalances(db, r)).toEqual([{ currency: "xmr", pending: "0", available: "0", reserved: "0" }]);
  });

  it("a withdrawal queued then confirmed: reserved, converted at the recorded amounts, paid out of the hot wallet (with its network fee)", async () => {
    const r = await reseller();
    await db.$transaction((tx) => recordTreasuryDeposit(tx, { chainId: 31337, asset: "eth", amount: new D(10) }));
    await db.$transaction((tx) =>
      postJournal(tx, {
        kind: "adjustment",
        postings: [
          { resellerId: r, currency: "btc", bucket: "available", kind: "order_profit_settle", amount: new D("0.01") },
          { resellerId: r, currency: "eth", bucket: "available", kind: "order_profit_settle", amount: new D("0.5") },
        ],
        lines: [
          { account: WORLD, currency: "btc", amount: new D("-0.01") },
          { account: WORLD, currency: "eth", amount: new D("-0.5") },
        ],
      }),
    );
    const before = await accounts();
    const w = {
      id: `w-${r}`,
      resellerId: r,
      asset: "eth",
      chainId: 31337,
      amount: "0.7",
      legs: [
        { currency: "btc", amount: "0.01" },
        { currency: "eth", amount: "0.5" },
      ],
    };
    await db.withdrawal.create({ data: withdrawalRow(w) });
    await db.$transaction((tx) => reserveWithdrawal(tx, w));
    expect(await accounts()).toEqual(before); // the reservation is the reseller's own
    await db.$transaction((tx) => settleWithdrawal(tx, w, undefined, { asset: "eth", amount: new D("0.000021") }));
    expect(await accounts()).toEqual({
      ...before,
      [`${CONVERSION} btc`]: "0.01",
      [`${CONVERSION} eth`]: "-0.2",
      [`${NETWORK_FEES} eth`]: "-0.000021",
      [`${treasury(31337, "eth")} eth`]: "-9.299979",
    });
    expect(await getBalances(db, r)).toEqual([
      { currency: "btc", pending: "0", available: "0", reserved: "0" },
      { currency: "eth", pending: "0", available: "0", reserved: "0" },
    ]);
  });

  it("a withdrawal mined, reorganised out, mined again in another block, then confirmed: in flight meanwhile, paid out once with the last fee", async () => {
    const r = await reseller();
    await db.$transaction((tx) =>
      postJournal(tx, {
        kind: "adjustment",
        postings: [
          { resellerId: r, currency: "btc", bucket: "available", kind: "order_profit_settle", amount: new D("0.01") },
          { resellerId: r, currency: "eth", bucket: "available", kind: "order_profit_settle", amount: new D("0.5") },
        ],
        lines: [
          { account: WORLD, currency: "btc", amount: new D("-0.01") },
          { account: WORLD, currency: "eth", amount: new D("-0.5") },
        ],
      }),
    );
    const before = await accounts();
    const legs = [
      { currency: "btc", amount: "0.01" },
      { currency: "eth", amount: "0.5" },
    ];
    const w = { id: `wm-${r}`, resellerId: r, asset: "eth", chainId: 31337, amount: "0.7", legs };
    await db.withdrawal.create({ data: withdrawalRow(w, { status: "sent", txHash: "0xabc" }) });
    const fee1 = { asset: "eth", amount: new D("0.000021") };
    const fee2 = { asset: "eth", amount: new D("0.000042000000000001") };
    /** The accounts as they were before, moved by these amounts. */
    const moved = (by: Record<string, string>) => {
      const out: Record<string, string> = { ...before };
      for (const [k, v] of Object.entries(by)) {
        const x = new D(out[k] ?? 0).plus(v);
        if (x.isZero()) delete out[k];
        else out[k] = x.toFixed();
      }
      return out;
    };
    // (The test above leaves its withdrawal queued: only this one's violations count.)
    const violationsOf = async (id: string) => (await checkLedger(db)).violations.filter((v) => v.message.includes(id));
    const [hot, inFlight, fees] = [`${treasury(31337, "eth")} eth`, `${payoutsInFlight(31337, "eth")} eth`, `${NETWORK_FEES} eth`];
    await db.$transaction((tx) => reserveWithdrawal(tx, w));
    expect(await db.$transaction((tx) => bookedPayout(tx, w))).toBeNull();

    // Mined in a block, not yet deep enough: 0.7 and the gas have left the hot wallet; 0.7 is in flight.
    await db.$transaction((tx) => recordPayoutMined(tx, w, fee1));
    expect(await accounts()).toEqual(moved({ [hot]: "0.700021", [inFlight]: "-0.7", [fees]: "-0.000021" }));
    expect(await db.$transaction((tx) => bookedPayout(tx, w))).toEqual({ fee: fee1 });
    expect(await violationsOf(w.id)).toEqual([]);

    // Its block leaves the chain: booked back exactly, in flight and fee both.
    await db.$transaction((tx) => recordPayoutUnmined(tx, w, fee1));
    expect(await accounts()).toEqual(before);
    expect(await db.$transaction((tx) => bookedPayout(tx, w))).toBeNull();

    // Mined again, in a block with another base fee, then confirmed: paid out of in flight, no second fee.
    await db.$transaction((tx) => recordPayoutMined(tx, w, fee2));
    await db.withdrawal.update({ where: { id: w.id }, data: { status: "confirmed" } });
    await db.payoutTx.create({
      data: { withdrawalId: w.id, chainId: 31337, fromAddress: "0xhot", accountNonce: 0, rawTx: "0x", hash: "0xabc", status: "mined" },
    });
    await db.$transaction((tx) => settleWithdrawal(tx, w, undefined, fee2, { fromInFlight: true }));
    expect(await accounts()).toEqual(
      moved({
        [`${CONVERSION} btc`]: "0.01",
        [`${CONVERSION} eth`]: "-0.2",
        [fees]: "-0.000042000000000001",
        [hot]: "0.700042000000000001",
      }),
    );
    expect(await getBalances(db, r)).toEqual([
      { currency: "btc", pending: "0", available: "0", reserved: "0" },
      { currency: "eth", pending: "0", available: "0", reserved: "0" },
    ]);
    const journals = await db.journal.findMany({ where: { withdrawalId: w.id }, orderBy: { createdAt: "asc" } });
    expect(journals.map((j) => [j.kind, j.lines])).toEqual([
      ["withdrawal_queued", 4],
      ["withdrawal_mined", 4],
      ["withdrawal_unmined", 4],
      ["withdrawal_mined", 4],
      ["withdrawal_confirmed", 5],
    ]);
    expect(await db.$transaction((tx) => bookedPayout(tx, w))).toEqual({ fee: fee2 });
    expect(await violationsOf(w.id)).toEqual([]);
  });

  it("an ERC-20 payout with its gas paid in ETH: the token moves through in flight, the fee is booked and read back in ETH", async () => {
    const r = await reseller();
    await db.$transaction((tx) => recordTreasuryDeposit(tx, { chainId: 8453, asset: "usdc", amount: new D(100) }));
    await db.$transaction((tx) => recordTreasuryDeposit(tx, { chainId: 8453, asset: "eth", amount: new D(1) }));
    await db.$transaction((tx) =>
      post(tx, [{ resellerId: r, currency: "usdc", bucket: "available", kind: "order_profit_settle", amount: new D("25") }]),
    );
    const before = await accounts();
    const legs = [{ currency: "usdc", amount: "25" }];
    const w = { id: `wt-${r}`, resellerId: r, asset: "usdc", chainId: 8453, amount: "25", legs };
    await db.withdrawal.create({ data: withdrawalRow(w, { status: "sent", txHash: "0xt0", decimals: 6 }) });
    await db.$transaction((tx) => reserveWithdrawal(tx, w));
    const gas = { asset: "eth", amount: new D("0.000065000000000003") };
    await db.$transaction((tx) => recordPayoutMined(tx, w, gas));
    // The token leaves the hot wallet into payouts in flight; the gas leaves the chain's ETH account.
    const moved: Record<string, string> = { ...before };
    for (const [k, v] of [
      [`${treasury(8453, "usdc")} usdc`, "25"],
      [`${payoutsInFlight(8453, "usdc")} usdc`, "-25"],
      [`${treasury(8453, "eth")} eth`, "0.000065000000000003"],
      [`${NETWORK_FEES} eth`, "-0.000065000000000003"],
    ])
      moved[k] = new D(before[k] ?? 0).plus(v).toFixed();
    expect(await accounts()).toEqual(moved);
    expect(await db.$transaction((tx) => bookedPayout(tx, w))).toEqual({ fee: gas });
    // Reorganised out: exactly that comes back, in both assets.
    await db.$transaction((tx) => recordPayoutUnmined(tx, w, gas));
    expect(await accounts()).toEqual(before);
    expect(await db.$transaction((tx) => bookedPayout(tx, w))).toBeNull();
  });

  it("a confirmed withdrawal migrated from before journals counts as paid out of the hot wallet, with no fee known", async () => {
    const r = await reseller();
    await db.$transaction((tx) =>
      post(tx, [{ resellerId: r, currency: "btc", bucket: "available", kind: "order_profit_settle", amount: new D("0.02") }]),
    );
    const legs = [{ currency: "btc", amount: "0.02" }];
    const w = { id: `wg-${r}`, resellerId: r, asset: "eth", chainId: 1, amount: "0.4", legs };
    await db.withdrawal.create({ data: withdrawalRow(w, { status: "confirmed", txHash: "0xg0" }) });
    await db.$transaction((tx) => reserveWithdrawal(tx, w));
    expect(await db.$transaction((tx) => bookedPayout(tx, w))).toBeNull();
    // As the journals migration writes a settled withdrawal: its reserved leg, the conversion, the treasury.
    await db.$transaction((tx) =>
      postJournal(tx, {
        kind: "migrated:withdrawal_settle",
        withdrawalId: w.id,
        postings: [
          { resellerId: r, currency: "btc", bucket: "reserved", kind: "withdrawal_settle", amount: new D("-0.02"), withdrawalId: w.id },
        ],
        lines: [
          { account: CONVERSION, currency: "btc", amount: new D("0.02") },
          { account: CONVERSION, currency: "eth", amount: new D("-0.4") },
          { account: treasury(1, "eth"), currency: "eth", amount: new D("0.4") },
        ],
      }),
    );
    expect(await db.$transaction((tx) => bookedPayout(tx, w))).toEqual({ fee: null });
  });

  it("a withdrawal queued then failed: the reservation is voided", async () => {
    const r = await reseller();
    await db.$transaction((tx) =>
      postJournal(tx, {
        kind: "adjustment",
        postings: [{ resellerId: r, currency: "eth", bucket: "available", kind: "order_profit_settle", amount: new D("0.5") }],
        lines: [{ account: WORLD, currency: "eth", amount: new D("-0.5") }],
      }),
    );
    const before = await accounts();
    const w = { id: `wf-${r}`, resellerId: r, asset: "eth", chainId: 31337, amount: "0.5", legs: [{ currency: "eth", amount: "0.5" }] };
    await db.withdrawal.create({ data: withdrawalRow(w) });
    await db.$transaction((tx) => reserveWithdrawal(tx, w));
    expect((await getBalances(db, r))[0]).toMatchObject({ available: "0", reserved: "0.5" });
    await db.$transaction((tx) => restoreWithdrawal(tx, w));
    expect((await getBalances(db, r))[0]).toMatchObject({ available: "0.5", reserved: "0" });
    expect(await accounts()).toEqual(before);
    await db.withdrawal.update({ where: { id: w.id }, data: { status: "failed" } });
  });

  it("a failed order's journal: kind order_failed, the pending pair voided against its provider's pending commission", async () => {
    const r = await reseller();
    const order = { id: `fp-${r}`, resellerId: r, toCurrency: "xmr", provider: "changenow", rawToAmount: "50", platformFeeBps: 25 };
    await db.order.create({
      data: {
        ...order,
        fromCurrency: "btc",
        fromAmount: "1",
        rate: "50",
        toAmount: "49.25",
        markupBps: 150,
        profit: "0.75",
        payinAddress: "x",
        payoutAddress: "y",
        status: "waiting",
        expiresAt: new Date(),
      },
    });
    await db.$transaction((tx) => recordPendingProfit(tx, order, new D("0.75")));
    await db.$transaction((tx) => reverseProfit(tx, order));
    const journals = await db.journal.findMany({ where: { orderId: order.id }, orderBy: { createdAt: "asc" } });
    expect(journals.map((j) => j.kind)).toEqual(["order_created", "order_failed"]);
    const failed = journals[1];
    expect(
      (await db.ledgerEntry.findMany({ where: { journalId: failed.id } })).map((e) => [
        e.resellerId,
        e.bucket,
        e.kind,
        e.currency,
        e.amount,
      ]),
    ).toEqual([[r, "pending", "order_profit_reverse", "xmr", "-0.75"]]);
    expect((await db.journalLine.findMany({ where: { journalId: failed.id } })).map((l) => [l.account, l.currency, l.amount])).toEqual([
      [providerPending("changenow"), "xmr", "0.75"],
    ]);
    // A keyless order has no books: reversing it writes no journal.
    const keyless = { ...order, id: `fk-${r}`, resellerId: null };
    const count = await db.journal.count();
    await db.$transaction((tx) => reverseProfit(tx, keyless));
    expect(await db.journal.count()).toBe(count);
  });

  it("a payout reverted: the withdrawal_failed journal restores the legs and books the reverted transaction's fee", async () => {
    const r = await reseller();
    await db.$transaction((tx) =>
      postJournal(tx, {
        kind: "adjustment",
        postings: [{ resellerId: r, currency: "eth", bucket: "available", kind: "order_profit_settle", amount: new D("0.5") }],
        lines: [{ account: WORLD, currency: "eth", amount: new D("-0.5") }],
      }),
    );
    const w = { id: `wr-${r}`, resellerId: r, asset: "eth", chainId: 31337, amount: "0.5", legs: [{ currency: "eth", amount: "0.5" }] };
    await db.withdrawal.create({ data: withdrawalRow(w, { status: "sent", txHash: "0xrev" }) });
    await db.$transaction((tx) => reserveWithdrawal(tx, w));
    // Mined with no fee known: on chain in the books, no fee.
    await db.$transaction((tx) => recordPayoutMined(tx, w, null));
    expect(await db.$transaction((tx) => bookedPayout(tx, w))).toEqual({ fee: null });
    await db.$transaction((tx) => recordPayoutUnmined(tx, w, null));
    expect(await db.$transaction((tx) => bookedPayout(tx, w))).toBeNull();
    const fee = { asset: "eth", amount: new D("0.000021") };
    await db.$transaction((tx) => restoreWithdrawal(tx, w, undefined, fee));
    expect((await getBalances(db, r))[0]).toMatchObject({ available: "0.5", reserved: "0" });
    const failed = await db.journal.findFirstOrThrow({ where: { withdrawalId: w.id, kind: "withdrawal_failed" } });
    expect(failed.lines).toBe(4);
    expect(
      (await db.ledgerEntry.findMany({ where: { journalId: failed.id }, orderBy: { id: "asc" } })).map((e) => [e.bucket, e.kind, e.amount]),
    ).toEqual([
      ["reserved", "withdrawal_restore", "-0.5"],
      ["available", "withdrawal_restore", "0.5"],
    ]);
    expect(
      (await db.journalLine.findMany({ where: { journalId: failed.id }, orderBy: { id: "asc" } })).map((l) => [
        l.account,
        l.currency,
        l.amount,
      ]),
    ).toEqual([
      [NETWORK_FEES, "eth", "-0.000021"],
      [treasury(31337, "eth"), "eth", "0.000021"],
    ]);
    await db.withdrawal.update({ where: { id: w.id }, data: { status: "failed" } });
  });

  it("the code refuses an unbalanced journal before writing anything", async () => {
    const r = await reseller();
    const p = db.$transaction((tx) =>
      postJournal(tx, {
        kind: "adjustment",
        postings: [{ resellerId: r, currency: "eth", bucket: "available", kind: "order_profit_settle", amount: new D("1") }],
        lines: [{ account: WORLD, currency: "eth", amount: new D("-0.999999999999999999") }],
      }),
    );
    await expect(p).rejects.toBeInstanceOf(UnbalancedJournalError);
    await expect(p).rejects.toThrow("does not balance in eth: its lines sum to 0.000000000000000001");
    expect(await getBalances(db, r)).toEqual([]);
  });

  it("the database refuses an unbalanced journal, a line without a journal or for a written one, and any change", async () => {
    const r = await reseller();
    const insert = async (jid: string, lines: [string, string][], count = lines.length + 1) =>
      db.$transaction(async (tx) => {
        await tx.ledgerEntry.create({
          data: { journalId: jid, resellerId: r, currency: "eth", bucket: "available", kind: "order_profit_settle", amount: "1" },
        });
        for (const [currency, amount] of lines) await tx.journalLine.create({ data: { journalId: jid, account: WORLD, currency, amount } });
        // Raw, so that the database's own message comes back (Prisma words SQLite's trigger errors as a foreign key's).
        await tx.$executeRawUnsafe(
          `INSERT INTO "Journal" ("id", "kind", "lines", "createdAt") VALUES ('${jid}', 'adjustment', ${count}, CURRENT_TIMESTAMP)`,
        );
      });
    // Off by 10^-18, in another currency, a line short of what it says, a single line.
    expect(await refused(insert(`${r}-a`, [["eth", "-0.999999999999999999"]]))).toMatch(/balance/i);
    expect(await refused(insert(`${r}-b`, [["btc", "-1"]]))).toMatch(/balance/i);
    expect(await refused(insert(`${r}-c`, [["eth", "-1"]], 3))).toMatch(/balance|lines/i);
    expect(await refused(insert(`${r}-d`, []))).toMatch(/balance|lines/i);
    // Balanced across several lines, exactly: accepted.
    expect(
      await refused(
        insert(`${r}-ok`, [
          ["eth", "-0.333333333333333333"],
          ["eth", "-0.666666666666666667"],
        ]),
      ),
    ).toBe("accepted");
    // A line for a journal already written; a line that belongs to none.
    expect(await refused(db.journalLine.create({ data: { journalId: `${r}-ok`, account: WORLD, currency: "eth", amount: "0" } }))).not.toBe(
      "accepted",
    );
    expect(
      await refused(
        db.ledgerEntry.create({ data: { resellerId: r, currency: "eth", bucket: "available", kind: "order_profit_settle", amount: "1" } }),
      ),
    ).not.toBe("accepted");
    // Append-only.
    expect(await refused(db.$executeRawUnsafe(`UPDATE "Journal" SET "kind" = 'x' WHERE "id" = '${r}-ok'`))).toMatch(/append-only/);
    expect(await refused(db.$executeRawUnsafe(`DELETE FROM "Journal" WHERE "id" = '${r}-ok'`))).toMatch(/append-only/);
    expect(await refused(db.$executeRawUnsafe(`UPDATE "JournalLine" SET "amount" = '5'`))).toMatch(/append-only/);
    expect(await refused(db.$executeRawUnsafe(`DELETE FROM "JournalLine"`))).toMatch(/append-only/);
    if (kind === "postgres") expect(await refused(db.$executeRawUnsafe(`TRUNCATE "JournalLine" CASCADE`))).toMatch(/append-only/);
    // Nothing of the refused journals was kept: the balance is only the accepted one's (it had no Balance row: checked below).
    expect(await db.journal.count({ where: { id: { startsWith: r } } })).toBe(1);
  });
});
