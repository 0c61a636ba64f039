import "server-only";
import { z } from "zod";
import { makeConsoleChoice } from "@/lib/console/orders/choice";
import { getConsoleOrder } from "@/lib/console/orders/detail";
import { dismissOrphan } from "@/lib/console/orders/dismiss-orphan";
import { listConsoleOrders } from "@/lib/console/orders/list";
import { addOrderNote } from "@/lib/console/orders/note";
import { setConsoleRefundAddress } from "@/lib/console/orders/refund-address";
import { resolveConsoleOrder } from "@/lib/console/orders/resolve";
import { syncConsoleOrder } from "@/lib/console/orders/sync";
import { getDb } from "@/lib/db/client";
import { ORDER_STATES, STATE_REASONS } from "@/lib/domain/order-states";
import { parseWith } from "../route";
import { actorOf, type ConsoleRoute, consoleBody, query, reason } from "./shared";

// The console's orders (issue 52, points 3 and 4): the list across all resellers, one order's
// detail, and the actions on it (lib/console/orders). Each action is audited in the
// transaction of its change, answers the order as it is after, and is refused with 409
// INVALID_ORDER_STATE when the order's state no longer allows it.

const listQuery = z.object({
  q: z.string().max(200).optional(),
  status: z.enum(ORDER_STATES).optional(),
  reason: z.enum(STATE_REASONS).optional(),
  provider: z.string().max(40).optional(),
  channel: z.string().max(200).optional(),
  olderThanMinutes: z.coerce.number().int().min(0).max(10_000_000).optional(),
  cursor: z.string().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

const hash = z.string().trim().min(1).max(200);
const address = z.string().trim().min(1).max(200);
const extraId = z.string().trim().max(100).nullish();

const refundAddressBody = z.object({ address, extraId, reason: reason.optional() }).strict();
const choiceBody = z
  .object({ choice: z.enum(["exchange", "refund"]), address: address.optional(), extraId, reason: reason.optional() })
  .strict();
const resolveBody = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("failed"), reason, refundHash: hash.nullish() }).strict(),
  z.object({ outcome: z.literal("finished"), reason, payoutHash: hash }).strict(),
]);
const noteBody = z.object({ text: z.string().trim().min(1, "a note needs text").max(2000) }).strict();

export const ORDERS_ROUTES: ConsoleRoute[] = [
  {
    method: "GET",
    path: "/orders",
    permission: "orders.read",
    handler: async ({ req }) => ({ body: await listConsoleOrders({ db: getDb(), filter: parseWith(listQuery, query(req)) }) }),
  },
  {
    method: "GET",
    path: "/orders/:id",
    permission: "orders.read",
    handler: async (ctx) => ({ body: await getConsoleOrder({ db: getDb(), orderId: ctx.env.params.id }) }),
  },
  {
    method: "POST",
    path: "/orders/:id/sync",
    permission: "orders.sync",
    handler: async (ctx) => {
      await consoleBody(ctx.req, z.object({}).strict());
      return { body: await syncConsoleOrder({ db: getDb(), orderId: ctx.env.params.id, by: actorOf(ctx) }) };
    },
  },
  {
    method: "POST",
    path: "/orders/:id/refund-address",
    permission: "orders.refund_address",
    handler: async (ctx) => {
      const b = await consoleBody(ctx.req, refundAddressBody);
      return {
        body: await setConsoleRefundAddress({
          db: getDb(),
          orderId: ctx.env.params.id,
          address: b.address,
          extraId: b.extraId ?? null,
          reason: b.reason ?? null,
          by: actorOf(ctx),
        }),
      };
    },
  },
  {
    method: "POST",
    path: "/orders/:id/choice",
    permission: "orders.choice",
    handler: async (ctx) => {
      const b = await consoleBody(ctx.req, choiceBody);
      return {
        body: await makeConsoleChoice({
          db: getDb(),
          orderId: ctx.env.params.id,
          choice: b.choice,
          address: b.address ?? null,
          extraId: b.extraId ?? null,
          reason: b.reason ?? null,
          by: actorOf(ctx),
        }),
      };
    },
  },
  {
    method: "POST",
    path: "/orders/:id/resolve",
    permission: "orders.resolve",
    handler: async (ctx) => {
      const b = await consoleBody(ctx.req, resolveBody);
      const resolution =
        b.outcome === "failed"
          ? { outcome: b.outcome, refundHash: b.refundHash ?? null }
          : { outcome: b.outcome, payoutHash: b.payoutHash };
      return {
        body: await resolveConsoleOrder({ db: getDb(), orderId: ctx.env.params.id, resolution, reason: b.reason, by: actorOf(ctx) }),
      };
    },
  },
  {
    method: "POST",
    path: "/orders/:id/notes",
    permission: "orders.note",
    handler: async (ctx) => {
      const b = await consoleBody(ctx.req, noteBody);
      const r = await addOrderNote({ db: getDb(), orderId: ctx.env.params.id, text: b.text, by: actorOf(ctx) });
      return { status: r.unchanged ? 200 : 201, body: r };
    },
  },
  {
    method: "POST",
    path: "/upstream/:id/dismiss",
    permission: "orders.resolve",
    handler: async (ctx) => {
      const b = await consoleBody(ctx.req, z.object({ reason }));
      return { body: await dismissOrphan({ db: getDb(), intentId: ctx.env.params.id, reason: b.reason, by: actorOf(ctx) }) };
    },
  },
];
