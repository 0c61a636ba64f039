import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, expect, inject, it } from "vitest";
import { LIST_COUNT_CAP } from "@/lib/orders/get-order";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { testDb } from "../support/api";
import { createOrdersRolledUp } from "../support/channel-rollup";
import { callServerAction, signInOverHttp } from "../support/dashboard";
import { orderRow } from "../support/orders";

// A reseller with more orders than the list counts (lib/orders' LIST_COUNT_CAP): the Orders
// page says "more than", its pages stop at the cap, and a page asked for past them is the last.

const origin = () => inject("baseUrl");
const wallet = privateKeyToAccount(generatePrivateKey());
let cookie = "";
let newest = "";

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
  // Written around lib/orders, finished without profit: the channel rollup counts them in the same transaction.
  for (let i = 0; i < rows.length; i += 2_000) await createOrdersRolledUp(testDb(), rows.slice(i, i + 2_000), { finished: true });
});

it("past the count cap, the Orders page says more than the cap and pages only through the newest", async () => {
  const first = await callServerAction(origin(), cookie, "listOrdersAction", [{}]);
  expect(first.result.data).toMatchObject({ total: LIST_COUNT_CAP, totalCapped: true, page: 1, pageCount: LIST_COUNT_CAP / 20 });
  expect(first.result.data.items[0].id).toBe(newest);

  const past = await callServerAction(origin(), cookie, "listOrdersAction", [{ page: 1_000_000 }]);
  expect(past.result.data).toMatchObject({ page: LIST_COUNT_CAP / 20, totalCapped: true });
  expect(past.result.data.items).toHaveLength(20);

  const cap = LIST_COUNT_CAP.toLocaleString("en-US");
  const html = await (await fetch(`${origin()}/dashboard/orders`, { headers: { cookie } })).text();
  expect(html).toContain(`More than ${cap} orders · page 1 of ${LIST_COUNT_CAP / 20} (the newest ${cap})`);
  expect(html).not.toContain("to reach older orders");
  const last = await (await fetch(`${origin()}/dashboard/orders?page=999999`, { headers: { cookie } })).text();
  expect(last).toContain(`page ${LIST_COUNT_CAP / 20} of ${LIST_COUNT_CAP / 20}`);
  expect(last).toContain("Filter by state, search by id or export CSV to reach older orders.");
});
