import "server-only";
import { setImmediate as nextTurn } from "node:timers/promises";
import { stringify } from "csv-stringify/sync";
import type { Db, Order } from "@/lib/db/client";
import { getLogger } from "@/lib/log";
import type { OrderQuery } from "./orders";
import { getStatements } from "./statements";

// CSV downloads of the dashboard: a reseller's orders (with the list page's filters) and its
// profit ledger. Streamed in keyset-paginated batches, so an export of any size holds one
// batch in memory; always scoped by the reseller id the caller got from the session.

// Rows per batch. On SQLite a batch's statement runs synchronously (better-sqlite3), and the
// batch becomes CSV in one go: 500 rows held the event loop 35 to 50 ms (bench/README.md), more
// than the dashboard's 20 ms budget; 100 hold about 5 ms, for a few more statements.
const BATCH = 100;
const DECIMAL_RE = /^-?\d+(\.\d+)?$/;
/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP CSV injection, and
 * the full-width forms some apps normalise). Checked on 2026-11-29 with LibreOffice Calc 7.4.7
 * (Debian 12), importing a CSV with "Evaluate formulas" on (`soffice --headless --infilter=
 * "CSV:44,34,76,1,,0,false,false,false,false,false,-1,true" --convert-to fods`): only cells
 * starting with "=" became formulas. A leading zero-width space, zero-width non-joiner, word
 * joiner, BOM, no-break space, LRM, RLM, LRE, "|" (a DDE call needs "=" first) or '"' stayed
 * text, and so did "+", "-" and "@", which Excel evaluates and so are prefixed here (issue 48).
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * One cell, safe to open in a spreadsheet. Exact decimals (our amounts, possibly negative)
 * stay numbers; any other text that could start a formula gets a leading apostrophe, which
 * spreadsheets show as text. csv-stringify's own escape_formulas cannot be used: it would
 * prefix a negative amount unless it were a JS number, and amounts must not become floats.
 */
export function csvCell(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "number") return String(value);
  if (DECIMAL_RE.test(value)) return value;
  return FORMULA_START.test(value) ? `'${value}` : value;
}

function csvStream<Row>(columns: readonly string[], batches: () => AsyncGenerator<Row[]>, toCells: (r: Row) => unknown[], what: string) {
  const encoder = new TextEncoder();
  const lines = (rows: unknown[][]) =>
    stringify(
      rows.map((cells) => cells.map((c) => csvCell(c as Parameters<typeof csvCell>[0]))),
      { record_delimiter: "\r\n", eof: true },
    );
  let it: AsyncGenerator<Row[]> | null = null;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(lines([[...columns]])));
    },
    async pull(controller) {
      // A turn of the event loop before every batch but the first. Otherwise, with a reader as
      // fast as the stream, nothing between batches waits on I/O (on SQLite the statement runs
      // synchronously) and the whole export ran as one task: 1,000 rows held the loop 50 to 70 ms.
      if (it) await nextTurn();
      it ??= batches();
      try {
        const next = await it.next();
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(lines(next.value.map(toCells))));
      } catch (e) {
        getLogger().error({ err: e }, `${what} export failed`);
        controller.error(e);
      }
    },
    async cancel() {
      await it?.return(undefined);
    },
  });
}

export const ORDER_CSV_COLUMNS = [
  "id",
  "created_at",
  "updated_at",
  "status",
  "from_currency",
  "from_amount",
  "amount_received",
  "to_currency",
  "to_amount",
  "amount_before_markup",
  "markup_bps",
  "platform_fee_bps",
  "expected_profit",
  "realised_profit",
  "payin_address",
  "payin_extra_id",
  "payout_address",
  "payout_extra_id",
  "refund_address",
  "refund_extra_id",
  "payin_hash",
  "payout_hash",
  "refund_state",
  "failure_reason",
  "api_key_prefix",
  "api_key_name",
  "channel",
] as const;

/**
 * Orders newest first, filtered like the Orders page (state, id prefix, channel). Keyset pages
 * by (createdAt, id), each one statement that starts at its cursor in the index the list uses
 * (lib/orders), plus one for the page's realised profit by the orders' own (orderId, kind) key,
 * and one for the API keys the page names that earlier pages did not (not every key of the reseller).
 * Like the list, it leaves out an order still being opened with the engine (no payinAddress
 * yet, lib/orders/create-order.ts): nobody sees one, and the list's indexes hold only the others.
 */
export function ordersCsv(db: Db, q: Pick<OrderQuery, "resellerId" | "status" | "search" | "channel">): ReadableStream<Uint8Array> {
  const search = q.search?.trim().toLowerCase() ?? "";
  const where = {
    resellerId: q.resellerId,
    payinAddress: { not: null },
    ...(q.status ? { status: q.status } : {}),
    ...(q.channel ? { channel: q.channel } : {}),
    ...(search ? { id: { startsWith: search } } : {}),
  };
  async function* batches() {
    // An id search that cannot match any id (the page refuses the same) exports only the header.
    if (search && !/^[0-9a-z]{1,64}$/.test(search)) return;
    // The keys of the orders exported so far: each batch reads only those it meets for the first time
    // (a reseller may have revoked thousands of keys; issue 48).
    const keys = new Map<string, { id: string; prefix: string; name: string }>();
    let after: { createdAt: Date; id: string } | null = null;
    for (;;) {
      // (createdAt, id) < the cursor's, written so that the createdAt bound is an index range on both databases.
      const keyset = after
        ? { createdAt: { lte: after.createdAt }, OR: [{ createdAt: { lt: after.createdAt } }, { id: { lt: after.id } }] }
        : {};
      const orders: Order[] = await db.order.findMany({
        where: { ...where, ...keyset },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: BATCH,
      });
      if (!orders.length) return;
      // By the orders' own (orderId, kind) key: they are the reseller's (with the reseller's condition
      // too, SQLite's planner took the reseller's ledger index and read its whole ledger).
      const settled = await db.ledgerEntry.findMany({
        where: { kind: "order_profit_settle", orderId: { in: orders.map((o) => o.id) } },
        select: { orderId: true, amount: true },
      });
      const realised = new Map(settled.map((e) => [e.orderId, e.amount]));
      const unseen = [...new Set(orders.flatMap((o) => (o.apiKeyId && !keys.has(o.apiKeyId) ? [o.apiKeyId] : [])))];
      if (unseen.length)
        for (const k of await db.apiKey.findMany({
          where: { resellerId: q.resellerId, id: { in: unseen } },
          select: { id: true, prefix: true, name: true },
        }))
          keys.set(k.id, k);
      yield orders.map((o) => ({
        ...o,
        apiKey: o.apiKeyId ? keys.get(o.apiKeyId) : undefined,
        realisedProfit: realised.get(o.id) ?? null,
      }));
      if (orders.length < BATCH) return;
      const last = orders[orders.length - 1];
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
  return csvStream(
    ORDER_CSV_COLUMNS,
    batches,
    (o) => [
      o.id,
      o.createdAt,
      o.updatedAt,
      o.status,
      o.fromCurrency,
      o.fromAmount,
      o.amountReceived,
      o.toCurrency,
      o.toAmount,
      o.rawToAmount,
      o.markupBps,
      o.platformFeeBps,
      o.profit,
      o.realisedProfit,
      o.payinAddress,
      o.payinExtraId,
      o.payoutAddress,
      o.payoutExtraId,
      o.refundAddress,
      o.refundExtraId,
      o.payinHash,
      o.payoutHash,
      o.refundState,
      o.failureReason,
      o.apiKey?.prefix ?? null,
      o.apiKey?.name ?? null,
      o.channel,
    ],
    "orders",
  );
}

export const LEDGER_CSV_COLUMNS = ["entry_id", "created_at", "currency", "bucket", "kind", "amount", "order_id"] as const;

/** Every entry of the reseller's profit ledger, oldest first: summing `amount` per currency and bucket gives the balances. */
export function ledgerCsv(db: Db, opts: { resellerId: string }): ReadableStream<Uint8Array> {
  async function* batches() {
    let after = 0;
    for (;;) {
      const rows = await db.ledgerEntry.findMany({
        where: { resellerId: opts.resellerId, id: { gt: after } },
        orderBy: { id: "asc" },
        take: BATCH,
      });
      if (!rows.length) return;
      yield rows;
      if (rows.length < BATCH) return;
      after = rows[rows.length - 1].id;
    }
  }
  return csvStream(LEDGER_CSV_COLUMNS, batches, (e) => [e.id, e.createdAt, e.currency, e.bucket, e.kind, e.amount, e.orderId], "ledger");
}

export const STATEMENT_CSV_COLUMNS = [
  "month",
  "currency",
  "opening_balance",
  "profit_credited",
  "profit_reversed",
  "withdrawn",
  "closing_balance",
] as const;

/** The Statements page as CSV: one row per month (UTC, "YYYY-MM") and currency, by currency then month (docs/ledger.md, Statements). */
export function statementsCsv(db: Db, opts: { resellerId: string; now?: Date }): ReadableStream<Uint8Array> {
  async function* batches() {
    yield (await getStatements(db, opts)).months;
  }
  return csvStream(
    STATEMENT_CSV_COLUMNS,
    batches,
    (m) => [m.month, m.currency, m.opening, m.credited, m.reversed, m.withdrawn, m.closing],
    "statements",
  );
}
