import { createDb } from "@/lib/db/client";
import { writeTransaction } from "@/lib/db/write-transaction";
import { post } from "@/lib/ledger/ledger";
import { D } from "@/lib/money/decimal";

// A separate process for tests/db/write-transaction.test.ts: COUNT ledger transactions on one
// SQLite file, each reading the reseller's balance before it posts a credit of 1, all opened with
// writeTransaction. Prints {"done":n,"runs":m} (runs: how often a transaction's function ran,
// retries included); any failure exits non-zero.
const db = createDb(process.env.DATABASE_URL!);
const resellerId = process.env.RESELLER_ID!;
let runs = 0;
const credit = () =>
  writeTransaction(
    db,
    async (tx) => {
      runs++;
      await tx.balance.findMany({ where: { resellerId } });
      return post(tx, [{ resellerId, currency: "xmr", bucket: "available", kind: "order_profit_settle", amount: new D(1) }]);
    },
    { timeout: 60_000, maxWait: 60_000 },
  );
let done = 0;
try {
  await Promise.all(Array.from({ length: Number(process.env.COUNT) }, () => credit().then(() => done++)));
} finally {
  await db.$disconnect();
}
console.log(JSON.stringify({ done, runs }));
