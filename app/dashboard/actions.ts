"use server";

import { z } from "zod";
import {
  AppError,
  confirmWithdrawal,
  createApiKey,
  createEndpoint,
  endAllSessions,
  getDb,
  quoteWithdrawal,
  revokeApiKey,
  rotateApiKey,
  rotateEndpointSecret,
  sendTestEvent,
  setEndpointEnabled,
  setMarkup,
  toKeyRow,
} from "@/app/_server/lib";
import { forSessionReseller } from "@/app/_server/session";
import type { ActionResult, ApiKeyRow, EndpointView, WithdrawalQuote, WithdrawalRow } from "@/lib/dashboard/types";

// The dashboard's writes. Each action re-checks the session (an action is a public POST
// endpoint, whatever page shows its button), passes only the session's reseller id to the
// service layer, and answers errors as data. The reads are in queries.ts.

export interface NewKey {
  key: string;
  apiKey: ApiKeyRow;
}

const str = (v: unknown, max: number) => (typeof v === "string" && v.length <= max ? v : "");

const newKey = (r: { key: string; apiKey: Parameters<typeof toKeyRow>[0] }): NewKey => ({ key: r.key, apiKey: toKeyRow(r.apiKey) });

export async function createKeyAction(name: unknown): Promise<ActionResult<NewKey>> {
  return forSessionReseller(async ({ resellerId }) => newKey(await createApiKey(getDb(), { resellerId, name: str(name, 200) })));
}

export async function rotateKeyAction(keyId: unknown): Promise<ActionResult<NewKey>> {
  return forSessionReseller(async ({ resellerId }) => newKey(await rotateApiKey(getDb(), { resellerId, keyId: str(keyId, 100) })));
}

export async function revokeKeyAction(keyId: unknown): Promise<ActionResult<null>> {
  return forSessionReseller(async ({ resellerId }) => {
    await revokeApiKey(getDb(), { resellerId, keyId: str(keyId, 100) });
    return null;
  });
}

/** Adds a webhook endpoint; the answer holds its secret, shown once. */
export async function createWebhookEndpointAction(input: unknown): Promise<ActionResult<{ endpoint: EndpointView; secret: string }>> {
  return forSessionReseller(async ({ resellerId }) => {
    const i = (typeof input === "object" && input !== null ? input : {}) as { url?: unknown; events?: unknown };
    return createEndpoint(getDb(), { resellerId, url: str(i.url, 2000), events: i.events });
  });
}

export async function rotateWebhookSecretAction(endpointId: unknown): Promise<ActionResult<{ endpoint: EndpointView; secret: string }>> {
  return forSessionReseller(({ resellerId }) => rotateEndpointSecret(getDb(), { resellerId, endpointId: str(endpointId, 100) }));
}

export async function setWebhookEnabledAction(endpointId: unknown, enabled: unknown): Promise<ActionResult<EndpointView>> {
  return forSessionReseller(({ resellerId }) =>
    setEndpointEnabled(getDb(), { resellerId, endpointId: str(endpointId, 100), enabled: enabled === true }),
  );
}

export async function sendWebhookTestAction(endpointId: unknown): Promise<ActionResult<{ messageId: string }>> {
  return forSessionReseller(async ({ resellerId }) => ({
    messageId: await sendTestEvent(getDb(), { resellerId, endpointId: str(endpointId, 100) }),
  }));
}

export async function setMarkupAction(markupBps: unknown): Promise<ActionResult<{ markupBps: number }>> {
  return forSessionReseller(async ({ resellerId }) => {
    const r = await setMarkup(getDb(), { resellerId, markupBps: typeof markupBps === "number" ? markupBps : Number.NaN });
    return { markupBps: r.markupBps };
  });
}

/** Ends every session of this wallet, on every device, this one included. */
export async function signOutEverywhereAction(): Promise<ActionResult<null>> {
  return forSessionReseller(async ({ resellerId }) => {
    await endAllSessions(getDb(), { resellerId });
    return null;
  });
}

const quoteInput = z
  .object({
    asset: z.string().regex(/^[a-z0-9]{1,20}$/),
    currencies: z.union([
      z.literal("all"),
      z
        .array(z.string().regex(/^[a-z0-9]{1,20}$/))
        .min(1)
        .max(200),
    ]),
  })
  .strict();
const confirmInput = z.object({ nonce: z.string().regex(/^[0-9a-f]{32}$/), signature: z.string().max(200) }).strict();

function parseInput<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) throw new AppError("INVALID_REQUEST", "The request is not valid.");
  return r.data;
}

/** The terms of a withdrawal to the connected wallet and the EIP-712 data to sign; nothing is reserved yet. */
export async function quoteWithdrawalAction(input: unknown): Promise<ActionResult<WithdrawalQuote>> {
  return forSessionReseller(async ({ resellerId }) => quoteWithdrawal(getDb(), { resellerId, ...parseInput(quoteInput, input) }));
}

/**
 * Queues a withdrawal: the session alone is not enough, the wallet's fresh EIP-712 signature
 * of the quoted terms is (a stolen cookie cannot withdraw). Reserves the balances at once.
 */
export async function confirmWithdrawalAction(input: unknown): Promise<ActionResult<WithdrawalRow>> {
  return forSessionReseller(async ({ resellerId }) => confirmWithdrawal(getDb(), { resellerId, ...parseInput(confirmInput, input) }));
}
