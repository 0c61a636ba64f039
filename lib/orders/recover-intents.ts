import "server-only";
import type { Db } from "@/lib/db/client";
import { leaseMs, newLeaseToken } from "@/lib/jobs/lease";
import { getLogger } from "@/lib/log";
import { commitOpened } from "./create-order";
import { type IntentOutcome, parseOpened, resolveIntent } from "./intents";

// After a crash (docs/providers.md, "No orphan exchanges"): the worker looks at intents still
// open a claim's length after they were written, i.e. whose opening request is gone, and
// settles each one:
// - the order committed with that exchange: `committed`;
// - the order is still an unopened reservation and the provider's answer was recorded: the
//   order is opened with that exchange (`adopted`), as its opening request would have done; a
//   client that retries with its Idempotency-Key gets it, and no second exchange is made;
// - the order is gone (its opening failed after the provider answered) or committed with
//   another exchange: `abandoned` (nobody was ever shown that exchange's deposit address, so
//   no money can reach it; the provider expires it), logged for the operator;
// - the provider's answer never arrived: `unknown`, logged with the provider and our order
//   id (the external id the provider keeps, where it takes one), for the operator to look up.

const BATCH = 50;

export async function recoverIntents(db: Db, now = new Date()): Promise<number> {
  const settledBefore = new Date(now.getTime() - leaseMs());
  const open = await db.upstreamIntent.findMany({
    where: { outcome: null, createdAt: { lt: settledBefore } },
    orderBy: { createdAt: "asc" },
    take: BATCH,
  });
  let n = 0;
  for (const i of open) {
    const order = await db.order.findUnique({ where: { id: i.orderId } });
    let outcome: IntentOutcome;
    if (order && order.payinAddress !== null)
      outcome =
        order.provider === i.provider && order.upstreamId === i.upstreamId && i.upstreamId
          ? "committed"
          : i.upstreamId
            ? "abandoned"
            : "unknown";
    else if (order?.leaseUntil && order.leaseUntil > now)
      continue; // a request (or a takeover) is opening it right now
    else if (order && i.opened) {
      const token = newLeaseToken();
      const claimed = await db.order.updateMany({
        where: { id: order.id, payinAddress: null, leaseToken: order.leaseToken },
        data: { leaseToken: token, leaseUntil: new Date(now.getTime() + leaseMs()) },
      });
      if (claimed.count !== 1) continue;
      const opened = await commitOpened(db, { ...order, leaseToken: token }, token, parseOpened(i.opened), now).catch((e) => {
        getLogger().error(
          { err: e, orderId: order.id, provider: i.provider, upstreamId: i.upstreamId },
          "adopting an upstream exchange failed",
        );
        return null;
      });
      outcome = opened ? "adopted" : "abandoned";
    } else outcome = i.upstreamId ? "abandoned" : "unknown";
    if (!(await resolveIntent(db, i.id, outcome, now))) continue;
    n++;
    const fields = { orderId: i.orderId, provider: i.provider, upstreamId: i.upstreamId, externalId: i.externalId, outcome };
    if (outcome === "adopted") getLogger().warn(fields, "an exchange created before a crash was adopted into its order");
    else if (outcome === "abandoned")
      getLogger().warn(fields, "an upstream exchange has no order (its deposit address was never shown; the provider expires it)");
    else if (outcome === "unknown")
      getLogger().error(
        fields,
        "the provider may hold an exchange for this order whose answer never arrived; look it up by the external id",
      );
  }
  return n;
}
