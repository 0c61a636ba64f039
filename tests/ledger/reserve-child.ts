import { createDb } from "@/lib/db/client";
import { type EntryKind, InsufficientBalanceError, post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";

// A separate process for the concurrency test: RESERVE_COUNT concurrent reservations of 1 ETH
// each against one balance, so the database's own locking arbitrates between processes.
// Prints {"reserved":n,"refused":m}; any other failure exits non-zero.
const db = createDb(process.env.DATABASE_URL!);
const resellerId = process.env.RESELLER_ID!;
const kind = "withdrawal_reserve" as EntryKind; // withdrawals will name their own kinds; the primitive does not care
const reserve = () =>
  db.$transaction(
    (tx) =>
      post(tx, [
        { resellerId, currency: "eth", bucket: "available", kind, amount: new D(-1) },
        { resellerId, currency: "eth", bucket: "reserved", kind, amount: new D(1) },
      ]),
    { timeout: 30_000, maxWait: 30_000 },
  );
const results = await Promise.allSettled(Array.from({ length: Number(process.env.RESERVE_COUNT) }, reserve));
await db.$disconnect();
const other = results.find((r) => r.status === "rejected" && !(r.reason instanceof InsufficientBalanceError));
if (other) {
  console.error((other as PromiseRejectedResult).reason);
  process.exit(1);
}
console.log(
  JSON.stringify({
    reserved: results.filter((r) => r.status === "fulfilled").length,
    refused: results.filter((r) => r.status === "rejected").length,
  }),
);
