import "server-only";
import { z } from "zod";
import { getConfig } from "@/lib/config";
import { addResellerNote, MAX_NOTE, setMarkupCap, suspendReseller, unsuspendReseller } from "@/lib/console/resellers/actions";
import { getConsoleReseller, listConsoleResellers, MAX_PAGE } from "@/lib/console/resellers/read";
import { getDb } from "@/lib/db/client";
import { parseWith } from "../route";
import { actorOf, type ConsoleRoute, consoleBody, query, reason } from "./shared";

// The console's resellers (issue 52, docs/operator.md "Resellers"): the list with volume, profit
// and balances, one reseller's detail, and the actions on it (lib/console/resellers).

const listQuery = z.object({
  q: z.string().max(100).optional(),
  cursor: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional(),
});

const reasonBody = z.object({ reason });
/** bps arrive as text (consoleBody reads JSON numbers exactly, as strings): a whole number, or null. */
const capBody = z.object({
  capBps: z.union([
    z.null(),
    z
      .string()
      .regex(/^\d{1,6}$/, "a whole number of basis points")
      .transform(Number)
      .refine((n) => n <= getConfig().MARKUP_CAP_BPS, { message: "at most MARKUP_CAP_BPS" }),
  ]),
  reason,
});
const noteBody = z.object({ text: z.string().trim().min(1, "a note is required").max(MAX_NOTE) });

const idOf = (params: Record<string, string>) => params.id ?? "";

export const RESELLERS_ROUTES: ConsoleRoute[] = [
  {
    method: "GET",
    path: "/resellers",
    permission: "resellers.read",
    handler: async ({ req }) => ({ body: await listConsoleResellers(getDb(), parseWith(listQuery, query(req))) }),
  },
  {
    method: "GET",
    path: "/resellers/:id",
    permission: "resellers.read",
    handler: async ({ env }) => ({ body: { reseller: await getConsoleReseller(getDb(), { resellerId: idOf(env.params) }) } }),
  },
  {
    method: "POST",
    path: "/resellers/:id/suspend",
    permission: "resellers.suspend",
    handler: async (ctx) => {
      const body = await consoleBody(ctx.req, reasonBody);
      return { body: await suspendReseller(getDb(), { resellerId: idOf(ctx.env.params), by: actorOf(ctx), reason: body.reason }) };
    },
  },
  {
    method: "POST",
    path: "/resellers/:id/restore",
    permission: "resellers.suspend",
    handler: async (ctx) => {
      const body = await consoleBody(ctx.req, reasonBody);
      return { body: await unsuspendReseller(getDb(), { resellerId: idOf(ctx.env.params), by: actorOf(ctx), reason: body.reason }) };
    },
  },
  {
    method: "POST",
    path: "/resellers/:id/markup-cap",
    permission: "resellers.markup_cap",
    handler: async (ctx) => {
      const body = await consoleBody(ctx.req, capBody);
      return {
        body: await setMarkupCap(getDb(), { resellerId: idOf(ctx.env.params), capBps: body.capBps, by: actorOf(ctx), reason: body.reason }),
      };
    },
  },
  {
    method: "POST",
    path: "/resellers/:id/notes",
    permission: "resellers.note",
    handler: async (ctx) => {
      const body = await consoleBody(ctx.req, noteBody);
      return { body: await addResellerNote(getDb(), { resellerId: idOf(ctx.env.params), text: body.text, by: actorOf(ctx) }) };
    },
  },
];
