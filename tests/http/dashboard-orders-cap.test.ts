import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, expect, inject, it } from "vitest";
import { LIST_COUNT_CAP } from "@/lib/orders/get-order";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { testDb } from "../support/api";
import { createOrdersRolledUp } from "../support/channel-rollup";
import { readDashboard, signInOverHttp } from "../support/dashboard";
import { orderRow } from "../support/orders";

// A reseller with more orders than the list counts (lib/orders' LIST_COUNT_CAP): the Orders
// page says "more than", and its keyset pages go on past the cap, to the oldest order.

const origin = () => inject("baseUrl");
const wallet = privateKeyToAccount(generatePrivateKey());
let cookie = "";
let newest = "";
let oldest = "";

beforeAll(async () => {
  const signedIn = await signInOverHttp(origin(), wallet);
  expect(signedIn.error).toBeNull();
  cookie = signedIn.cookie;
  const reseller = (await getResellerByWallet(testDb(), { walletAddress: wallet.address }))!;
  // Finished orders without profit: nothing for the worker or the ledger to do with them.
  const base = Date.now() - 86_400_000;
  const rows = Array.from({ length: LIST_COUNT_CAP + 1 }, (_, i) =>
    orderRow(`${reseller.id.slice(0, 8)}${i.toString(16).padStart(16, "0")}`.toLowerCase(), {
      resellerId: reseller.id,
      payinAddress: `addr${i}`,
      status: "finished",
      expiresAt: new Date(base),
      createdAt: new Date(base + i * 1000),
      updatedAt: new Date(base + i * 1000),
    }),
  );
  newest = rows[rows.length - 1].id;
  oldest = rows[0].id;
  // Written around lib/orders, finished without profit: the channel rollup counts them in the same transaction.
  for (let i = 0; i < rows.length; i += 2_000) await createOrdersRolledUp(testDb(), rows.slice(i, i + 2_000), { finished: true });
});

it("past the count cap, the Orders page says more than the cap, and its pages reach the oldest order", async () => {
  const first = await readDashboard(origin(), cookie, "orders", {});
  expect(first.body).toMatchObject({ total: LIST_COUNT_CAP, totalCapped: true, newer: null });
  expect(first.body.items[0].id).toBe(newest);

  const last = await readDashboard(origin(), cookie, "orders", { oldest: true });
  expect(last.body).toMatchObject({ totalCapped: true, older: null });
  expect(last.body.items).toHaveLength(20);
  expect(last.body.items.at(-1).id).toBe(oldest);
  // Previous from the oldest page: the 20 before it, nothing shown twice.
  const prev = await readDashboard(origin(), cookie, "orders", { before: last.body.newer });
  expect(prev.body.items).toHaveLength(20);
  const both = [...prev.body.items, ...last.body.items].map((o: { id: string }) => o.id);
  expect(new Set(both).size).toBe(40);

  const cap = LIST_COUNT_CAP.toLocaleString("en-US");
  const html = await (await fetch(`${origin()}/dashboard/orders`, { headers: { cookie } })).text();
  expect(html).toContain(`More than ${cap} orders`);
  const oldestPage = await (await fetch(`${origin()}/dashboard/orders?oldest=1`, { headers: { cookie } })).text();
  expect(oldestPage).toContain(oldest);
  // A cursor taken from a page goes in the URL; a malformed one is the first page, never an error.
  const next = await fetch(`${origin()}/dashboard/orders?after=${first.body.older}`, { headers: { cookie } });
  expect(next.status).toBe(200);
  expect(await next.text()).not.toContain(newest);
  for (const bad of ["x", "1_%27--", "99999999999999999_0", "-1_ab", "%00"]) {
    const r = await fetch(`${origin()}/dashboard/orders?after=${bad}&before=${bad}`, { headers: { cookie } });
    expect(r.status, bad).toBe(200);
    expect(await r.text(), bad).toContain(newest);
  }
});
