import "server-only";
import type { Tx } from "@/lib/db/client";
import { enqueueEvent } from "@/lib/webhooks/outbox";
import { toWithdrawalRow, WITH_LEGS } from "./serialize-withdrawal";

/**
 * The webhook event of a withdrawal's change, in the transaction that makes it: the new
 * status and the withdrawal as the dashboard shows it. Deliveries about one withdrawal go
 * out in order (its id is their subject).
 */
export async function announceWithdrawal(tx: Tx, withdrawalId: string, previousStatus: string | null, now: Date): Promise<void> {
  const w = await tx.withdrawal.findUniqueOrThrow({ where: { id: withdrawalId }, include: WITH_LEGS });
  const row = toWithdrawalRow(w);
  await enqueueEvent(tx, {
    resellerId: w.resellerId,
    type: previousStatus === null ? "withdrawal.created" : "withdrawal.status_changed",
    subject: w.id,
    data: { withdrawalId: w.id, status: row.status, ...(previousStatus === null ? {} : { previousStatus }), withdrawal: row },
    now,
  });
}
