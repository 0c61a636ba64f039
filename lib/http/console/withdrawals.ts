import "server-only";
import { z } from "zod";
import { reconcileNow, treasuryView } from "@/lib/console/money/treasury";
import { getConsoleWithdrawal, listConsoleWithdrawals } from "@/lib/console/money/withdrawals";
import { getDb } from "@/lib/db/client";
import { approveWithdrawal, rejectWithdrawal, requestApproval } from "@/lib/withdrawals/approval";
import { WITHDRAWAL_STATUSES } from "@/lib/withdrawals/types";
import { retryWithdrawal } from "@/lib/withdrawals/withdrawals";
import { parseWith } from "../route";
import { actorOf, type ConsoleRoute, consoleBody, query, reason } from "./shared";

// The console's withdrawals and treasury (issue 52, docs/operator.md "Withdrawals and
// treasury"): every reseller's withdrawals; the approval of one above WITHDRAWAL_APPROVAL_USD
// with the operator's own EIP-712 signature, or its rejection; a retry of a queued one; the hot
// wallets against their low-balance thresholds, and the reconciliation, run and recorded.

const listQuery = z.object({
  status: z.enum(WITHDRAWAL_STATUSES).optional(),
  cursor: z.string().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

const approveBody = z.object({
  nonce: z.string().regex(/^[0-9a-f]{32}$/, "expected the approval's nonce"),
  signature: z.string().max(20_000),
});
const rejectBody = z.object({ reason });
const retryBody = z.object({});

/** The acting operator: console routes always have one, with an id. */
const operatorActor = (ctx: Parameters<typeof actorOf>[0]) => {
  const a = actorOf(ctx);
  return { ...a, operatorId: a.operatorId! };
};

export const WITHDRAWALS_ROUTES: ConsoleRoute[] = [
  {
    method: "GET",
    path: "/withdrawals",
    permission: "withdrawals.read",
    handler: async ({ req }) => ({ body: await listConsoleWithdrawals(getDb(), parseWith(listQuery, query(req))) }),
  },
  {
    method: "GET",
    path: "/withdrawals/:id",
    permission: "withdrawals.read",
    handler: async ({ env }) => ({ body: { withdrawal: await getConsoleWithdrawal(getDb(), env.params.id) } }),
  },
  {
    method: "POST",
    path: "/withdrawals/:id/approval",
    permission: "withdrawals.approve",
    handler: async (ctx) => {
      await consoleBody(ctx.req, retryBody);
      return { body: await requestApproval(getDb(), { withdrawalId: ctx.env.params.id, by: operatorActor(ctx) }) };
    },
  },
  {
    method: "POST",
    path: "/withdrawals/:id/approve",
    permission: "withdrawals.approve",
    handler: async (ctx) => {
      const body = await consoleBody(ctx.req, approveBody);
      const w = await approveWithdrawal(getDb(), { withdrawalId: ctx.env.params.id, ...body, by: operatorActor(ctx) });
      return { body: { withdrawal: w } };
    },
  },
  {
    method: "POST",
    path: "/withdrawals/:id/reject",
    permission: "withdrawals.reject",
    handler: async (ctx) => {
      const body = await consoleBody(ctx.req, rejectBody);
      return {
        body: { withdrawal: await rejectWithdrawal(getDb(), { withdrawalId: ctx.env.params.id, reason: body.reason, by: actorOf(ctx) }) },
      };
    },
  },
  {
    method: "POST",
    path: "/withdrawals/:id/retry",
    permission: "withdrawals.retry",
    handler: async (ctx) => {
      await consoleBody(ctx.req, retryBody);
      return { body: { withdrawal: await retryWithdrawal(getDb(), { withdrawalId: ctx.env.params.id, by: actorOf(ctx) }) } };
    },
  },
  {
    method: "GET",
    path: "/treasury",
    permission: "treasury.read",
    handler: async () => ({ body: await treasuryView(getDb()) }),
  },
  {
    method: "POST",
    path: "/treasury/reconcile",
    permission: "treasury.reconcile",
    handler: async (ctx) => {
      await consoleBody(ctx.req, retryBody);
      return { body: { reconciliation: await reconcileNow(getDb(), { by: actorOf(ctx) }) } };
    },
  },
];
