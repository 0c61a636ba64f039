import { parse } from "csv-parse/sync";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { STATEMENT_CSV_COLUMNS } from "@/lib/dashboard/export";
import { getBalances, recordPendingProfit, reverseProfit, settleProfit } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";
import { getResellerByWallet } from "@/lib/resellers/resellers";
import { testDb } from "../support/api";
import { writeOrdersRolledUp } from "../support/channel-rollup";
import { readDashboard, signInOverHttp } from "../support/dashboard";

// The Statements page, its server action and its CSV, from the built server: three months of a
// reseller's traffic booked through the ledger's own posting functions at moved times (orders
// finished and failed, already final, so no worker pass changes them), read back as the
// reseller's browser would. Each closing is the next opening and the last one is the Balance row.

const origin = () => inject("baseUrl");
const at = (iso: string) => new Date(iso);

describe("statements over HTTP", () => {
  const wallet = privateKeyToAccount(generatePrivateKey());
  let cookie = "";
  let otherCookie = "";
  let resellerId = "";

  /** An order already in its final state, its journals booked at the given times. */
  async function order(id: string, profit: string, createdAt: Date, end: { status: "finished" | "failed"; at: Date; earned?: string }) {
    const o = { id, resellerId, toCurrency: "eth", provider: null, rawToAmount: "2", platformFeeBps: 0 };
    // Written around lib/orders, in one transaction with its postings: the channel rollup counts
    // it, and no ledger check running meanwhile (other files share this database) sees a
    // finished order whose profit is still pending.
    await testDb().$transaction(async (tx) => {
      await writeOrdersRolledUp(tx, [
        {
          id,
          resellerId,
          fromCurrency: "usdt",
          toCurrency: "eth",
          fromAmount: "100",
          rate: "0.02",
          rawToAmount: "2",
          toAmount: "1.97",
          platformFeeBps: 0,
          markupBps: 150,
          profit: end.earned ?? profit,
          payinAddress: "x",
          payoutAddress: "y",
          status: end.status,
          expiresAt: createdAt,
          createdAt,
        },
      ]);
      await recordPendingProfit(tx, o, new D(profit), createdAt);
      if (end.status === "finished") await settleProfit(tx, o, new D(end.earned ?? profit), end.at);
      else await reverseProfit(tx, o, end.at);
    });
  }

  beforeAll(async () => {
    cookie = (await signInOverHttp(origin(), wallet)).cookie;
    otherCookie = (await signInOverHttp(origin(), privateKeyToAccount(generatePrivateKey()))).cookie;
    resellerId = (await getResellerByWallet(testDb(), { walletAddress: wallet.address }))!.id;
    const tag = resellerId.slice(-10);
    // July: 0.03 credited. August: 0.02 credited, then 0.005 more of it reversed when a second order fails in September.
    await order(`stm-a-${tag}`, "0.03", at("2026-07-10T00:00:00Z"), { status: "finished", at: at("2026-07-11T00:00:00Z") });
    await order(`stm-b-${tag}`, "0.02", at("2026-08-03T00:00:00Z"), { status: "finished", at: at("2026-08-04T00:00:00Z") });
    await order(`stm-c-${tag}`, "0.005", at("2026-08-31T23:59:59.999Z"), { status: "failed", at: at("2026-09-01T00:00:00Z") });
  });

  it("the read answers the months, each closing the next opening and the last the Balance row", async () => {
    const { status, body } = await readDashboard(origin(), cookie, "statements", {});
    expect(status).toBe(200);
    const months = body.months as {
      month: string;
      currency: string;
      opening: string;
      credited: string;
      reversed: string;
      withdrawn: string;
      closing: string;
    }[];
    const now = new Date().toISOString().slice(0, 7);
    expect(months.slice(0, 3)).toEqual([
      { month: "2026-07", currency: "eth", opening: "0", credited: "0.03", reversed: "0", withdrawn: "0", closing: "0.03" },
      { month: "2026-08", currency: "eth", opening: "0.03", credited: "0.025", reversed: "0", withdrawn: "0", closing: "0.055" },
      { month: "2026-09", currency: "eth", opening: "0.055", credited: "0", reversed: "0.005", withdrawn: "0", closing: "0.05" },
    ]);
    expect(months.at(-1)!.month).toBe(now);
    for (let i = 1; i < months.length; i++) expect(months[i].opening).toBe(months[i - 1].closing);
    const [b] = await getBalances(testDb(), resellerId);
    expect(months.at(-1)!.closing).toBe(new D(b.pending).plus(b.available).plus(b.reserved).toFixed());
    // Another reseller sees none of it.
    expect((await readDashboard(origin(), otherCookie, "statements", {})).body.months).toEqual([]);
  });

  it("the page shows the figures, and the CSV has the documented columns", async () => {
    const page = await fetch(`${origin()}/dashboard/statements`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-testid="statement-eth-2026-08"');
    expect(html).toMatch(/data-testid="statement-eth-2026-09".*?data-col="reversed">0\.005<.*?data-col="closing">0\.05</s);

    const res = await fetch(`${origin()}/dashboard/export/statements`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="statements-\d{4}-\d{2}-\d{2}\.csv"/);
    const text = await res.text();
    expect((parse(text, { to_line: 1 }) as string[][])[0]).toEqual([...STATEMENT_CSV_COLUMNS]);
    const rows = parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
    expect(rows.slice(0, 3)).toEqual([
      {
        month: "2026-07",
        currency: "eth",
        opening_balance: "0",
        profit_credited: "0.03",
        profit_reversed: "0",
        withdrawn: "0",
        closing_balance: "0.03",
      },
      {
        month: "2026-08",
        currency: "eth",
        opening_balance: "0.03",
        profit_credited: "0.025",
        profit_reversed: "0",
        withdrawn: "0",
        closing_balance: "0.055",
      },
      {
        month: "2026-09",
        currency: "eth",
        opening_balance: "0.055",
        profit_credited: "0",
        profit_reversed: "0.005",
        withdrawn: "0",
        closing_balance: "0.05",
      },
    ]);
  });

  it("without a session, the CSV is refused", async () => {
    expect((await fetch(`${origin()}/dashboard/export/statements`)).status).toBe(401);
  });
});
