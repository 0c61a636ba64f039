import "server-only";
import { getCurrency } from "@/lib/currencies";
import type { Db, Order, OrderEvent } from "@/lib/db/client";
import { getSandboxEngine } from "@/lib/engine";
import { AppError } from "@/lib/errors";
import type { Caller } from "@/lib/keys/api-keys";
import { formatAmount } from "@/lib/money/decimal";
import { parseAmount } from "@/lib/quotes/pricing";
import { applyStep } from "./advance-order";
import { getOrderForCaller } from "./get-order";

/** Sandbox only: pretend the user's deposit arrived (the quoted amount unless one is given). */
export async function reportSandboxDeposit(
  db: Db,
  opts: { orderId: string; caller: Pick<Caller, "resellerId"> | null; amount?: unknown; now?: Date },
): Promise<Order & { events: OrderEvent[] }> {
  const engine = getSandboxEngine();
  if (!engine) throw new AppError("NOT_FOUND", "The sandbox is disabled on this server.");
  const now = opts.now ?? new Date();
  const order = await getOrderForCaller(db, { orderId: opts.orderId, caller: opts.caller });
  if (order.status !== "waiting" || order.expiresAt <= now)
    throw new AppError(
      "INVALID_ORDER_STATE",
      `A deposit can only be reported for a waiting order; this one is ${order.status === "waiting" ? "expired" : order.status}.`,
    );
  const from = getCurrency(order.fromCurrency);
  const amount = opts.amount == null ? order.fromAmount : formatAmount(parseAmount(opts.amount, from!));
  const updated = await applyStep(db, order, engine.depositStep(order, amount), now);
  if (!updated) throw new AppError("INVALID_ORDER_STATE", "The order changed state meanwhile; read it again.");
  return getOrderForCaller(db, { orderId: order.id, caller: opts.caller });
}
