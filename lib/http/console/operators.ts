import "server-only";
import { z } from "zod";
import { getDb } from "@/lib/db/client";
import { auditCsv, listAudit } from "@/lib/operators/audit";
import { addOperator, listOperators, removeOperator } from "@/lib/operators/operators";
import { OPERATOR_ROLES } from "@/lib/operators/roles";
import { RawBytes } from "../respond";
import { parseWith } from "../route";
import { actorOf, type ConsoleRoute, consoleBody, query, reason } from "./shared";

// The console's operators (admins manage them) and its audit log (everyone reads it).

const addBody = z.object({ wallet: z.string().max(100), role: z.enum(OPERATOR_ROLES) });
const removeBody = z.object({ reason: reason.optional() });

const date = z
  .string()
  .max(40)
  .refine((s) => !Number.isNaN(Date.parse(s)), "expected an ISO 8601 date")
  .transform((s) => new Date(s));

const auditQuery = z.object({
  action: z.string().max(80).optional(),
  actionPrefix: z.string().max(80).optional(),
  operatorId: z.string().max(80).optional(),
  actor: z.string().max(100).optional(),
  targetType: z.enum(["order", "reseller", "withdrawal", "provider", "operator", "upstream_intent"]).optional(),
  targetId: z.string().max(100).optional(),
  from: date.optional(),
  to: date.optional(),
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const OPERATOR_ROUTES: ConsoleRoute[] = [
  {
    method: "GET",
    path: "/operators",
    permission: "operators.read",
    handler: async () => ({ body: { operators: await listOperators(getDb()) } }),
  },
  {
    method: "POST",
    path: "/operators",
    permission: "operators.manage",
    handler: async (ctx) => {
      const body = await consoleBody(ctx.req, addBody);
      return {
        status: 201,
        body: { operator: await addOperator(getDb(), { walletAddress: body.wallet, role: body.role, by: actorOf(ctx) }) },
      };
    },
  },
  {
    method: "POST",
    path: "/operators/:id/remove",
    permission: "operators.manage",
    handler: async (ctx) => {
      const body = await consoleBody(ctx.req, removeBody);
      return {
        body: { operator: await removeOperator(getDb(), { operatorId: ctx.env.params.id, by: actorOf(ctx), reason: body.reason }) },
      };
    },
  },
  {
    method: "GET",
    path: "/audit",
    permission: "audit.read",
    handler: async ({ req }) => {
      const { before, limit, ...filter } = parseWith(auditQuery, query(req));
      return { body: await listAudit(getDb(), { filter, before, limit }) };
    },
  },
  {
    method: "GET",
    path: "/audit.csv",
    permission: "audit.read",
    handler: async ({ req }) => {
      const { before: _b, limit: _l, ...filter } = parseWith(auditQuery, query(req));
      const parts: string[] = [];
      for await (const chunk of auditCsv(getDb(), { filter })) parts.push(chunk);
      return {
        body: new RawBytes(Buffer.from(parts.join(""), "utf8")),
        headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="audit.csv"' },
      };
    },
  },
];
