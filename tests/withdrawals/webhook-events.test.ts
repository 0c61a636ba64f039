import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { createEndpoint } from "@/lib/webhooks/endpoints";
import { runWithdrawalsOnce } from "@/lib/withdrawals/process";
import { createSimulatedSender } from "@/lib/withdrawals/sender/simulated";
import { confirmWithdrawal, quoteWithdrawal } from "@/lib/withdrawals/withdrawals";
import { settingsForTests } from "../support/settings";
import { type TempDb, tempDatabase } from "../support/sqlite-db";
import { creditProfit, signTypedDataJson } from "../support/withdrawals";

// Withdrawal webhook events: written to the outbox with every change of status, in the same
// transaction (lib/withdrawals/announce.ts); the sender delivers them like the order events.

describe("withdrawal webhook events", () => {
  let t: TempDb;
  let db: Db;
  settingsForTests({ PAYOUT_CHAIN_ID: "31337", WITHDRAWAL_MIN_USD: "10" });

  beforeAll(async () => {
    t = await tempDatabase("sqlite");
    db = t.db;
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("queued, processing, sent and confirmed are each one event, in order, to the endpoints that want them", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await db.reseller.create({ data: { id: `r-${account.address.slice(2, 14)}`, walletAddress: account.address.toLowerCase() } });
    const all = await createEndpoint(db, { resellerId: r.id, url: "https://example.com/all", events: ["*"] });
    const orders = await createEndpoint(db, { resellerId: r.id, url: "https://example.com/orders", events: ["order.status_changed"] });
    const wd = await createEndpoint(db, { resellerId: r.id, url: "https://example.com/wd", events: ["withdrawal.status_changed"] });
    await creditProfit(db, r.id, "eth", "0.5");
    const q = await quoteWithdrawal(db, { resellerId: r.id, asset: "eth", currencies: "all" });
    const w = await confirmWithdrawal(db, { resellerId: r.id, nonce: q.nonce, signature: await signTypedDataJson(account, q.typedData) });
    const sender = createSimulatedSender(31337);
    for (let i = 0; i < 5; i++) await runWithdrawalsOnce(db, sender, { now: new Date(Date.now() + i * 10_000) });
    expect((await db.withdrawal.findUniqueOrThrow({ where: { id: w.id } })).status).toBe("confirmed");

    // In the order they were written (the deliveries' ids): events of one pass share a createdAt,
    // and messages with the same createdAt come back in the order of their random ids.
    const written = await db.webhookDelivery.findMany({
      where: { endpointId: all.endpoint.id },
      include: { message: true },
      orderBy: { id: "asc" },
    });
    expect(written.every((d) => d.message.subject === w.id)).toBe(true);
    const events = written.map((d) => JSON.parse(d.message.payload));
    expect(events.map((e) => [e.type, e.data.previousStatus ?? null, e.data.status])).toEqual([
      ["withdrawal.created", null, "queued"],
      ["withdrawal.status_changed", "queued", "processing"],
      ["withdrawal.status_changed", "processing", "sent"],
      ["withdrawal.status_changed", "sent", "confirmed"],
    ]);
    expect(events[3].data.withdrawal).toMatchObject({ id: w.id, status: "confirmed", asset: "eth" });
    const deliveries = async (endpointId: string) =>
      (await db.webhookDelivery.findMany({ where: { endpointId }, include: { message: true }, orderBy: { id: "asc" } })).map(
        (d) => d.message.type,
      );
    expect(await deliveries(all.endpoint.id)).toEqual(["withdrawal.created", ...Array(3).fill("withdrawal.status_changed")]);
    expect(await deliveries(wd.endpoint.id)).toEqual(Array(3).fill("withdrawal.status_changed"));
    expect(await deliveries(orders.endpoint.id)).toEqual([]);
  });
});
