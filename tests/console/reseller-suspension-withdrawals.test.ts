import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setMarkupCap, suspendReseller, unsuspendReseller } from "@/lib/console/resellers/actions";
import type { Db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { checkLedger } from "@/lib/ledger/check";
import { getBalances } from "@/lib/ledger/ledger";
import type { Actor } from "@/lib/operators/audit";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { createSimulatedSender } from "@/lib/withdrawals/sender/simulated";
import { confirmWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// Issue 52: a suspended reseller's withdrawals wait (docs/operator.md, Resellers). A new one is
// refused with RESELLER_SUSPENDED, both its quote and the confirmation of a quote made before;
// one already queued stays queued, its amount reserved, however often the worker passes; once
// restored it is paid in its turn. The ledger balances throughout.

const OPERATOR: Actor = { operatorId: null, actor: "test-operator", role: "admin" };

const code = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return "OK";
};

describe.each(["sqlite", "postgres"] as const)("a suspended reseller's withdrawals on %s", (kind) => {
  let t: TempDb;
  let db: Db;
  settingsForTests({ PAYOUT_CHAIN_ID: "31337", WITHDRAWAL_MIN_USD: "10" });

  beforeAll(async () => {
    t = await tempDatabase(kind);
    db = t.db;
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("refuses new ones, leaves the queued one queued and reserved, and pays it once restored", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() } });
    await creditProfit(db, r.id, "eth", "0.5");
    const q = await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: ["eth"] });
    const queued = await confirmWithdrawal(db, {
      resellerId: r.id,
      nonce: q.nonce,
      signature: await signTypedDataJson(account, q.typedData),
    });
    expect(queued.status).toBe("queued");
    await creditProfit(db, r.id, "eth", "0.3");
    const later = await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: ["eth"] });

    await suspendReseller(db, { resellerId: r.id, by: OPERATOR, reason: "review" });
    expect(await code(quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: ["eth"] }))).toBe("RESELLER_SUSPENDED");
    const signature = await signTypedDataJson(account, later.typedData);
    expect(await code(confirmWithdrawal(db, { resellerId: r.id, nonce: later.nonce, signature }))).toBe("RESELLER_SUSPENDED");

    const sender = createSimulatedSender(31337);
    for (let i = 0; i < 4; i++) await runWithdrawalsOnce(db, sender, { now: new Date(Date.now() + i * 10_000) });
    const waiting = await db.withdrawal.findUniqueOrThrow({ where: { id: queued.id } });
    expect([waiting.status, waiting.txHash, waiting.leaseToken]).toEqual(["queued", null, null]);
    expect(await getBalances(db, r.id)).toEqual([{ currency: "eth", pending: "0", available: "0.3", reserved: "0.5" }]);
    expect(await db.withdrawal.count({ where: { resellerId: r.id } })).toBe(1);

    await unsuspendReseller(db, { resellerId: r.id, by: OPERATOR, reason: "cleared" });
    for (let i = 0; i < 5; i++) await runWithdrawalsOnce(db, sender, { now: new Date(Date.now() + (i + 10) * 10_000) });
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: queued.id } })).status).toBe("confirmed");
    // The quote made before the suspension is still good (it had not expired): confirmed now.
    const w2 = await confirmWithdrawal(db, { resellerId: r.id, nonce: later.nonce, signature });
    expect(w2.status).toBe("queued");
    expect(await getBalances(db, r.id)).toEqual([{ currency: "eth", pending: "0", available: "0", reserved: "0.3" }]);
    expect((await checkLedger(db)).violations).toEqual([]);
  });

  it("a markup cap lowers what is above it, refuses more, and writes one audit row; the same cap again writes none", async () => {
    const r = await db.reseller.create({
      data: { id: `r-cap-${kind}`, walletAddress: `0x${"c".repeat(39)}${kind === "sqlite" ? "1" : "2"}`, markupBps: 150 },
    });
    const first = await setMarkupCap(db, { resellerId: r.id, capBps: 100, by: OPERATOR, reason: "complaints" });
    expect(first).toMatchObject({
      changed: true,
      lowered: { reseller: true, keys: 0, widgets: 0 },
      reseller: { markupBps: 100, markupCapBps: 100 },
    });
    expect((await setMarkupCap(db, { resellerId: r.id, capBps: 100, by: OPERATOR, reason: "again" })).changed).toBe(false);
    expect(await db.auditEvent.count({ where: { targetId: r.id, action: "reseller.markup_cap" } })).toBe(1);
    expect(await code(setMarkupCap(db, { resellerId: "nosuch", capBps: 1, by: OPERATOR, reason: "x" }))).toBe("NOT_FOUND");
    expect(await code(setMarkupCap(db, { resellerId: r.id, capBps: -1, by: OPERATOR, reason: "x" }))).toBe("INVALID_REQUEST");
  });
});
